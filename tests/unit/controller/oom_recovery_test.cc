// OOM recovery in the controller (ControllerOptions::oomRecovery, rollout/oom_recovery.h): an
// OOM-killed pod is evicted through the Eviction API within one pass, its memory at the kill
// recorded on the workload first; a PodDisruptionBudget's refusal keeps it; an opted-out workload
// and a policy that does not manage memory never evict; a pod under the safety monitor's
// observation is reverted, never evicted.
#include <gtest/gtest.h>

#include "rollout/oom_recovery.h"
#include "scenario_harness.h"

namespace attune::controller {
namespace {

using namespace testing;
using std::chrono::minutes;

// Two replicas leaking 1200Mi an hour from 200Mi under a 1Gi limit: the first OOM kill comes
// after about 41 minutes. The policy pins requests at what the pods have: no resize.
std::string leakingScenario(std::string_view workloadExtra = {}, std::string_view extra = {},
                            std::string updateStrategy = "{type: Auto}",
                            std::string policyExtra = {}) {
  return scenarioYaml(
      workloadYaml({.name = "leaky",
                    .replicas = 2,
                    .model = "{kind: memory-leak, cpuCores: 200m, memoryBytes: 200Mi, "
                             "leakBytesPerHour: 1200Mi, noise: 0}",
                    .workloadExtra = std::string(workloadExtra)}),
      policyYaml({.name = "leaky",
                  .target = "leaky",
                  .updateStrategy = std::move(updateStrategy),
                  .cpu = "minAllowed: 500m, maxAllowed: 500m",
                  .memory = "minAllowed: 512Mi, maxAllowed: 512Mi",
                  .extra = std::move(policyExtra)}),
      extra);
}

HarnessOptions withOomRecovery() {
  HarnessOptions options;
  options.controller.oomRecovery = true;
  return options;
}

constexpr std::string_view kEvicted =
    R"(attune_eviction_total{namespace="apps",workload="leaky",result="success",cause="OOMKilled"})";
constexpr std::string_view kBlocked =
    R"(attune_eviction_total{namespace="apps",workload="leaky",result="denied",cause="OOMKilled"})";

TEST(OomRecoveryTest, AnOomKilledPodIsEvictedWithinOnePassAndItsMemoryRecorded) {
  ScenarioHarness h(leakingScenario(), withOomRecovery());
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const auto before = h.pods("apps", "leaky");
  ASSERT_EQ(before.size(), 2u);
  ASSERT_TRUE(h.runUntil([&] { return !h.events(rollout::kEvictedReason).empty(); }, minutes(60)));
  EXPECT_TRUE(h.events("Resized").empty());
  const auto evicted = h.events(rollout::kEvictedReason);
  ASSERT_GE(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].involvedObject.kind, "Pod");
  EXPECT_NE(evicted[0].message.find("app OOM-killed at its memory limit 1Gi"), std::string::npos)
      << evicted[0].message;
  // The evicted pod is gone and the Deployment has made a new one.
  const std::string gone = evicted[0].involvedObject.name;
  h.runMinutes(2);
  for (const auto& pod : h.pods("apps", "leaky")) EXPECT_NE(pod.metadata.name, gone);
  EXPECT_EQ(h.pods("apps", "leaky").size(), 2u);
  // The memory at the kill, on the workload: it outlives the pod and an operator restart.
  const auto* deployment = h.sim().state().deployments.find("apps", "leaky");
  ASSERT_NE(deployment, nullptr);
  EXPECT_EQ(rollout::recordedOomMemory(deployment->metadata.annotations, "app"), Bytes(1LL << 30));
  EXPECT_GE(h.metric(kEvicted).value_or(0), 1);
  bool inHistory = false;
  for (const auto& e : h.policy("apps", "leaky").status.resizeHistory) {
    inHistory |= e.pod == gone && e.method == api::ResizeMethod::kEviction &&
                 e.result == api::ResizeResult::kEvicted && e.reason == "OOMKilled";
  }
  EXPECT_TRUE(inHistory);
}

TEST(OomRecoveryTest, APodDisruptionBudgetKeepsThePod) {
  // A budget no eviction can meet: three pods must stay available and there are two.
  ScenarioHarness h(
      leakingScenario({},
                      "  podDisruptionBudgets:\n  - namespace: apps\n    name: leaky\n"
                      "    minAvailable: 3\n"
                      "    selector: {matchLabels: {app.kubernetes.io/name: leaky}}\n"),
      withOomRecovery());
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const auto before = h.pods("apps", "leaky");
  const bool blocked =
      h.runUntil([&] { return !h.events(rollout::kEvictionBlockedReason).empty(); }, minutes(60));
  ASSERT_TRUE(blocked);
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  EXPECT_GE(h.metric(kBlocked).value_or(0), 1);
  // Nothing was evicted: the same pods run.
  const auto after = h.pods("apps", "leaky");
  ASSERT_EQ(after.size(), before.size());
  for (std::size_t i = 0; i < after.size(); ++i) {
    EXPECT_EQ(after[i].metadata.name, before[i].metadata.name);
  }
}

TEST(OomRecoveryTest, ABudgetThatTheKilledPodWouldBreakKeepsIt) {
  // Every pod must stay available. The pod just OOM-killed is not Ready, so the budget is not
  // healthy and IfHealthyBudget does not let it go either: its status follows the kill at once,
  // as upstream's disruption controller does, not a tick later.
  ScenarioHarness h(
      leakingScenario({},
                      "  podDisruptionBudgets:\n  - namespace: apps\n    name: leaky\n"
                      "    minAvailable: 2\n"
                      "    selector: {matchLabels: {app.kubernetes.io/name: leaky}}\n"),
      withOomRecovery());
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(
      h.runUntil([&] { return !h.events(rollout::kEvictionBlockedReason).empty(); }, minutes(60)));
  h.runMinutes(10);
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  EXPECT_GE(h.metric(kBlocked).value_or(0), 1);
}

TEST(OomRecoveryTest, AnOptedOutWorkloadIsNeverEvicted) {
  ScenarioHarness h(leakingScenario("    annotations: {attune.io/skip: \"true\"}\n"),
                    withOomRecovery());
  ASSERT_TRUE(h.usable());
  h.runMinutes(90);  // two OOM kills per pod at least
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  EXPECT_EQ(h.metric(kEvicted).value_or(0), 0);
}

TEST(OomRecoveryTest, APolicyThatDoesNotManageMemoryEvictsNothing) {
  // Observe and Recommend never change a pod, nor does a paused policy: the OOM-killed pods stay.
  for (const auto& [mode, paused] :
       {std::pair{"{type: Observe}", ""}, std::pair{"{type: Recommend}", ""},
        std::pair{"{type: Auto}", "      paused: true\n"}}) {
    ScenarioHarness h(leakingScenario({}, {}, mode, paused), withOomRecovery());
    ASSERT_TRUE(h.usable()) << mode << paused;
    h.runMinutes(60);
    bool killed = false;
    for (const auto& pod : h.pods("apps", "leaky")) {
      for (const auto& c : pod.status.containerStatuses) {
        killed |= c.lastState.terminated && c.lastState.terminated->reason == "OOMKilled";
      }
    }
    EXPECT_TRUE(killed) << mode << paused;
    EXPECT_TRUE(h.events(rollout::kEvictedReason).empty()) << mode << paused;
    EXPECT_FALSE(h.metric(kEvicted).has_value()) << mode << paused;
  }
}

TEST(OomRecoveryTest, WithoutTheOptionNothingIsEvicted) {
  ScenarioHarness h(leakingScenario());
  ASSERT_TRUE(h.usable());
  h.runMinutes(60);
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  EXPECT_FALSE(h.metric(kEvicted).has_value());  // nor is there an eviction series
}

// With the option, a managed workload's eviction series exist at 0 from its first pass, so that
// increase() in dashboards and alerts sees the first eviction.
TEST(OomRecoveryTest, TheEvictionSeriesStartAtZero) {
  ScenarioHarness h(leakingScenario(), withOomRecovery());
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  EXPECT_EQ(h.metric(kEvicted), 0);
  EXPECT_EQ(h.metric(kBlocked), 0);
}

TEST(OomRecoveryTest, APodUnderObservationIsRevertedNotEvicted) {
  // The policy lowers memory to 300Mi: the resized pod is OOM-killed inside its observation
  // period, which is the safety monitor's case (a revert in place), not the OOM handler's.
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "leaky",
                                 .model = "{kind: memory-leak, cpuCores: 200m, memoryBytes: "
                                          "200Mi, leakBytesPerHour: 1200Mi, noise: 0}"}),
                   policyYaml({.name = "leaky",
                               .target = "leaky",
                               .updateStrategy = "{type: Auto, safetyObservationPeriod: 1h}",
                               .memory = "maxAllowed: 300Mi"})),
      withOomRecovery());
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Reverted").empty(); }, minutes(120)));
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
}

}  // namespace
}  // namespace attune::controller
