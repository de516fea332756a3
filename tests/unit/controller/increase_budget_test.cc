// maxTotalCpuIncrease / maxTotalMemoryIncrease end to end: the requests one pass adds never
// exceed the budget; the pods left over are skipped with reason IncreaseBudget (event, history)
// and resized by a later pass; decreases take nothing.
#include <gtest/gtest.h>

#include <map>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// Three pods requesting 160m / 160Mi and using 200m / 200Mi: each grows to about 300m / 300Mi
// in one resize (RequestsOnly: the limits stay), about +140m and +140Mi per pod.
std::string growingScenario(std::string_view budget) {
  return scenarioYaml(
      workloadYaml({.name = "api",
                    .replicas = 3,
                    .requests = "{cpu: 160m, memory: 160Mi}",
                    .limits = "{cpu: \"1\", memory: 1Gi}",
                    .model = "{kind: steady, cpuCores: 200m, memoryBytes: 200Mi, noise: 0}"}),
      policyYaml(
          {.name = "api",
           .target = "api",
           .updateStrategy = "{type: Auto, maxConcurrentResizes: 10, " + std::string(budget) + "}",
           .controlledValues = "RequestsOnly"}));
}

// The number of resizes per pass (by resize time).
std::map<Time, int> resizesByTime(ScenarioHarness& h) {
  std::map<Time, int> out;
  for (const ActionRecord& r : h.actions(Kind::kResized)) ++out[r.time];
  return out;
}

TEST(IncreaseBudgetTest, APassAddsNoMoreCpuThanTheBudgetAndTheRestFollowLater) {
  ScenarioHarness h(growingScenario("maxTotalCpuIncrease: 300m"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() >= 3; }, 30min));
  const std::map<Time, int> passes = resizesByTime(h);
  ASSERT_EQ(passes.size(), 2u) << "two pods in the first pass, the third in a later one";
  EXPECT_EQ(passes.begin()->second, 2);
  EXPECT_EQ(std::next(passes.begin())->second, 1);
  const Time first = passes.begin()->first;
  EXPECT_LE(std::next(passes.begin())->first - first, 2min) << "the next pass, not a cooldown";

  h.runMinutes(1);
  for (const api::Pod& pod : h.pods("apps", "api")) {
    EXPECT_TRUE(near(specResources(pod, "app").cpuRequest, 300_m)) << pod.metadata.name;
  }
  const api::AttunePolicy p = h.policy("apps", "api");
  const auto waited = history(p, api::ResizeResult::kSkipped, "IncreaseBudget");
  ASSERT_EQ(waited.size(), 1u);
  EXPECT_EQ(waited[0].timestamp, first);
  const auto events = h.events("ResizeSkipped");
  ASSERT_FALSE(events.empty());
  EXPECT_NE(events[0].message.find("maxTotalCpuIncrease 300m"), std::string::npos)
      << events[0].message;
  EXPECT_EQ(
      h.metric(
          R"(attune_resize_skipped_total{namespace="apps",workload="api",reason="IncreaseBudget"})"),
      1.0);
}

TEST(IncreaseBudgetTest, AMemoryBudgetLimitsMemoryIncreasesTheSameWay) {
  // About +140Mi per pod: 200Mi of budget holds one pod per pass.
  ScenarioHarness h(growingScenario("maxTotalMemoryIncrease: 200Mi"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() >= 3; }, 30min));
  for (const auto& [time, count] : resizesByTime(h)) EXPECT_EQ(count, 1) << formatRfc3339(time);
  EXPECT_FALSE(
      history(h.policy("apps", "api"), api::ResizeResult::kSkipped, "IncreaseBudget").empty());
}

TEST(IncreaseBudgetTest, DecreasesTakeNothingFromTheBudget) {
  // Three pods shrinking from 500m to about 300m under a zero budget: all in one pass.
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web", .replicas = 3}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy = "{type: Auto, maxConcurrentResizes: 10, maxTotalCpuIncrease: "
                                    "\"0\", maxTotalMemoryIncrease: \"0\"}"})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() >= 3; }, 30min));
  EXPECT_EQ(resizesByTime(h).size(), 1u);
  EXPECT_TRUE(
      history(h.policy("apps", "web"), api::ResizeResult::kSkipped, "IncreaseBudget").empty());
}

}  // namespace
}  // namespace attune::controller::testing
