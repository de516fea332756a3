#include "metrics/prometheus/promql.h"

#include <gtest/gtest.h>

namespace attune::metrics::promql {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const QueryScope kShop{"shop", {}};
const QueryScope kAll{std::nullopt, {}};
// "shop" without istio-proxy and linkerd-proxy.
const QueryScope kShopNoProxies{"shop", {"istio-proxy", "linkerd-proxy"}};
const std::string kNoProxies = R"(container!~"^(istio-proxy|linkerd-proxy)$")";

TEST(Promql, EscapesLabelValues) {
  EXPECT_EQ(escapeLabelValue("plain-ns"), "plain-ns");
  EXPECT_EQ(escapeLabelValue(R"(a"b\c)"), R"(a\"b\\c)");
  EXPECT_EQ(escapeLabelValue("a\nb"), R"(a\nb)");
}

TEST(Promql, WindowIsWholeSecondsRoundedUp) {
  EXPECT_EQ(windowText(minutes(5)), "300s");
  EXPECT_EQ(windowText(std::chrono::milliseconds(1500)), "2s");
  EXPECT_EQ(windowText(Duration::zero()), "1s");
}

using Flat = std::vector<std::pair<std::optional<std::string>, std::vector<std::string>>>;

// The namespace and the exclusions of each query, for comparisons.
Flat flat(const std::vector<QueryScope>& scopes) {
  Flat out;
  for (const auto& q : scopes) out.emplace_back(q.ns, q.excludedContainers);
  return out;
}

TEST(Promql, QueryScopesOfScope) {
  EXPECT_EQ(flat(queryScopesOf(Scope{})), (Flat{{std::nullopt, {}}}));
  EXPECT_EQ(flat(queryScopesOf(Scope{{"b", "a", "b"}, {}})), (Flat{{"a", {}}, {"b", {}}}));
  // Exclusions are sorted, deduplicated, without empty names, and the same for every namespace.
  EXPECT_EQ(flat(queryScopesOf(Scope{{"b", "a"}, {"z", "", "istio-proxy", "z"}})),
            (Flat{{"a", {"istio-proxy", "z"}}, {"b", {"istio-proxy", "z"}}}));
  EXPECT_EQ(flat(queryScopesOf(Scope{{}, {"z"}})), (Flat{{std::nullopt, {"z"}}}));
}

TEST(Promql, EscapesRegexMetacharacters) {
  EXPECT_EQ(escapeRegex("istio-proxy"), "istio-proxy");
  EXPECT_EQ(escapeRegex("a.b"), R"(a\.b)");
  EXPECT_EQ(escapeRegex(R"(\.+*?()|[]{}^$)"), R"(\\\.\+\*\?\(\)\|\[\]\{\}\^\$)");
}

TEST(Promql, ContainerExclusionMatcher) {
  EXPECT_EQ(containerExclusion({}), "");
  EXPECT_EQ(containerExclusion({"istio-proxy"}), R"(container!~"^(istio-proxy)$")");
  // The regex escape's backslash is itself escaped inside the PromQL string.
  EXPECT_EQ(containerExclusion({"a.b", "c"}), R"(container!~"^(a\\.b|c)$")");
  EXPECT_EQ(containerExclusion({R"(q"x)"}), R"(container!~"^(q\"x)$")");
}

TEST(Promql, CpuUsage) {
  EXPECT_EQ(cpuUsage(kShop, minutes(5)),
            R"(sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{)"
            R"(container!="",container!="POD",namespace="shop"}[300s])))");
  EXPECT_EQ(cpuUsage(kAll, minutes(2)),
            R"(sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{)"
            R"(container!="",container!="POD"}[120s])))");
}

TEST(Promql, NamespaceValueIsEscaped) {
  EXPECT_NE(
      cpuUsage(QueryScope{R"(x"}or{a="1)", {}}, minutes(5)).find(R"(namespace="x\"}or{a=\"1")"),
      std::string::npos);
}

TEST(Promql, CpuPressureWaiting) {
  EXPECT_EQ(cpuPressureWaiting(kShop, minutes(5)),
            R"(sum by (namespace, pod, container) (rate()"
            R"(container_pressure_cpu_waiting_seconds_total{container!="",container!="POD",)"
            R"(namespace="shop"}[300s])))");
}

TEST(Promql, MemoryWorkingSet) {
  EXPECT_EQ(memoryWorkingSet(kShop),
            R"(max by (namespace, pod, container) (container_memory_working_set_bytes{)"
            R"(container!="",container!="POD",namespace="shop"}))");
}

TEST(Promql, CpuThrottleRatio) {
  EXPECT_EQ(cpuThrottleRatio(kShop, minutes(5)),
            R"(sum by (namespace, pod, container) (rate()"
            R"(container_cpu_cfs_throttled_periods_total{container!="",container!="POD",)"
            R"(namespace="shop"}[300s])) / sum by (namespace, pod, container) (rate()"
            R"(container_cpu_cfs_periods_total{container!="",container!="POD",)"
            R"(namespace="shop"}[300s])))");
}

TEST(Promql, OomKills) {
  EXPECT_EQ(oomKills(kShop, minutes(5)),
            R"(max by (namespace, pod, container) (max_over_time()"
            R"(container_memory_working_set_bytes{container!="",container!="POD",)"
            R"(namespace="shop"}[300s])) and on (namespace, pod, container) )"
            R"((max by (namespace, pod, container) ()"
            R"(kube_pod_container_status_last_terminated_reason{reason="OOMKilled",)"
            R"(namespace="shop"}) > 0) and on (namespace, pod, container) )"
            R"((max by (namespace, pod, container) (increase()"
            R"(kube_pod_container_status_restarts_total{namespace="shop"}[300s])) > 0))");
}

TEST(Promql, KubeStateMetrics) {
  EXPECT_EQ(restartCounts(kShop),
            R"(max by (namespace, pod, container) )"
            R"((kube_pod_container_status_restarts_total{namespace="shop"}))");
  EXPECT_EQ(resources(kShop),
            R"(max by (__name__, namespace, pod, container, resource) ({__name__=~")"
            R"(kube_pod_container_resource_requests|kube_pod_container_resource_limits",)"
            R"(resource=~"cpu|memory",namespace="shop"}))");
  EXPECT_EQ(owners(kAll),
            R"(max by (__name__, namespace, pod, replicaset, job_name, owner_kind, owner_name, )"
            R"(owner_is_controller) ({__name__=~"kube_pod_owner|kube_replicaset_owner|)"
            R"(kube_job_owner"}))");
}

TEST(Promql, ExcludedContainersAreLeftOutOfEveryPerContainerSelector) {
  const std::string c = R"(container!="",container!="POD",)" + kNoProxies;
  EXPECT_EQ(cpuUsage(kShopNoProxies, minutes(5)),
            R"(sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{)" + c +
                R"(,namespace="shop"}[300s])))");
  EXPECT_EQ(cpuUsage(QueryScope{std::nullopt, {"istio-proxy", "linkerd-proxy"}}, minutes(2)),
            R"(sum by (namespace, pod, container) (rate(container_cpu_usage_seconds_total{)" + c +
                R"(}[120s])))");
  EXPECT_EQ(cpuPressureWaiting(kShopNoProxies, minutes(5)),
            R"(sum by (namespace, pod, container) (rate()"
            R"(container_pressure_cpu_waiting_seconds_total{)" +
                c + R"(,namespace="shop"}[300s])))");
  EXPECT_EQ(memoryWorkingSet(kShopNoProxies),
            R"(max by (namespace, pod, container) (container_memory_working_set_bytes{)" + c +
                R"(,namespace="shop"}))");
  EXPECT_EQ(cpuThrottleRatio(kShopNoProxies, minutes(5)),
            R"(sum by (namespace, pod, container) (rate()"
            R"(container_cpu_cfs_throttled_periods_total{)" +
                c +
                R"(,namespace="shop"}[300s])) / sum by (namespace, pod, container) (rate()"
                R"(container_cpu_cfs_periods_total{)" +
                c + R"(,namespace="shop"}[300s])))");
  EXPECT_EQ(oomKills(kShopNoProxies, minutes(5)),
            R"(max by (namespace, pod, container) (max_over_time()"
            R"(container_memory_working_set_bytes{)" +
                c +
                R"(,namespace="shop"}[300s])) and on (namespace, pod, container) )"
                R"((max by (namespace, pod, container) ()"
                R"(kube_pod_container_status_last_terminated_reason{reason="OOMKilled",)" +
                kNoProxies +
                R"(,namespace="shop"}) > 0) and on (namespace, pod, container) )"
                R"((max by (namespace, pod, container) (increase()"
                R"(kube_pod_container_status_restarts_total{)" +
                kNoProxies + R"(,namespace="shop"}[300s])) > 0))");
  EXPECT_EQ(restartCounts(kShopNoProxies), R"(max by (namespace, pod, container) )"
                                           R"((kube_pod_container_status_restarts_total{)" +
                                               kNoProxies + R"(,namespace="shop"}))");
  EXPECT_EQ(resources(kShopNoProxies),
            R"(max by (__name__, namespace, pod, container, resource) ({__name__=~")"
            R"(kube_pod_container_resource_requests|kube_pod_container_resource_limits",)"
            R"(resource=~"cpu|memory",)" +
                kNoProxies + R"(,namespace="shop"}))");
}

TEST(Promql, OwnersArePerPodAndIgnoreExclusions) {
  EXPECT_EQ(owners(kShopNoProxies), owners(kShop));
  EXPECT_EQ(owners(kShop),
            R"(max by (__name__, namespace, pod, replicaset, job_name, owner_kind, owner_name, )"
            R"(owner_is_controller) ({__name__=~"kube_pod_owner|kube_replicaset_owner|)"
            R"(kube_job_owner",namespace="shop"}))");
}

TEST(Promql, Nodes) {
  EXPECT_EQ(nodeLoad(), "max by (node, instance) (node_load1)");
  EXPECT_EQ(nodeCapacity(),
            R"(max by (node, resource) (kube_node_status_capacity{resource=~"cpu|memory"}))");
}

}  // namespace
}  // namespace attune::metrics::promql
