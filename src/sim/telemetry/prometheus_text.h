// The simulator's current metrics in the Prometheus text exposition format 0.0.4, for a
// /metrics endpoint that a real Prometheus scrapes: the same series and labels as the
// OpenMetrics dump (docs/simulator-metrics.md), without timestamps.
#pragma once

#include <map>
#include <string>

#include "sim/cluster/cluster_state.h"
#include "sim/kubelet/kubelet.h"
#include "sim/telemetry/recorder.h"

namespace attune::sim {

// Renders: cAdvisor series of every running container in `pods` (the kubelet's counters as they
// are now); kube-state-metrics series of every pod, ReplicaSet, Job and node in `state` (restart
// counts and last termination reasons of regular containers, their spec requests and limits,
// owners, node capacity falling back to allocatable for cpu and memory); node series of every
// node in `nodes`; http_requests_total of every workload in `requests`. Families in name order,
// each with HELP and TYPE lines (a counter's TYPE line names the `_total` sample, as the 0.0.4
// format does), series sorted by their label text; label values escape backslash, double quote and
// newline. Deterministic. Pure.
std::string renderPrometheusText(const ClusterState& state,
                                 const std::map<std::string, PodRuntime, std::less<>>& pods,
                                 const std::map<std::string, NodeRuntime, std::less<>>& nodes,
                                 const std::vector<WorkloadRequests>& requests = {});

}  // namespace attune::sim
