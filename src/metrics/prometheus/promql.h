// The PromQL text of every MetricsSource query. Pure functions, so tests can pin the exact
// queries. `ns` is one namespace, or nullopt for a cluster-wide query; `window` is a range
// vector window. Every per-container query is aggregated by (namespace, pod, container).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "metrics/metrics_source.h"

namespace attune::metrics::promql {

// Escapes a label value for a double-quoted PromQL string: backslash, quote and newline.
std::string escapeLabelValue(std::string_view value);
// A range window as whole seconds, rounded up, at least 1: "[300s]" → "300s".
std::string windowText(Duration window);
// The namespaces to query one by one: sorted, duplicates removed; {nullopt} for all.
std::vector<std::optional<std::string>> namespacesOf(const Scope& scope);

std::string cpuUsage(const std::optional<std::string>& ns, Duration window);
std::string cpuPressureWaiting(const std::optional<std::string>& ns, Duration window);
std::string memoryWorkingSet(const std::optional<std::string>& ns);
std::string cpuThrottleRatio(const std::optional<std::string>& ns, Duration window);
// Memory working set (max over `step`) at each step in which the container restarted while its
// last termination reason is OOMKilled.
std::string oomKills(const std::optional<std::string>& ns, Duration step);
std::string restartCounts(const std::optional<std::string>& ns);
// kube_pod_container_resource_requests and _limits for cpu and memory, keeping __name__.
std::string resources(const std::optional<std::string>& ns);
// kube_pod_owner, kube_replicaset_owner and kube_job_owner, keeping __name__.
std::string owners(const std::optional<std::string>& ns);
std::string nodeLoad();
std::string nodeCapacity();

}  // namespace attune::metrics::promql
