#include "metrics/prometheus/promql.h"

#include <algorithm>
#include <initializer_list>

namespace attune::metrics::promql {
namespace {

const std::string kByContainer = "by (namespace, pod, container) ";
const std::string kOnContainer = " on (namespace, pod, container) ";

// `metric{m1,m2,...}` with the namespace matcher (if any) last; empty matchers are skipped.
std::string selector(std::string_view metric, const std::optional<std::string>& ns,
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
  if (ns) add("namespace=\"" + escapeLabelValue(*ns) + "\"");
  out += '}';
  return out;
}

// cAdvisor series of real containers (not the pod sandbox "POD", not the pod cgroup "").
std::string cadvisor(std::string_view metric, const std::optional<std::string>& ns) {
  return selector(metric, ns, {R"(container!="")", R"(container!="POD")"});
}

std::string sumRate(std::string_view metric, const std::optional<std::string>& ns,
                    Duration window) {
  return "sum " + kByContainer + "(rate(" + cadvisor(metric, ns) + "[" + windowText(window) + "]))";
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

std::vector<std::optional<std::string>> namespacesOf(const Scope& scope) {
  if (scope.allNamespaces()) return {std::nullopt};
  std::vector<std::string> names = scope.namespaces;
  std::ranges::sort(names);
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return {names.begin(), names.end()};
}

std::string cpuUsage(const std::optional<std::string>& ns, Duration window) {
  return sumRate("container_cpu_usage_seconds_total", ns, window);
}

std::string cpuPressureWaiting(const std::optional<std::string>& ns, Duration window) {
  return sumRate("container_pressure_cpu_waiting_seconds_total", ns, window);
}

std::string memoryWorkingSet(const std::optional<std::string>& ns) {
  return "max " + kByContainer + "(" + cadvisor("container_memory_working_set_bytes", ns) + ")";
}

std::string cpuThrottleRatio(const std::optional<std::string>& ns, Duration window) {
  return sumRate("container_cpu_cfs_throttled_periods_total", ns, window) + " / " +
         sumRate("container_cpu_cfs_periods_total", ns, window);
}

std::string oomKills(const std::optional<std::string>& ns, Duration step) {
  const std::string w = "[" + windowText(step) + "]";
  const std::string memory = cadvisor("container_memory_working_set_bytes", ns);
  const std::string oomReason =
      selector("kube_pod_container_status_last_terminated_reason", ns, {R"(reason="OOMKilled")"});
  const std::string restarts = selector("kube_pod_container_status_restarts_total", ns);
  return "max " + kByContainer + "(max_over_time(" + memory + w + ")) and" + kOnContainer +
         "(max " + kByContainer + "(" + oomReason + ") > 0) and" + kOnContainer + "(max " +
         kByContainer + "(increase(" + restarts + w + ")) > 0)";
}

std::string restartCounts(const std::optional<std::string>& ns) {
  return "max " + kByContainer + "(" + selector("kube_pod_container_status_restarts_total", ns) +
         ")";
}

std::string resources(const std::optional<std::string>& ns) {
  return "max by (__name__, namespace, pod, container, resource) (" +
         selector("", ns,
                  {R"(__name__=~"kube_pod_container_resource_requests|)"
                   R"(kube_pod_container_resource_limits")",
                   R"(resource=~"cpu|memory")"}) +
         ")";
}

std::string owners(const std::optional<std::string>& ns) {
  return "max by (__name__, namespace, pod, replicaset, job_name, owner_kind, owner_name, "
         "owner_is_controller) (" +
         selector("", ns, {R"(__name__=~"kube_pod_owner|kube_replicaset_owner|kube_job_owner")"}) +
         ")";
}

std::string nodeLoad() { return "max by (node, instance) (node_load1)"; }

std::string nodeCapacity() {
  return R"(max by (node, resource) (kube_node_status_capacity{resource=~"cpu|memory"}))";
}

}  // namespace attune::metrics::promql
