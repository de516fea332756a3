// The simulated HorizontalPodAutoscaler controller (autoscaling/v2, upstream
// pkg/controller/podautoscaler/horizontal.go), for `Resource` and `ContainerResource` metrics
// (KEP-1610) read from what the kubelet model reports.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/time.h"
#include "sim/cluster/cluster_state.h"
#include "sim/control/hpa_scaling.h"
#include "sim/control/replica_calculator.h"

namespace attune::sim {

// Reads the metrics API's current view of every pod. Called at most once per sync.
using PodUsageReader = std::function<PodUsageByName()>;

struct HpaControllerOptions {
  // --horizontal-pod-autoscaler-sync-period.
  Duration syncPeriod = std::chrono::seconds(15);
  // --horizontal-pod-autoscaler-tolerance; spec.behavior.scaleUp/scaleDown.tolerance override it.
  double tolerance = 0.1;
  ReadinessWindows readiness;
};

// Every syncPeriod of simulated time (the first call syncs), each HPA in (namespace, name)
// order is reconciled as upstream's reconcileAutoscaler does:
// - the target (scaleTargetRef: Deployment, StatefulSet or ReplicaSet in the HPA's namespace)
//   gives spec.replicas (current, default 1) and its selector picks the pods; a missing or
//   unsupported target sets AbleToScale False (FailedGetScale) and nothing else happens;
// - current 0 with minReplicas (default 1) > 0: scaling disabled (ScalingActive False,
//   ScalingDisabled); current above maxReplicas or below minReplicas: desired is the bound;
// - otherwise each metric (spec.metrics, default cpu at 80 % utilization) proposes a count
//   (replica_calculator.h; Resource and ContainerResource only, other types are invalid here),
//   and the largest proposal wins. A metric that fails (e.g. a ContainerResource naming a
//   container the pods do not have) is invalid: when every metric is invalid, or some are and
//   the valid ones propose fewer than current, nothing is scaled and ScalingActive is False with
//   the first invalid metric's reason (FailedGetResourceMetric,
//   FailedGetContainerResourceMetric, ...); else ScalingActive True, ValidMetricFound;
// - the proposal is normalized (hpa_scaling.h: stabilization, min/max, rate);
// - a different count is written to the target's spec.replicas (the workload controllers then
//   make or delete pods), with AbleToScale True (SucceededRescale), a Normal SuccessfulRescale
//   Event and status.lastScaleTime = now;
// - status: observedGeneration, currentReplicas (the target's spec.replicas before the write),
//   desiredReplicas, currentMetrics (one entry per metric; an invalid one is left empty),
//   conditions, written only when changed.
// Tolerances: options.tolerance, or the behavior's scaleUp/scaleDown tolerance when set.
// Keeps each HPA's recommendations and scale events between syncs. Not thread-safe.
class HpaController {
 public:
  explicit HpaController(HpaControllerOptions options = {}) : options_(options) {}

  // True when a sync is due at `now` and there is an HPA to sync.
  bool due(const ClusterState& state, Time now) const;
  // Syncs every HPA when due(); reads the usage only then.
  void tick(ClusterState& state, Time now, const PodUsageReader& readUsage);
  // Syncs every HPA now, whatever the period.
  void sync(ClusterState& state, Time now, const PodUsageByName& usage);

 private:
  void reconcile(ClusterState& state, const api::HorizontalPodAutoscaler& hpa, Time now,
                 const PodUsageByName& usage);

  HpaControllerOptions options_;
  std::optional<Time> lastSync_;
  std::map<std::string, HpaScalingMemory, std::less<>> memory_;  // by namespace/name/uid
};

}  // namespace attune::sim
