// The safety monitor end to end: every revert trigger of the seed, its timing (early critical
// checks at once, throttle and NotReady only at the end of the observation period), the revert
// to the originals recorded on the pod, and a controller restarted in the middle of an
// observation.
#include <gtest/gtest.h>

#include "core/quantity.h"
#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// Memory grows 20Mi a minute from 200Mi; the policy caps memory at 300Mi (limit 600Mi, the
// 2:1 ratio kept), so the resized container reaches its new limit about 20 minutes after it
// started, inside the 1 h observation period.
std::string leakyScenario() {
  return scenarioYaml(
      workloadYaml({.name = "leaky",
                    .model = "{kind: memory-leak, cpuCores: 200m, memoryBytes: 200Mi, "
                             "leakBytesPerHour: 1200Mi, noise: 0}"}),
      policyYaml({.name = "leaky",
                  .target = "leaky",
                  .updateStrategy = "{type: Auto, safetyObservationPeriod: 1h}",
                  .memory = "maxAllowed: 300Mi"}));
}

TEST(SafetyRevertTest, OomKillAfterTheResizeRevertsAtOnceToTheRecordedOriginals) {
  ScenarioHarness h(leakyScenario());
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "leaky"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  const api::Pod resized = h.pod("apps", "leaky");
  EXPECT_EQ(specResources(resized, "app").memoryRequest, 300_Mi);
  EXPECT_EQ(specResources(resized, "app").memoryLimit, 600_Mi);
  EXPECT_TRUE(resized.metadata.annotations.contains("attune.io/resized-at"));

  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 50min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "oomkill");
  EXPECT_LT(revert.time, resizedAt + 1h) << "an OOM kill is reverted before the period ends";
  h.runMinutes(2);

  const api::Pod after = h.pod("apps", "leaky");
  EXPECT_EQ(specResources(after, "app"), original)
      << describe(specResources(after, "app")) << " vs " << describe(original);
  EXPECT_FALSE(hasAnnotationPrefix(after.metadata, "attune.io/")) << "the record is removed";
  const api::AttunePolicy policy = h.policy("apps", "leaky");
  EXPECT_FALSE(history(policy, api::ResizeResult::kReverted, "oomkill").empty());
  EXPECT_TRUE(history(policy, api::ResizeResult::kSuccess).empty());
  const auto reverted = h.events("Reverted");
  ASSERT_EQ(reverted.size(), 1u);
  EXPECT_EQ(reverted[0].type, "Warning");
  EXPECT_EQ(reverted[0].involvedObject.name, after.metadata.name);
  EXPECT_EQ(h.metric(R"(attune_reverts_total{namespace="apps",workload="leaky",reason="oomkill"})"),
            1.0);
  const api::Deployment* d = h.sim().state().deployments.find("apps", "leaky");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->metadata.annotations.at("attune.io/consecutive-reverts"), "1");
}

// A container that runs 150 s, exits and is restarted by the kubelet (restartPolicy Always,
// with the crash-loop backoff between runs): its restart count climbs on its own.
TEST(SafetyRevertTest, TwoRestartsSinceTheResizeRevertBeforeThePeriodEnds) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "flaky",
                                 .limits = "",
                                 .model = "{kind: batch, cpuCores: 200m, memoryBytes: 200Mi, "
                                          "durationSeconds: 150, noise: 0}"}),
                   policyYaml({.name = "flaky",
                               .target = "flaky",
                               .updateStrategy = "{type: Auto, safetyObservationPeriod: 40m}"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "flaky"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 30min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  const int restartsAtResize = std::stoi(
      h.pod("apps", "flaky").metadata.annotations.at("attune.io/original-restart-count.app"));

  int restartsBeforeRevert = restartsAtResize;
  ASSERT_TRUE(h.runUntil(
      [&] {
        if (!h.actions(Kind::kReverted).empty()) return true;
        restartsBeforeRevert = restartCount(h.pod("apps", "flaky"), "app");
        return false;
      },
      40min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "restart") << revert.detail;
  EXPECT_LT(revert.time, resizedAt + 40min) << "a restart spike is reverted before the period ends";
  EXPECT_EQ(restartsBeforeRevert, restartsAtResize + 1)
      << "one restart since the resize is tolerated; the second triggers the revert";
  h.runMinutes(1);
  const api::Pod after = h.pod("apps", "flaky");
  EXPECT_EQ(specResources(after, "app"), original);
  EXPECT_FALSE(history(h.policy("apps", "flaky"), api::ResizeResult::kReverted, "restart").empty());
  EXPECT_EQ(h.metric(R"(attune_reverts_total{namespace="apps",workload="flaky",reason="restart"})"),
            1.0);
}

// Resizing memory restarts the container once (resizePolicy RestartContainer): one restart since
// the resize is not a spike, and the resize is kept.
TEST(SafetyRevertTest, OneRestartSinceTheResizeIsTolerated) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "restarter",
                                 .containerExtra = "      resizePolicy: [{resourceName: memory, "
                                                   "restartPolicy: RestartContainer}]\n"}),
                   policyYaml({.name = "restarter", .target = "restarter"})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const int restartsAtResize = restartCount(h.pod("apps", "restarter"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kSafe).empty(); }, 20min));
  h.runMinutes(5);

  const api::Pod after = h.pod("apps", "restarter");
  EXPECT_EQ(restartCount(after, "app"), restartsAtResize + 1);
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_TRUE(near(specResources(after, "app").memoryRequest, 300_Mi));
  EXPECT_FALSE(hasAnnotationPrefix(after.metadata, "attune.io/"));
  EXPECT_TRUE(h.events("Reverted").empty());
}

// Demand 600m under a 1-core limit (not throttled); the policy caps CPU at 200m, and the limit
// follows the request (RequestsAndLimits, ratio 1), so after the resize the container is
// throttled in every period.
std::string throttledScenario(std::string_view kubelet = {}) {
  return scenarioYaml(
      workloadYaml({.name = "busy",
                    .requests = "{cpu: \"1\", memory: 512Mi}",
                    .limits = "{cpu: \"1\", memory: 1Gi}",
                    .model = "{kind: steady, cpuCores: 600m, memoryBytes: 200Mi, noise: 0}"}),
      policyYaml({.name = "busy",
                  .target = "busy",
                  .updateStrategy = "{type: Auto, safetyObservationPeriod: 10m}",
                  .cpu = "maxAllowed: 200m"}),
      kubelet);
}

double throttleRatioNow(ScenarioHarness& h, std::string_view pod) {
  for (const auto& [uid, runtime] : h.sim().kubelet().pods()) {
    if (runtime.name == pod) return runtime.containers.at(0).throttleRatioLastTick();
  }
  return -1;
}

TEST(SafetyRevertTest, ThrottlingIsRevertedOnlyOnceTheObservationPeriodEnds) {
  ScenarioHarness h(throttledScenario());
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "busy"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  EXPECT_EQ(specResources(h.pod("apps", "busy"), "app").cpuLimit, 200_m);

  // Throttled from the first tick after the resize, yet kept until the period is over.
  h.run(resizedAt + 9min - h.now());
  const api::Pod during = h.pod("apps", "busy");
  EXPECT_GT(throttleRatioNow(h, during.metadata.name), 0.9);
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_EQ(specResources(during, "app").cpuRequest, 200_m);

  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 10min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "throttle") << revert.detail;
  EXPECT_EQ(revert.time, resizedAt + 10min);
  h.runMinutes(1);
  EXPECT_EQ(specResources(h.pod("apps", "busy"), "app"), original);
  EXPECT_FALSE(history(h.policy("apps", "busy"), api::ResizeResult::kReverted, "throttle").empty());
  EXPECT_EQ(h.metric(R"(attune_reverts_total{namespace="apps",workload="busy",reason="throttle"})"),
            1.0);
}

// The kubelet reports the starved pod NotReady; the throttle threshold is set out of reach so
// that only the NotReady check can revert.
TEST(SafetyRevertTest, NotReadyIsRevertedOnlyAtThePeriodEnd) {
  HarnessOptions options;
  options.controller.throttleThreshold = 1.0;
  ScenarioHarness h(throttledScenario("  kubelet: {notReadyAboveThrottleRatio: 0.5}\n"), options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "busy"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;

  h.run(resizedAt + 9min - h.now());
  const api::Pod during = h.pod("apps", "busy");
  const api::Condition* ready = api::findCondition(during.status.conditions, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_FALSE(ready->isTrue()) << "the kubelet reports the throttled pod not Ready";
  EXPECT_TRUE(h.actions(Kind::kReverted).empty()) << "NotReady waits for the end of the period";

  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 10min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "notready") << revert.detail;
  EXPECT_EQ(revert.time, resizedAt + 10min);
  h.runMinutes(1);
  EXPECT_EQ(specResources(h.pod("apps", "busy"), "app"), original);
  EXPECT_EQ(h.metric(R"(attune_reverts_total{namespace="apps",workload="busy",reason="notready"})"),
            1.0);
}

TEST(SafetyRevertTest, ARestartedControllerRevertsFromTheClusterStateAlone) {
  ScenarioHarness h(throttledScenario());
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "busy"), "app");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  h.runMinutes(3);
  ASSERT_TRUE(h.actions(Kind::kReverted).empty());

  // A brand-new controller: no statistics, no memory of the resize.
  h.restartController();
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 15min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "throttle");
  EXPECT_EQ(revert.time, resizedAt + 10min);
  h.runMinutes(1);

  const api::Pod after = h.pod("apps", "busy");
  EXPECT_EQ(specResources(after, "app"), original)
      << describe(specResources(after, "app")) << " vs " << describe(original);
  EXPECT_EQ(statusResources(after, "app"), original) << "the kubelet applied the originals";
  EXPECT_FALSE(hasAnnotationPrefix(after.metadata, "attune.io/"));
  EXPECT_FALSE(history(h.policy("apps", "busy"), api::ResizeResult::kReverted, "throttle").empty());
  EXPECT_EQ(h.actions(Kind::kResized).size(), 1u) << "not resized again within the cooldown";
}

}  // namespace
}  // namespace attune::controller::testing
