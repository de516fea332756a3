#include "metrics/prometheus/promql.h"

#include <gtest/gtest.h>

namespace attune::metrics::promql {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const std::optional<std::string> kShop = "shop";
const std::optional<std::string> kAll = std::nullopt;

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

TEST(Promql, NamespacesOfScope) {
  EXPECT_EQ(namespacesOf(Scope{}), (std::vector<std::optional<std::string>>{std::nullopt}));
  EXPECT_EQ(namespacesOf(Scope{{"b", "a", "b"}}),
            (std::vector<std::optional<std::string>>{"a", "b"}));
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
  EXPECT_NE(cpuUsage(std::optional<std::string>(R"(x"}or{a="1)"), minutes(5))
                .find(R"(namespace="x\"}or{a=\"1")"),
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

TEST(Promql, Nodes) {
  EXPECT_EQ(nodeLoad(), "max by (node, instance) (node_load1)");
  EXPECT_EQ(nodeCapacity(),
            R"(max by (node, resource) (kube_node_status_capacity{resource=~"cpu|memory"}))");
}

}  // namespace
}  // namespace attune::metrics::promql
