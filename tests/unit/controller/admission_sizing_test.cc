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

TEST(AdmissionSizingTest, TheAdaptiveStrategyPublishesItsOwnRecommendation) {
  // A steady 200m / 200Mi workload: the adaptive strategy's recommendation (CPU × 1.3, memory
  // × 1.15), not CruiseKube's peak sizing (about the usage itself).
  AdmissionSizing sizing;
  HarnessOptions options;
  options.controller.admissionSizing = &sizing;
  options.controller.strategyOverride = "adaptive";
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web"}), policyYaml({.name = "web", .target = "web"})),
      options);
  ASSERT_TRUE(h.usable());
  h.runMinutes(30);
  const auto s = sizing.lookup(kWeb);
  ASSERT_TRUE(s.has_value());
  ASSERT_TRUE(s->front().cpuRequest && s->front().memoryRequest);
  // Its histograms read a bucket's end: 200m lies in [196m, 216m), so 255m to 281m; 200Mi in a
  // bucket about 5% wide, so 230Mi to 242Mi.
  EXPECT_GE(*s->front().cpuRequest, 255_m);  // 200m × 1.3 = 260m
  EXPECT_LE(*s->front().cpuRequest, 282_m);
  EXPECT_GE(*s->front().memoryRequest, 225_Mi);  // 200Mi × 1.15 = 230Mi
  EXPECT_LE(*s->front().memoryRequest, 242_Mi);
}

api::AttunePolicy autoPolicy(api::ControlledValues values) {
  api::AttunePolicy p;
  p.metadata.namespace_ = "apps";
  p.metadata.name = "web";
  p.spec.updateStrategy.type = api::UpdateMode::kAuto;
  p.spec.cpu.controlledValues = values;
  p.spec.memory.controlledValues = values;
  return p;
}

RecommendedContainer recommended(std::string name, bool enough, api::ResourceValues values) {
  RecommendedContainer c;
  c.name = std::move(name);
  c.recommendation.enoughData = enough;
  if (enough) c.recommendation.resources = values;
  return c;
}

TEST(RecommendationSizingTest, EachContainerWithEnoughDataAtItsRecommendation) {
  const api::ResourceValues app{.cpuRequest = 250_m,
                                .cpuLimit = std::nullopt,
                                .memoryRequest = 300_Mi,
                                .memoryLimit = 600_Mi};
  const std::vector<RecommendedWorkload> workloads = {
      {.ref = kWeb,
       .containers = {recommended("app", true, app), recommended("log", false, {})},
       .lastDataTime = std::nullopt}};
  const WorkloadSizing limits =
      recommendationSizing(workloads, autoPolicy(api::ControlledValues::kRequestsAndLimits));
  ASSERT_EQ(limits.size(), 1u);
  ASSERT_EQ(limits.at(kWeb).size(), 1u);  // "log" has too little data
  const webhook::ContainerSizing& s = limits.at(kWeb).front();
  EXPECT_EQ(s.container, "app");
  EXPECT_EQ(s.cpuRequest, 250_m);
  EXPECT_EQ(s.memoryRequest, 300_Mi);
  EXPECT_EQ(s.memoryLimit, 600_Mi);
  EXPECT_TRUE(s.removeCpuLimit);  // the recommendation has no CPU limit
  // RequestsOnly: the limits are left as the pod has them.
  const WorkloadSizing requests =
      recommendationSizing(workloads, autoPolicy(api::ControlledValues::kRequestsOnly));
  EXPECT_FALSE(requests.at(kWeb).front().memoryLimit.has_value());
  EXPECT_FALSE(requests.at(kWeb).front().removeCpuLimit);
  // Nothing outside Auto.
  api::AttunePolicy recommend = autoPolicy(api::ControlledValues::kRequestsOnly);
  recommend.spec.updateStrategy.type = api::UpdateMode::kRecommend;
  EXPECT_TRUE(recommendationSizing(workloads, recommend).empty());
}

TEST(RecommendationSizingTest, AWorkloadWhosePodIsBeingRecreatedKeepsItsSizing) {
  const api::WorkloadRef api = api::workloadRef(api::WorkloadKind::kDeployment, "apps", "api");
  const api::WorkloadRef gone = api::workloadRef(api::WorkloadKind::kDeployment, "apps", "gone");
  const WorkloadSizing previous = {{kWeb, {{.container = "app", .cpuRequest = 100_m}}},
                                   {api, {{.container = "app", .cpuRequest = 200_m}}},
                                   {gone, {{.container = "app", .cpuRequest = 300_m}}}};
  const WorkloadSizing next = {{kWeb, {{.container = "app", .cpuRequest = 150_m}}}};
  // web and api are targets; api has no running pod (no recommendation); gone is no target.
  const std::vector<TargetWorkload> targets = {{.ref = kWeb}, {.ref = api}};
  const std::vector<RecommendedWorkload> recommendedNow = {{.ref = kWeb}};
  const api::AttunePolicy policy = autoPolicy(api::ControlledValues::kRequestsOnly);
  const WorkloadSizing kept =
      keepingRecreatedWorkloads(next, previous, targets, recommendedNow, policy);
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_EQ(kept.at(kWeb).front().cpuRequest, 150_m);  // this pass's
  EXPECT_EQ(kept.at(api).front().cpuRequest, 200_m);   // kept while its pod is recreated
  EXPECT_FALSE(kept.contains(gone));
  // A workload with a recommendation but nothing to size (too little data) is not kept.
  const std::vector<RecommendedWorkload> both = {{.ref = kWeb}, {.ref = api}};
  EXPECT_EQ(keepingRecreatedWorkloads(next, previous, targets, both, policy).size(), 1u);
  // Nothing kept once the policy stops sizing at admission.
  api::AttunePolicy paused = policy;
  paused.spec.paused = true;
  EXPECT_TRUE(keepingRecreatedWorkloads({}, previous, targets, {}, paused).empty());
}

}  // namespace
}  // namespace attune::controller::testing
