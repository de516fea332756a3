// The recreate fallback (updateStrategy.resizeMethod: InPlaceOrRecreate), end to end on the
// simulated cluster: a node too full for a resize leaves it Deferred; after five minutes the pod
// is evicted through the Eviction API and its Deployment recreates it. Never the only running
// pod of a workload unless the workload opts in; never under InPlaceOnly.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// One 2-core node. `filler` (not targeted) requests `fillerCpu`; `web` requests 300m per pod
// and uses 400m, so the recommendation (600m) does not fit next to the filler: the kubelet
// defers the resize.
std::string crowdedNode(int replicas, std::string_view fillerCpu, std::string_view resizeMethod,
                        std::string_view webExtra = {}, std::string_view extra = {}) {
  return scenarioYaml(
      workloadYaml({.name = "filler",
                    .requests = "{cpu: " + std::string(fillerCpu) + ", memory: 256Mi}",
                    .limits = "",
                    .model = "{kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}"}) +
          workloadYaml({.name = "web",
                        .replicas = replicas,
                        .requests = "{cpu: 300m, memory: 256Mi}",
                        .limits = "",
                        .model = "{kind: steady, cpuCores: 400m, memoryBytes: 170Mi, noise: 0}",
                        .workloadExtra = std::string(webExtra)}),
      policyYaml(
          {.name = "web",
           .target = "web",
           .updateStrategy = "{type: Auto, resizeMethod: " + std::string(resizeMethod) + "}"}),
      extra, "{name: node, count: 1, cpu: \"2\", memory: 8Gi}");
}

bool deferred(const api::Pod& pod) {
  const api::Condition* c = api::findCondition(pod.status.conditions, api::kPodResizePending);
  return c != nullptr && c->reason == "Deferred";
}

std::vector<std::string> names(const std::vector<api::Pod>& pods) {
  std::vector<std::string> out;
  for (const api::Pod& p : pods) out.push_back(p.metadata.name);
  return out;
}

TEST(RecreateFallbackTest, ADeferredResizeIsRecreatedAfterFiveMinutes) {
  ScenarioHarness h(crowdedNode(2, "1200m", "InPlaceOrRecreate"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 30min));
  const ActionRecord resized = h.actions(Kind::kResized).front();
  h.runMinutes(2);
  const std::vector<api::Pod> before = h.pods("apps", "web");
  const auto stuck = std::find_if(before.begin(), before.end(), [&](const api::Pod& p) {
    return p.metadata.name == resized.pod;
  });
  ASSERT_NE(stuck, before.end());
  EXPECT_TRUE(deferred(*stuck)) << "the node has no room for the resize";
  EXPECT_TRUE(h.actions(Kind::kEvicted).empty()) << "not before the Deferred timeout";

  h.runMinutes(15);
  const auto evicted = h.actions(Kind::kEvicted);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].pod, resized.pod);
  EXPECT_EQ(evicted[0].reason, "deferred-timeout");
  EXPECT_GE(evicted[0].time - resized.time, 5min);
  EXPECT_LE(evicted[0].time - resized.time, 8min);

  // Recreated by the Deployment from its template; nothing left deferred.
  const std::vector<api::Pod> after = h.pods("apps", "web");
  ASSERT_EQ(after.size(), 2u);
  const auto afterNames = names(after);
  EXPECT_EQ(std::count(afterNames.begin(), afterNames.end(), resized.pod), 0);
  for (const api::Pod& p : after) EXPECT_FALSE(deferred(p)) << p.metadata.name;

  const api::AttunePolicy policy = h.policy("apps", "web");
  const auto entries = history(policy, api::ResizeResult::kEvicted, "deferred-timeout");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].pod, resized.pod);
  EXPECT_EQ(entries[0].method, api::ResizeMethod::kEviction);
  const auto events = h.events("Evicted");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_NE(events[0].message.find("InPlaceOrRecreate"), std::string::npos) << events[0].message;
  EXPECT_EQ(h.metric("attune_eviction_total{namespace=\"apps\",workload=\"web\",result=\"success\","
                     "cause=\"deferred-timeout\"}"),
            1.0)
      << h.metricsText();
}

TEST(RecreateFallbackTest, InPlaceOnlyLeavesTheDeferredPodAlone) {
  ScenarioHarness h(crowdedNode(2, "1200m", "InPlaceOnly"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 30min));
  const std::string pod = h.actions(Kind::kResized).front().pod;
  h.runMinutes(20);
  EXPECT_TRUE(h.actions(Kind::kEvicted).empty());
  const auto now = names(h.pods("apps", "web"));
  EXPECT_EQ(std::count(now.begin(), now.end(), pod), 1);
  EXPECT_TRUE(h.events("Evicted").empty());
  const auto policy = h.policy("apps", "web");  // kept alive while its condition is read
  const api::Condition* blocked = condition(policy, "ResizeBlocked");
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->reason, "PodsDeferred");
}

// A PodDisruptionBudget that allows no disruption refuses the eviction: the pod stays (Deferred),
// an EvictionBlocked Warning and a Failed Eviction history entry say so, and it is tried again.
TEST(RecreateFallbackTest, APodDisruptionBudgetKeepsThePod) {
  ScenarioHarness h(crowdedNode(2, "1200m", "InPlaceOrRecreate", {},
                                "  podDisruptionBudgets:\n  - namespace: apps\n    name: web\n"
                                "    minAvailable: 2\n"
                                "    selector: {matchLabels: {app.kubernetes.io/name: web}}\n"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 30min));
  const std::string pod = h.actions(Kind::kResized).front().pod;
  h.runMinutes(15);
  EXPECT_TRUE(h.actions(Kind::kEvicted).empty());
  const auto now = names(h.pods("apps", "web"));
  EXPECT_EQ(std::count(now.begin(), now.end(), pod), 1);
  EXPECT_TRUE(h.events("Evicted").empty());
  const auto blocked = h.events("EvictionBlocked");
  ASSERT_FALSE(blocked.empty());
  EXPECT_NE(blocked[0].message.find(pod), std::string::npos) << blocked[0].message;
  const auto failed =
      history(h.policy("apps", "web"), api::ResizeResult::kFailed, "deferred-timeout");
  ASSERT_FALSE(failed.empty());
  EXPECT_EQ(failed[0].method, api::ResizeMethod::kEviction);
}

// The only pod of a workload is not evicted (EvictionBlocked says why) unless the workload is
// annotated attune.io/recreate-single-replica: "true".
TEST(RecreateFallbackTest, TheOnlyRunningPodNeedsTheWorkloadsOptIn) {
  ScenarioHarness h(crowdedNode(1, "1500m", "InPlaceOrRecreate"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(25);
  ASSERT_FALSE(h.actions(Kind::kResized).empty());
  EXPECT_TRUE(h.actions(Kind::kEvicted).empty());
  EXPECT_TRUE(deferred(h.pod("apps", "web")));
  const auto blocked = h.events("EvictionBlocked");
  ASSERT_FALSE(blocked.empty());
  EXPECT_NE(blocked[0].message.find("only running pod"), std::string::npos) << blocked[0].message;

  ScenarioHarness optedIn(
      crowdedNode(1, "1500m", "InPlaceOrRecreate",
                  "    annotations: {attune.io/recreate-single-replica: \"true\"}\n"));
  ASSERT_TRUE(optedIn.usable());
  optedIn.runMinutes(25);
  const auto evicted = optedIn.actions(Kind::kEvicted);
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].reason, "deferred-timeout");
  EXPECT_NE(optedIn.pod("apps", "web").metadata.name, evicted[0].pod);
}

}  // namespace
}  // namespace attune::controller::testing
