// The sizing the controller publishes for the pod admission webhook (admission_sizing.h), end
// to end on the simulated cluster: a steady workload (200m, 200Mi) under a policy.
#include "controller/admission_sizing.h"

#include <gtest/gtest.h>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace attune::literals;

const api::WorkloadRef kWeb = api::workloadRef(api::WorkloadKind::kDeployment, "apps", "web");

std::optional<std::vector<webhook::ContainerSizing>> publishedAfter(
    const PolicyYaml& policy, int minutes = 30, std::string_view workloadExtra = {}) {
  AdmissionSizing sizing;
  HarnessOptions options;
  options.controller.admissionSizing = &sizing;
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web", .workloadExtra = std::string(workloadExtra)}),
                   policyYaml(policy)),
      options);
  EXPECT_TRUE(h.usable());
  if (!h.usable()) return std::nullopt;
  h.runMinutes(minutes);
  return sizing.lookup(kWeb);
}

TEST(AdmissionSizingTest, AutoPolicyPublishesPeakRequestsAndTwiceTheMemoryMax) {
  auto s = publishedAfter({.name = "web", .target = "web"});
  ASSERT_TRUE(s.has_value());
  ASSERT_EQ(s->size(), 1u);
  const webhook::ContainerSizing& app = s->front();
  EXPECT_EQ(app.container, "app");
  ASSERT_TRUE(app.cpuRequest && app.memoryRequest && app.memoryLimit);
  // Steady usage: the hour-of-week peak is the usage itself (rounded up).
  EXPECT_GE(*app.cpuRequest, 200_m);
  EXPECT_LE(*app.cpuRequest, 210_m);
  EXPECT_GE(*app.memoryRequest, 200_Mi);
  EXPECT_LE(*app.memoryRequest, 210_Mi);
  // 2 × the 7-day max (no OOM kill): twice the steady memory.
  EXPECT_EQ(app.memoryLimit->value(), 2 * app.memoryRequest->value());
  EXPECT_TRUE(app.removeCpuLimit);
}

TEST(AdmissionSizingTest, TheMemoryAtAnOomKillRecordedOnTheWorkloadRaisesTheLimit) {
  // OOM recovery recorded 700Mi at a kill: the limit is 2 × max(7-day max, 700Mi) = 1400Mi.
  auto s = publishedAfter({.name = "web", .target = "web"}, 30,
                          "    annotations: {attune.io/oom-memory.app: \"734003200\"}\n");
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE(s->front().memoryLimit.has_value());
  EXPECT_EQ(*s->front().memoryLimit, Bytes(2 * 734003200LL));
  // Within the policy's maxAllowed.
  auto capped = publishedAfter({.name = "web", .target = "web", .memory = "maxAllowed: 1Gi"}, 30,
                               "    annotations: {attune.io/oom-memory.app: \"734003200\"}\n");
  ASSERT_TRUE(capped.has_value());
  EXPECT_EQ(*capped->front().memoryLimit, 1_Gi);
}

TEST(AdmissionSizingTest, BoundedByMinAndMaxAllowed) {
  auto s = publishedAfter(
      {.name = "web", .target = "web", .cpu = "maxAllowed: 150m", .memory = "minAllowed: 300Mi"});
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->front().cpuRequest, 150_m);
  EXPECT_EQ(s->front().memoryRequest, 300_Mi);
}

TEST(AdmissionSizingTest, RequestsOnlyLeavesLimitsAlone) {
  auto s = publishedAfter({.name = "web", .target = "web", .controlledValues = "RequestsOnly"});
  ASSERT_TRUE(s.has_value());
  EXPECT_TRUE(s->front().cpuRequest.has_value());
  EXPECT_FALSE(s->front().memoryLimit.has_value());
  EXPECT_FALSE(s->front().removeCpuLimit);
}

TEST(AdmissionSizingTest, NothingForModesThatDoNotResize) {
  EXPECT_FALSE(
      publishedAfter({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"}));
  EXPECT_FALSE(publishedAfter({.name = "web", .target = "web", .extra = "      paused: true"}));
}

TEST(AdmissionSizingTest, NothingWithoutEnoughData) {
  EXPECT_FALSE(publishedAfter({.name = "web", .target = "web", .minimumDataPoints = 1000}));
}

TEST(AdmissionSizingTest, LookupReadsAnImmutableSnapshotAndWithdrawForgets) {
  AdmissionSizing sizing;
  sizing.publish("apps/b", {{kWeb, {{.container = "app", .cpuRequest = 300_m}}}});
  sizing.publish("apps/a", {{kWeb, {{.container = "app", .cpuRequest = 100_m}}}});
  EXPECT_EQ(sizing.lookup(kWeb)->front().cpuRequest, 100_m);  // the first policy by name wins
  sizing.withdraw("apps/a");
  EXPECT_EQ(sizing.lookup(kWeb)->front().cpuRequest, 300_m);
  sizing.publish("apps/b", {});
  EXPECT_FALSE(sizing.lookup(kWeb).has_value());
  EXPECT_EQ(sizing.size(), 0u);
}

}  // namespace
}  // namespace attune::controller::testing
