// Turning a decoded Scenario into cluster objects: nodes, namespaces, workloads (including one
// Deployment per pod of each trace), LimitRanges, ResourceQuotas, HPAs and AttunePolicies, and
// the usage model of every workload container.
#pragma once

#include <optional>

#include "core/error.h"
#include "sim/cluster/cluster_state.h"
#include "sim/control/cluster_autoscaler.h"
#include "sim/engine/model_registry.h"
#include "sim/kubelet/kubelet.h"
#include "sim/scenario/scenario.h"

namespace attune::sim {

// The label every scenario workload's pods carry and select on (value: the workload's name,
// unless the scenario's labels set it).
inline constexpr std::string_view kWorkloadNameLabel = "app.kubernetes.io/name";
// The label naming a node's pool (the autoscaler's node group label).
inline constexpr std::string_view kNodePoolLabel = kNodeGroupLabel;

// The cluster autoscaler spec.clusterAutoscaler asks for, one node group per pool (minSize and
// maxSize default to count; new nodes are made as the pool's nodes are); unset without it.
std::optional<ClusterAutoscaler> clusterAutoscalerFor(const Scenario& scenario);

// The kubelet options of the scenario, with perNode filled for the nodes of pools (up to
// their maxSize) that set
// their own restartBackoff.
KubeletOptions kubeletOptionsFor(const Scenario& scenario);

// Creates the scenario's objects in `state` (which should be empty), in a fixed order: nodes
// (pool order, "<pool>-<i>", Ready), namespaces, LimitRanges, ResourceQuotas, the workloads in
// file order, then the trace entries in file order (each expands to one single-replica
// Deployment per trace pod, in trace order, named after the pod), HPAs, AttunePolicies
// (namespace "default" when unset). Registers every
// workload container's model in `models` and hands the loaded traces to it. Errors carry the
// field path of the scenario entry at fault (e.g. "spec.workloads[4].trace.path" for a trace
// that cannot be loaded); see diagnosticFor() for its line.
Result<void> buildCluster(const Scenario& scenario, ClusterState& state, ModelRegistry& models);

// Loads every trace entry of `scenario` not in memory yet (TraceWorkloads::loaded), so that the
// simulations of a backtest, each built from a copy of the scenario, share one copy of each
// trace. Errors as buildCluster's for a trace that cannot be loaded.
Result<void> loadTraces(Scenario& scenario);

}  // namespace attune::sim
