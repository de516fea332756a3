// Cooldown end to end: the attune.io/last-resize-time annotation, the exponential backoff after
// consecutive reverts, and the Degraded condition.
#include <gtest/gtest.h>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

const std::string kResizedAtStart =
    "    annotations: {attune.io/last-resize-time: \"" + std::string(kStart) + "\"}\n";

std::vector<Time> timesOf(const std::vector<ActionRecord>& actions) {
  std::vector<Time> out;
  for (const ActionRecord& a : actions) out.push_back(a.time);
  return out;
}

TEST(CooldownTest, TheLastResizeTimeAnnotationHoldsResizesBackUntilTheCooldownPasses) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web", .workloadExtra = kResizedAtStart}),
      policyYaml(
          {.name = "web", .target = "web", .updateStrategy = "{type: Auto, cooldown: 45m}"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(44);
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  const api::AttunePolicy waiting = h.policy("apps", "web");
  ASSERT_FALSE(waiting.status.recommendations.empty()) << "a recommendation exists meanwhile";
  EXPECT_EQ(history(waiting, api::ResizeResult::kSkipped, "Cooldown").size(), 1u)
      << "one history entry for a skip repeated every pass";
  const auto skipped = h.events("ResizeSkipped");
  ASSERT_FALSE(skipped.empty());
  EXPECT_EQ(skipped[0].type, "Warning");
  EXPECT_NE(skipped[0].message.find("Cooldown"), std::string::npos) << skipped[0].message;
  EXPECT_EQ(specResources(h.pod("apps", "web"), "app").cpuRequest, 500_m);

  h.runMinutes(2);
  ASSERT_EQ(h.actions(Kind::kResized).size(), 1u);
  EXPECT_EQ(h.actions(Kind::kResized)[0].time, h.sim().scenario().start + 45min);
  EXPECT_TRUE(near(specResources(h.pod("apps", "web"), "app").cpuRequest, 300_m));
}

// Memory capped at 200Mi for a container using 300Mi: every resize is OOM-killed (the memory
// resize restarts the container under the new limit) and reverted.
std::string alwaysRevertedScenario(int replicas, std::string_view updateStrategy,
                                   std::string_view workloadExtra = {}) {
  return scenarioYaml(
      workloadYaml({.name = "hungry",
                    .replicas = replicas,
                    .requests = "{memory: 512Mi}",
                    .limits = "{memory: 512Mi}",
                    .model = "{kind: steady, cpuCores: 100m, memoryBytes: 300Mi, noise: 0}",
                    .containerExtra = "      resizePolicy: [{resourceName: memory, "
                                      "restartPolicy: RestartContainer}]\n",
                    .workloadExtra = std::string(workloadExtra)}),
      policyYaml({.name = "hungry",
                  .target = "hungry",
                  .updateStrategy = std::string(updateStrategy),
                  .memory = "maxAllowed: 200Mi",
                  .minimumDataPoints = 2}));
}

TEST(CooldownTest, ConsecutiveRevertsDoubleTheCooldownUpToSixteenTimes) {
  ScenarioHarness h(alwaysRevertedScenario(1, "{type: Auto, cooldown: 5m}", kResizedAtStart));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() >= 6; }, 6h));
  const std::vector<Time> resized = timesOf(h.actions(Kind::kResized));
  const std::vector<Time> reverted = timesOf(h.actions(Kind::kReverted));
  ASSERT_GE(reverted.size(), 5u);
  for (const ActionRecord& r : h.actions(Kind::kReverted)) EXPECT_EQ(r.reason, "oomkill");

  // 1x after the annotated resize, then 2x, 4x, 8x, 16x, 16x after each consecutive revert.
  EXPECT_EQ(resized[0] - h.sim().scenario().start, 5min);
  const std::vector<int> multipliers{2, 4, 8, 16, 16};
  for (std::size_t k = 0; k < multipliers.size(); ++k) {
    EXPECT_LT(resized[k], reverted[k]);
    EXPECT_EQ(resized[k + 1] - reverted[k], 5min * multipliers[k]) << "wait after revert " << k + 1;
  }
  const api::Deployment* d = h.sim().state().deployments.find("apps", "hungry");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->metadata.annotations.at("attune.io/consecutive-reverts"), "5");
  // status.cooldown follows the workload's backoff.
  const api::AttunePolicy p = h.policy("apps", "hungry");
  ASSERT_TRUE(p.status.cooldown.has_value());
  EXPECT_EQ(p.status.cooldown->consecutiveReverts, 5);
  EXPECT_EQ(p.status.cooldown->backoffMultiplier, 16);
  EXPECT_EQ(p.status.cooldown->effectiveCooldown, "1h20m");
}

TEST(CooldownTest, DegradedWhenThreeOfTheLastFiveResizesAreRevertedAndClearedAfter) {
  ScenarioHarness h(alwaysRevertedScenario(3, "{type: Auto, cooldown: 1m}"));
  ASSERT_TRUE(h.usable());
  const auto degraded = [&] {
    const api::AttunePolicy p = h.policy("apps", "hungry");
    const api::Condition* c = condition(p, api::kConditionDegraded);
    return c != nullptr && c->isTrue();
  };
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kReverted).size() >= 2; }, 2h));
  EXPECT_FALSE(degraded()) << "2 reverts are not enough";
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kReverted).size() >= 3; }, 2h));
  ASSERT_TRUE(degraded());
  const api::AttunePolicy p = h.policy("apps", "hungry");
  EXPECT_EQ(condition(p, api::kConditionDegraded)->reason, "HighRevertRate");
  EXPECT_EQ(p.status.consecutiveReverts, 3);

  // Fix the policy: the next resizes stick, and the condition goes once only 2 of the last 5
  // resizes were reverted.
  api::AttunePolicy fixed = p;
  fixed.spec.memory.maxAllowed = 1_Gi;
  ASSERT_TRUE(h.sim().api().updateAttunePolicy(fixed).has_value());
  ASSERT_TRUE(h.runUntil([&] { return !degraded(); }, 3h));
  const api::AttunePolicy after = h.policy("apps", "hungry");
  EXPECT_EQ(condition(after, api::kConditionDegraded), nullptr);
  EXPECT_EQ(history(after, api::ResizeResult::kReverted).size(), 3u);
  EXPECT_EQ(history(after, api::ResizeResult::kSuccess).size(), 3u);
  EXPECT_EQ(h.actions(Kind::kReverted).size(), 3u);
}

// Pod A is reverted in the same pass in which pod B becomes eligible: the revert's cooldown holds
// B back, although A (as the pass began) ran the target with no revert recorded yet.
TEST(CooldownTest, ARevertHoldsBackTheOtherPodsOfTheWorkloadInTheSamePass) {
  ScenarioHarness h(
      alwaysRevertedScenario(2, "{type: Auto, cooldown: 5m, maxConcurrentResizes: 2}"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const std::vector<api::Pod> pods = h.pods("apps", "hungry");
  ASSERT_EQ(pods.size(), 2u);
  const std::string held = pods[1].metadata.name;
  ASSERT_TRUE(h.sim()
                  .api()
                  .patchPodAnnotations("apps", held, {{"attune.io/skip", "true"}}, "")
                  .has_value());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 20min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  h.runMinutes(1);
  ASSERT_TRUE(h.actions(Kind::kReverted).empty());
  ASSERT_TRUE(h.sim()
                  .api()
                  .patchPodAnnotations("apps", held, {{"attune.io/skip", std::nullopt}}, "")
                  .has_value());
  h.runMinutes(1);
  ASSERT_EQ(h.actions(Kind::kReverted).size(), 1u);
  ASSERT_EQ(h.actions(Kind::kReverted)[0].time, resizedAt + 2min) << "the pass this test is about";
  h.runMinutes(5);

  EXPECT_EQ(h.actions(Kind::kResized).size(), 1u);
  for (const api::Pod& pod : h.pods("apps", "hungry")) {
    if (pod.metadata.name == held) {
      EXPECT_EQ(specResources(pod, "app").memoryRequest, 512_Mi);
    }
  }
  EXPECT_FALSE(
      history(h.policy("apps", "hungry"), api::ResizeResult::kSkipped, "Cooldown").empty());
}

}  // namespace
}  // namespace attune::controller::testing
