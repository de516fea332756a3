// The PromQL text of every MetricsSource query. Pure functions, so tests can pin the exact
// queries. `q` is what one query covers (one namespace or all, and the excluded containers);
// `window` is a range vector window. Every per-container query is aggregated by (namespace,
// pod, container), and every selector of a per-container series carries the exclusion matcher
// `container!~"^(a|b)$"` when q excludes containers (no matcher, and the same text as without
// exclusions, when it excludes none). The owner series are per pod and never carry it.
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
// Escapes the regular expression metacharacters of `literal` (those of Go's regexp.QuoteMeta,
// for the RE2 syntax Prometheus uses) so that it matches itself: a.b → a\.b.
std::string escapeRegex(std::string_view literal);

// What one query covers.
struct QueryScope {
  std::optional<std::string> ns;  // one namespace; nullopt = every namespace
  // Container names the query leaves out; sorted, without duplicates or empty names.
  std::vector<std::string> excludedContainers;
};

// The queries a scope needs, one per namespace (sorted, duplicates removed), or one with
// ns = nullopt for every namespace; each carries the scope's exclusions, sorted, duplicates and
// empty names removed.
std::vector<QueryScope> queryScopesOf(const Scope& scope);
// `container!~"^(a|b)$"` for `excluded` (each name regex-escaped, then label-escaped); empty
// when `excluded` is empty.
std::string containerExclusion(const std::vector<std::string>& excluded);

std::string cpuUsage(const QueryScope& q, Duration window);
std::string cpuPressureWaiting(const QueryScope& q, Duration window);
std::string memoryWorkingSet(const QueryScope& q);
std::string cpuThrottleRatio(const QueryScope& q, Duration window);
// Memory working set (max over `step`) at each step in which the container restarted while its
// last termination reason is OOMKilled.
std::string oomKills(const QueryScope& q, Duration step);
std::string restartCounts(const QueryScope& q);
// kube_pod_container_resource_requests and _limits for cpu and memory, keeping __name__.
std::string resources(const QueryScope& q);
// kube_pod_owner, kube_replicaset_owner and kube_job_owner, keeping __name__. Per pod: only
// q.ns is used; the exclusions do not apply (a pod is owned whatever its containers).
std::string owners(const QueryScope& q);
std::string nodeLoad();
std::string nodeCapacity();

}  // namespace attune::metrics::promql
