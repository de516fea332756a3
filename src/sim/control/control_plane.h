// Every simulated controller of the control plane, run once per simulated tick.
#pragma once

#include <optional>
#include <utility>

#include "core/time.h"
#include "sim/cluster/cluster_state.h"
#include "sim/control/cluster_autoscaler.h"
#include "sim/control/daemon_set_controller.h"
#include "sim/control/deployment_controller.h"
#include "sim/control/disruption_controller.h"
#include "sim/control/hpa_controller.h"
#include "sim/control/job_controller.h"
#include "sim/control/replica_set_controller.h"
#include "sim/control/scheduler.h"
#include "sim/control/stateful_set_controller.h"

namespace attune::sim {

// One tick of the control plane, in a fixed order so that a tick's effects are deterministic:
// the HPA controller syncs when its period is due (reading pod usage through `readUsage`) and
// writes its targets' spec.replicas, Deployments scale their ReplicaSets, ReplicaSets,
// StatefulSets, DaemonSets and Jobs make or delete pods, Deployments write their status, the
// Scheduler binds the pods still pending, and the disruption controller brings the
// PodDisruptionBudgets' status up to date with that. Only the HPA controller keeps state (its
// recommendations and scale events); the others are level-based on the cluster state.
class ControlPlane {
 public:
  explicit ControlPlane(HpaControllerOptions hpa = {},
                        std::optional<ClusterAutoscaler> autoscaler = std::nullopt)
      : hpas_(hpa), autoscaler_(std::move(autoscaler)) {}

  void tick(ClusterState& state, Time now, const PodUsageReader& readUsage = {});
  // The disruption controller alone, after the kubelet's writes of a tick: upstream's reacts to
  // every pod change within moments, so a budget's status never lags a pod that just turned
  // unready by a whole tick (an eviction in between would count that pod as healthy).
  void syncDisruptionBudgets(ClusterState& state, Time now) const { disruptions_.tick(state, now); }
  // True when the HPA controller would sync at `now`: the tick must run even if nothing
  // changed in the cluster since the last one.
  bool hpaSyncDue(const ClusterState& state, Time now) const { return hpas_.due(state, now); }
  // One loop of the cluster autoscaler, when the scenario opted in (after tick(), so it sees the
  // scheduler's verdicts); true when it wrote. Its timers make it run on every tick.
  bool autoscale(ClusterState& state, Time now) {
    return autoscaler_ && autoscaler_->tick(state, now);
  }
  // Unset when the node count is fixed.
  const ClusterAutoscaler* autoscaler() const { return autoscaler_ ? &*autoscaler_ : nullptr; }

 private:
  HpaController hpas_;
  DeploymentController deployments_;
  ReplicaSetController replicaSets_;
  StatefulSetController statefulSets_;
  DaemonSetController daemonSets_;
  JobController jobs_;
  Scheduler scheduler_;
  DisruptionController disruptions_;
  std::optional<ClusterAutoscaler> autoscaler_;
};

}  // namespace attune::sim
