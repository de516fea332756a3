// Memory limit decreases by Kubernetes version, end to end on the simulated cluster: before
// v1.34 a live decrease needs a RestartContainer memory resize policy (the simulated API server
// refuses it otherwise, so the controller skips it first); from v1.34 it is made only when the
// container's current usage plus decreaseUsageMarginPercent stays under the new limit.
#include <gtest/gtest.h>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// Usage 200m / 200Mi: the recommendation is about 300m / 300Mi, limits following requests.
const std::string kSteady = "{kind: steady, cpuCores: 200m, memoryBytes: 200Mi, noise: 0}";
const std::string kRestartOnMemory =
    "      resizePolicy:\n      - {resourceName: memory, restartPolicy: RestartContainer}\n";

std::string version(std::string_view v) { return "  kubernetesVersion: " + std::string(v) + "\n"; }

// The pod of `workload` is left as it was, with one Skipped history entry for `reason` and one
// ResizeSkipped Warning whose message starts with it.
void expectSkipped(ScenarioHarness& h, std::string_view policy, std::string_view workload,
                   std::string_view reason, const api::ResourceValues& original) {
  const api::Pod pod = h.pod("apps", workload);
  EXPECT_EQ(specResources(pod, "app"), original);
  EXPECT_EQ(statusResources(pod, "app"), original);
  EXPECT_FALSE(hasAnnotationPrefix(pod.metadata, "attune.io/"));
  for (const ActionRecord& a : h.actions(Kind::kResized)) EXPECT_NE(a.workload.name, workload);
  const api::AttunePolicy p = h.policy("apps", policy);
  const auto skips = history(p, api::ResizeResult::kSkipped);
  ASSERT_EQ(skips.size(), 1u);
  EXPECT_EQ(skips[0].reason, reason);
  EXPECT_EQ(skips[0].pod, pod.metadata.name);
  int skipped = 0;
  for (const api::Event& e : h.events("ResizeSkipped")) {
    if (e.involvedObject.name != pod.metadata.name) continue;
    ++skipped;
    EXPECT_EQ(e.type, "Warning");
    EXPECT_TRUE(e.message.starts_with(std::string(reason) + ":")) << e.message;
  }
  EXPECT_EQ(skipped, 1);
}

// Before v1.34: the pod without a RestartContainer memory policy keeps its 1Gi limit (skipped,
// and the history and event say why); the one with it is resized, restarted once by the
// kubelet, and runs the lower limit.
TEST(MemoryLimitDecreaseTest, BeforeKubernetes134ALimitDecreaseNeedsRestartContainer) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "plain", .model = kSteady}) +
          workloadYaml({.name = "restarts", .model = kSteady, .containerExtra = kRestartOnMemory}),
      policyYaml({.name = "plain", .target = "plain"}) +
          policyYaml({.name = "restarts", .target = "restarts"}),
      version("v1.33.2")));
  ASSERT_TRUE(h.usable());
  ASSERT_EQ(h.sim().api().getServerVersion()->minor, 33);
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "plain"), "app");
  ASSERT_EQ(original.memoryLimit, 1_Gi);
  h.runMinutes(29);

  expectSkipped(h, "plain", "plain", "MemoryLimitDecrease", original);
  const auto skips = history(h.policy("apps", "plain"), api::ResizeResult::kSkipped);
  ASSERT_FALSE(skips.empty());

  const api::Pod restarted = h.pod("apps", "restarts");
  const api::ResourceValues v = statusResources(restarted, "app");
  EXPECT_TRUE(near(v.memoryRequest, 300_Mi));
  ASSERT_TRUE(v.memoryLimit.has_value());
  EXPECT_LT(*v.memoryLimit, 1_Gi);
  EXPECT_EQ(restartCount(restarted, "app"), 1) << "the kubelet restarts it for the new limit";
  EXPECT_FALSE(history(h.policy("apps", "restarts"), api::ResizeResult::kSuccess).empty());
}

// The same pod at v1.34 is resized in place, without a restart.
TEST(MemoryLimitDecreaseTest, FromKubernetes134ALimitIsLoweredInPlace) {
  ScenarioHarness h(scenarioYaml(workloadYaml({.name = "plain", .model = kSteady}),
                                 policyYaml({.name = "plain", .target = "plain"}),
                                 version("v1.34.1")));
  ASSERT_TRUE(h.usable());
  h.runMinutes(30);
  const api::Pod pod = h.pod("apps", "plain");
  const api::ResourceValues v = statusResources(pod, "app");
  EXPECT_TRUE(near(v.memoryRequest, 300_Mi));
  EXPECT_TRUE(near(v.memoryLimit, 600_Mi));
  EXPECT_EQ(restartCount(pod, "app"), 0);
  EXPECT_TRUE(history(h.policy("apps", "plain"), api::ResizeResult::kSkipped).empty());
}

// Guaranteed pods (limits = requests): the new limit is about 300Mi for a usage of 200Mi. With
// a 100 % margin the floor is 400Mi: skipped with MemoryLimitUsageFloor. With the default 10 %
// (220Mi) the decrease is made.
TEST(MemoryLimitDecreaseTest, FromKubernetes134TheNewLimitMustClearUsagePlusTheMargin) {
  const std::string guaranteed = "{cpu: 500m, memory: 512Mi}";
  ScenarioHarness h(scenarioYaml(
      workloadYaml(
          {.name = "tight", .requests = guaranteed, .limits = guaranteed, .model = kSteady}) +
          workloadYaml(
              {.name = "roomy", .requests = guaranteed, .limits = guaranteed, .model = kSteady}),
      policyYaml(
          {.name = "tight", .target = "tight", .memory = "decreaseUsageMarginPercent: 100"}) +
          policyYaml({.name = "roomy", .target = "roomy"}),
      version("v1.34.0")));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", "tight"), "app");
  h.runMinutes(29);

  expectSkipped(h, "tight", "tight", "MemoryLimitUsageFloor", original);
  const api::ResourceValues roomy = statusResources(h.pod("apps", "roomy"), "app");
  EXPECT_TRUE(near(roomy.memoryLimit, 300_Mi));
  EXPECT_EQ(roomy.memoryLimit, roomy.memoryRequest);
}

}  // namespace
}  // namespace attune::controller::testing
