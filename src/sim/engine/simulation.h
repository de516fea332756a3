// Simulation: one simulated cluster built from a Scenario and advanced tick by tick on a
// SimulatedClock. It owns the clock, the state, the in-process ClusterApi, the control plane
// (workload controllers, CronJobs, scheduler), the kubelets, the usage models and traces, and the
// telemetry (Recorder, and a MetricsSource over it).
//
// Other code drives its own work on the same clock: a controller schedules callbacks with
// clock().at(...) and talks to the cluster through api() and metrics(); step() runs those
// callbacks when their time comes, between the cluster's ticks (see step()).
//
// Deterministic: the same scenario (seed included) and the same calls give byte-identical state
// and metrics. Not thread-safe; not movable (its parts refer to each other).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/metrics_source.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/cluster_state.h"
#include "sim/control/control_plane.h"
#include "sim/engine/cron_job_controller.h"
#include "sim/engine/model_registry.h"
#include "sim/engine/run_totals.h"
#include "sim/kubelet/kubelet.h"
#include "sim/scenario/scenario.h"
#include "sim/telemetry/recorder.h"
#include "sim/telemetry/sim_metrics_source.h"

namespace attune::sim {

struct SimulationOptions {
  // How long the Recorder keeps samples; unset: the scenario's duration plus one tick, so the
  // whole run stays queryable and in the OpenMetrics dump.
  std::optional<Duration> retention;
};

class Simulation {
 public:
  // Builds the cluster `scenario` describes at scenario.start (buildCluster: nodes, namespaces,
  // workloads, policy objects; traces are loaded here). Nothing has run yet: no pods exist
  // until the first step(). Errors name the scenario field at fault (diagnosticFor() gives its
  // line).
  static Result<std::unique_ptr<Simulation>> create(const Scenario& scenario,
                                                    SimulationOptions options = {});

  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // One tick of length scenario().tick, from t to t + tick, in this order:
  //  1. the clock advances to t + tick, running every callback due in (t, t + tick] at its due
  //     time (code driving the cluster through api() sees the state the previous tick left);
  //  2. the CronJob controller, then the control plane (the HPA controller every 15 s on the
  //     usage the kubelets reported in the previous tick, Deployments, ReplicaSets,
  //     StatefulSets, DaemonSets, Jobs, the Scheduler), at t + tick — unless its previous run
  //     wrote nothing, nothing was written since and no HPA sync is due, when it would again
  //     write nothing; then, with spec.clusterAutoscaler, one loop of the cluster autoscaler
  //     (sim/control/cluster_autoscaler.h);
  //  3. service workloads learn their ready pods (ModelRegistry::refreshEndpoints), the
  //     kubelets run (t, t + tick]: start new pods, act on resizes, run the containers
  //     against their usage models, OOM-kill, restart, evict, write pod and node status;
  //  4. service workloads count the tick's requests; the Recorder samples the kubelets'
  //     counters and the request counters at t + tick; the run totals are updated.
  // ResourceQuota usage is kept current by the cluster state on every pod write, so no step of
  // its own is needed. A kubelet error is returned; the simulation should not be stepped after
  // one.
  Result<void> step();
  // Steps while the next tick ends at or before `t` (whole ticks only; callbacks due after the
  // last tick are left for later). Stops at the first error.
  Result<void> runUntil(Time t);
  // runUntil(clock().now() + d).
  Result<void> runFor(Duration d);
  // runUntil(end()).
  Result<void> run();

  // scenario().start + scenario().duration.
  Time end() const { return scenario_.start + scenario_.duration; }
  // Ticks run so far.
  std::int64_t ticks() const { return accounting_.totals().ticks; }

  SimulatedClock& clock() { return clock_; }
  ClusterState& state() { return state_; }
  const ClusterState& state() const { return state_; }
  api::ClusterApi& api() { return cluster_; }
  metrics::MetricsSource& metrics() { return metrics_; }
  const Kubelet& kubelet() const { return kubelet_; }
  // The cluster autoscaler; nullptr when the scenario keeps a fixed node count.
  const ClusterAutoscaler* autoscaler() const { return controlPlane_.autoscaler(); }
  const ModelRegistry& models() const { return models_; }
  // Every service workload's requests received so far (http_requests_total), by workload.
  std::vector<WorkloadRequests> requests() const;
  const Recorder& recorder() const { return recorder_; }
  const Scenario& scenario() const { return scenario_; }
  // The run's totals so far, with the end-of-run fields computed now.
  RunTotals totals() const;

 private:
  Simulation(const Scenario& scenario, const SimulationOptions& options);

  Scenario scenario_;
  SimulatedClock clock_;
  ClusterState state_;
  Cluster cluster_;
  CronJobController cronJobs_;
  ControlPlane controlPlane_;
  ModelRegistry models_;
  Kubelet kubelet_;
  Recorder recorder_;
  SimMetricsSource metrics_;
  RunAccounting accounting_;
  // The cluster's resourceVersion after the control plane last ran, and whether that run wrote.
  std::string afterControlPlane_;
  bool controlPlaneWrote_ = true;
};

}  // namespace attune::sim
