#include "metrics/prometheus/promql.h"

#include <algorithm>
#include <initializer_list>

namespace attune::metrics::promql {
namespace {

const std::string kByContainer = "by (namespace, pod, container) ";
const std::string kOnContainer = " on (namespace, pod, container) ";

// Whether a selector reads series of single containers (which the exclusions apply to) or of
// pods.
enum class Per { kContainer, kPod };

// `metric{m1,m2,...,X,N}`: the given matchers, then for a per-container series the container
// exclusion X (if q has exclusions), then the namespace matcher N (if q has a namespace).
std::string selector(std::string_view metric, const QueryScope& q, Per per,
                     std::initializer_list<std::string_view> matchers = {}) {
  std::string out(metric);
  out += '{';
  bool first = true;
  const auto add = [&](std::string_view m) {
    if (!first) out += ',';
    out += m;
    first = false;
  };
  for (auto m : matchers) add(m);
  if (per == Per::kContainer && !q.excludedContainers.empty()) {
    add(containerExclusion(q.excludedContainers));
  }
  if (q.ns) add("namespace=\"" + escapeLabelValue(*q.ns) + "\"");
  out += '}';
  return out;
}

// cAdvisor series of real containers (not the pod sandbox "POD", not the pod cgroup "").
std::string cadvisor(std::string_view metric, const QueryScope& q) {
  return selector(metric, q, Per::kContainer, {R"(container!="")", R"(container!="POD")"});
}

std::string sumRate(std::string_view metric, const QueryScope& q, Duration window) {
  return "sum " + kByContainer + "(rate(" + cadvisor(metric, q) + "[" + windowText(window) + "]))";
}

}  // namespace

std::string escapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string windowText(Duration window) {
  const auto seconds = std::chrono::ceil<std::chrono::seconds>(window).count();
  return std::to_string(std::max<std::int64_t>(seconds, 1)) + "s";
}

std::string escapeRegex(std::string_view literal) {
  constexpr std::string_view kSpecial = R"(\.+*?()|[]{}^$)";
  std::string out;
  out.reserve(literal.size());
  for (char c : literal) {
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

std::vector<QueryScope> queryScopesOf(const Scope& scope) {
  std::vector<std::string> excluded;
  for (const auto& name : scope.excludedContainers) {
    if (!name.empty()) excluded.push_back(name);
  }
  std::ranges::sort(excluded);
  excluded.erase(std::unique(excluded.begin(), excluded.end()), excluded.end());
  if (scope.allNamespaces()) return {QueryScope{std::nullopt, std::move(excluded)}};
  std::vector<std::string> names = scope.namespaces;
  std::ranges::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::vector<QueryScope> out;
  out.reserve(names.size());
  for (auto& name : names) out.push_back(QueryScope{std::move(name), excluded});
  return out;
}

std::string containerExclusion(const std::vector<std::string>& excluded) {
  if (excluded.empty()) return {};
  std::string alternatives;
  for (const auto& name : excluded) {
    if (&name != &excluded.front()) alternatives += '|';
    alternatives += escapeRegex(name);
  }
  return "container!~\"" + escapeLabelValue("^(" + alternatives + ")$") + "\"";
}

std::string cpuUsage(const QueryScope& q, Duration window) {
  return sumRate("container_cpu_usage_seconds_total", q, window);
}

std::string cpuPressureWaiting(const QueryScope& q, Duration window) {
  return sumRate("container_pressure_cpu_waiting_seconds_total", q, window);
}

std::string memoryWorkingSet(const QueryScope& q) {
  return "max " + kByContainer + "(" + cadvisor("container_memory_working_set_bytes", q) + ")";
}

std::string cpuThrottleRatio(const QueryScope& q, Duration window) {
  return sumRate("container_cpu_cfs_throttled_periods_total", q, window) + " / " +
         sumRate("container_cpu_cfs_periods_total", q, window);
}

std::string oomKills(const QueryScope& q, Duration step) {
  const std::string w = "[" + windowText(step) + "]";
  const std::string memory = cadvisor("container_memory_working_set_bytes", q);
  const std::string oomReason = selector("kube_pod_container_status_last_terminated_reason", q,
                                         Per::kContainer, {R"(reason="OOMKilled")"});
  const std::string restarts =
      selector("kube_pod_container_status_restarts_total", q, Per::kContainer);
  return "max " + kByContainer + "(max_over_time(" + memory + w + ")) and" + kOnContainer +
         "(max " + kByContainer + "(" + oomReason + ") > 0) and" + kOnContainer + "(max " +
         kByContainer + "(increase(" + restarts + w + ")) > 0)";
}

std::string restartCounts(const QueryScope& q) {
  return "max " + kByContainer + "(" +
         selector("kube_pod_container_status_restarts_total", q, Per::kContainer) + ")";
}

std::string resources(const QueryScope& q) {
  return "max by (__name__, namespace, pod, container, resource) (" +
         selector("", q, Per::kContainer,
                  {R"(__name__=~"kube_pod_container_resource_requests|)"
                   R"(kube_pod_container_resource_limits")",
                   R"(resource=~"cpu|memory")"}) +
         ")";
}

std::string owners(const QueryScope& q) {
  return "max by (__name__, namespace, pod, replicaset, job_name, owner_kind, owner_name, "
         "owner_is_controller) (" +
         selector("", q, Per::kPod,
                  {R"(__name__=~"kube_pod_owner|kube_replicaset_owner|kube_job_owner")"}) +
         ")";
}

std::string nodeLoad() { return "max by (node, instance) (node_load1)"; }

std::string nodeCapacity() {
  return R"(max by (node, resource) (kube_node_status_capacity{resource=~"cpu|memory"}))";
}

}  // namespace attune::metrics::promql
