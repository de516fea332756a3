// What `attune backtest` measures of scaling (docs/simulate-report.md): pod-hours per workload,
// each HPA's replica count over the run, and the recovery after each rate change of a service
// workload (time to recover, CPU short). Fed tick by tick by the run's meter; internal to the
// simulate pipeline.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/k8s/workload_ref.h"
#include "report/simulation_report.h"
#include "sim/cluster/cluster_state.h"
#include "sim/engine/run_totals.h"
#include "sim/kubelet/kubelet.h"
#include "sim/scenario/scenario.h"

namespace attune::cli {

// True when the scenario has something that scales: an HPA, or a service rate change.
bool hasScaling(const sim::Scenario& scenario);

class ScalingMeter {
 public:
  // Tracks the recovery after every rateChanges entry of the scenario's service workloads (the
  // workload's first service container by name, as the simulator does).
  explicit ScalingMeter(const sim::Scenario& scenario);

  // One pod of the tick that just ended, `seconds` long, owned by `workload`.
  void addPod(const api::WorkloadRef& workload, const sim::PodRuntime& pod, double seconds);
  // After every pod of the tick that ended at `now`: samples the tracked workloads and the
  // HPAs' targets.
  void endTick(const sim::ClusterState& state, Time now, Duration dt);
  // The summary so far; `cpuShortCoreSeconds` is the run's (the run totals' demand minus use).
  report::ScalingSummary finish(const sim::ClusterState& state, double cpuShortCoreSeconds) const;

 private:
  struct Change {
    api::WorkloadRef workload;
    Duration from{}, to{};
  };
  Time start_;
  std::vector<Change> changes_;
  std::map<api::WorkloadRef, double> podSeconds_;
  // This tick's ready pods and CPU short of the tracked workloads.
  std::map<api::WorkloadRef, sim::ScalingSample> tick_;
  std::map<api::WorkloadRef, std::vector<sim::ScalingSample>> samples_;
  std::map<std::pair<std::string, std::string>, sim::ReplicaTrack> hpas_;  // by (ns, name)
};

}  // namespace attune::cli
