// Startup boost (spec.cpu.startupBoost) end to end on the simulated cluster: a young pod's CPU is
// raised in place to the steady recommendation times the multiplier (capped by maxAllowed and
// the node's allocatable CPU), kept there for the duration without a resize record (the safety
// monitor never judges it, the rollout leaves the pod alone), then returned in place to the
// steady recommendation; a controller restarted in between ends it from the pod's annotations.
#include <gtest/gtest.h>

#include <string>

#include "api/k8s/eviction.h"
#include "core/units.h"
#include "rollout/startup_boost.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// `jvm`: one replica requesting 500m (limit 1) and using 200m, so the steady CPU request is about
// 300m (1.5 x usage) once three data points exist, 3 minutes in. The boost lasts `duration`.
std::string boostScenario(std::string_view boost, std::string_view cpuExtra = {},
                          std::string_view node = kOneNode) {
  std::string cpu = "startupBoost: " + std::string(boost);
  if (!cpuExtra.empty()) cpu += ", " + std::string(cpuExtra);
  return scenarioYaml(workloadYaml({.name = "jvm"}),
                      policyYaml({.name = "jvm", .target = "jvm", .cpu = cpu}), {}, node);
}

bool boosted(const api::Pod& pod) {
  return pod.metadata.annotations.contains(std::string(rollout::kStartupBoostAtAnnotation));
}

TEST(StartupBoostTest, AYoungPodIsBoostedInPlaceThenReturnedToTheSteadyRecommendation) {
  ScenarioHarness h(boostScenario("{multiplier: \"3.0\", duration: 10m}"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const std::string name = h.pod("apps", "jvm").metadata.name;
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoost).empty(); }, 5min));
  const Time boostedAt = h.actions(Kind::kStartupBoost).front().time;

  const api::Pod pod = h.pod("apps", "jvm");
  EXPECT_EQ(pod.metadata.name, name) << "in place: the same pod";
  EXPECT_TRUE(boosted(pod));
  EXPECT_FALSE(pod.metadata.annotations.contains("attune.io/resized-at"))
      << "a boost is not a resize under observation";
  EXPECT_EQ(pod.metadata.annotations.at("attune.io/boost-cpu-request.app"), "500m");
  EXPECT_EQ(pod.metadata.annotations.at("attune.io/boost-cpu-limit.app"), "1");
  // RequestsAndLimits: the limit keeps its 2:1 ratio.
  const api::ResourceValues raised = specResources(pod, "app");
  EXPECT_TRUE(near(raised.cpuRequest, 900_m)) << describe(raised);
  EXPECT_TRUE(near(raised.cpuLimit, 1800_m)) << describe(raised);
  EXPECT_EQ(raised.memoryRequest, 512_Mi) << "memory is not boosted";
  ASSERT_EQ(h.events("StartupBoost").size(), 1u);
  EXPECT_EQ(h.events("StartupBoost")[0].type, "Normal");
  EXPECT_EQ(
      h.metric(R"(attune_startup_boost_total{namespace="apps",workload="jvm",action="applied"})"),
      1.0);

  // Held for the duration: nothing resizes or reverts the pod meanwhile.
  h.run(10min - 2min);
  EXPECT_TRUE(boosted(h.pod("apps", "jvm")));
  EXPECT_EQ(specResources(h.pod("apps", "jvm"), "app").cpuRequest, raised.cpuRequest);
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());

  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoostEnded).empty(); }, 4min));
  EXPECT_GE(h.actions(Kind::kStartupBoostEnded).front().time, boostedAt + 10min);
  const api::Pod after = h.pod("apps", "jvm");
  EXPECT_EQ(after.metadata.name, name);
  EXPECT_FALSE(hasAnnotationPrefix(after.metadata, "attune.io/boost-"));
  EXPECT_FALSE(boosted(after));
  EXPECT_TRUE(near(specResources(after, "app").cpuRequest, 300_m))
      << describe(specResources(after, "app"));
  EXPECT_EQ(h.events("StartupBoostEnded").size(), 1u);
  EXPECT_EQ(
      h.metric(R"(attune_startup_boost_total{namespace="apps",workload="jvm",action="expired"})"),
      1.0);
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_TRUE(history(h.policy("apps", "jvm"), api::ResizeResult::kReverted).empty());
}

TEST(StartupBoostTest, ARestartedControllerEndsTheBoostFromThePodAlone) {
  ScenarioHarness h(boostScenario("{multiplier: \"2\", duration: 6m}"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoost).empty(); }, 5min));
  h.runMinutes(2);
  h.restartController();
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoostEnded).empty(); }, 6min));
  const api::Pod after = h.pod("apps", "jvm");
  EXPECT_FALSE(boosted(after));
  EXPECT_TRUE(near(specResources(after, "app").cpuRequest, 300_m));
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
}

TEST(StartupBoostTest, ANewPodOfTheWorkloadIsBoostedAndOldPodsAreNot) {
  ScenarioHarness h(boostScenario("{multiplier: \"2\", duration: 2m}"));
  ASSERT_TRUE(h.usable());
  // The first pod is 3 minutes old when the first recommendation exists: too old for a 2m boost;
  // it is resized to the steady recommendation as usual.
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 10min));
  EXPECT_TRUE(h.actions(Kind::kStartupBoost).empty());
  h.runMinutes(10);  // the observation ends
  const api::Pod old = h.pod("apps", "jvm");
  api::Eviction eviction;
  eviction.metadata.namespace_ = "apps";
  eviction.metadata.name = old.metadata.name;
  ASSERT_TRUE(h.sim().api().evictPod(eviction).has_value());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoost).empty(); }, 3min));
  const api::Pod fresh = h.pod("apps", "jvm");
  EXPECT_NE(fresh.metadata.name, old.metadata.name);
  EXPECT_TRUE(boosted(fresh));
  EXPECT_TRUE(near(specResources(fresh, "app").cpuRequest, 600_m))
      << describe(specResources(fresh, "app"));
}

TEST(StartupBoostTest, TheBoostIsCappedByMaxAllowedAndTheNodesAllocatableCpu) {
  {
    ScenarioHarness h(boostScenario("{multiplier: \"3.0\", duration: 10m}", "maxAllowed: 700m"));
    ASSERT_TRUE(h.usable());
    ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoost).empty(); }, 5min));
    EXPECT_EQ(specResources(h.pod("apps", "jvm"), "app").cpuRequest, 700_m);
  }
  {
    ScenarioHarness h(boostScenario("{multiplier: \"5\", duration: 10m}", {},
                                    "{name: node, count: 1, cpu: \"1\", memory: 32Gi}"));
    ASSERT_TRUE(h.usable());
    ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kStartupBoost).empty(); }, 5min));
    const api::Node* node = h.sim().state().nodes.find("", "node-0");
    ASSERT_NE(node, nullptr);
    EXPECT_EQ(specResources(h.pod("apps", "jvm"), "app").cpuRequest,
              node->status.allocatable.cpu->toMillicores());
  }
}

TEST(StartupBoostTest, RecommendModeNeverBoosts) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "jvm"}),
                   policyYaml({.name = "jvm",
                               .target = "jvm",
                               .updateStrategy = "{type: Recommend}",
                               .cpu = "startupBoost: {multiplier: \"3.0\", duration: 10m}"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(8);
  EXPECT_TRUE(h.actions(Kind::kStartupBoost).empty());
  EXPECT_FALSE(boosted(h.pod("apps", "jvm")));
  EXPECT_EQ(specResources(h.pod("apps", "jvm"), "app").cpuRequest, 500_m);
}

}  // namespace
}  // namespace attune::controller::testing
