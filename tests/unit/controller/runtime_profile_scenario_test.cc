// spec.runtimeProfile end to end: the profile's memory overhead reaches the pods in Auto mode,
// and an explicit field wins over it.
#include <gtest/gtest.h>

#include <string>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace attune::literals;

// policyYaml() with neither memory.overhead nor memory.allowDecrease set (`memory` adds fields),
// and `runtimeProfile`.
std::string profilePolicyYaml(const std::string& name, const std::string& profile,
                              const std::string& memory = {}) {
  std::string yaml = policyYaml({.name = name,
                                 .target = name,
                                 .memory = memory,
                                 .extra = "      runtimeProfile: " + profile + "\n"});
  const std::string set = "memory: {overhead: \"0\", allowDecrease: true, ";
  yaml.replace(yaml.find(set), set.size(), "memory: {");
  return yaml;
}

// 200Mi used of 256Mi requested: every policy raises memory, by its overhead.
std::string underProvisioned(const std::string& name) {
  return workloadYaml({.name = name,
                       .requests = "{cpu: 300m, memory: 256Mi}",
                       .limits = "{cpu: 600m, memory: 512Mi}"});
}

TEST(RuntimeProfileScenarioTest, TheJavaProfilesOverheadReachesThePodAndExplicitFieldsWin) {
  ScenarioHarness h(
      scenarioYaml(underProvisioned("jvm") + underProvisioned("go") + underProvisioned("tuned"),
                   profilePolicyYaml("jvm", "java") + profilePolicyYaml("go", "golang") +
                       profilePolicyYaml("tuned", "java", "overhead: \"10\"")));
  ASSERT_TRUE(h.usable());
  h.runMinutes(30);
  // 200Mi × 1.5 (short history) × (1 + overhead): java 40 %, golang the built-in 30 %, the
  // explicit 10 %.
  struct Want {
    const char* workload;
    Bytes memory;
    const char* overhead;
  };
  for (const Want& w :
       {Want{"jvm", 420_Mi, "40"}, Want{"go", 390_Mi, "30"}, Want{"tuned", 330_Mi, "10"}}) {
    SCOPED_TRACE(w.workload);
    const api::Pod pod = h.pod("apps", w.workload);
    EXPECT_TRUE(near(specResources(pod, "app").memoryRequest, w.memory));
    const api::AttunePolicy p = h.policy("apps", w.workload);
    ASSERT_EQ(p.status.recommendations.size(), 1u);
    EXPECT_TRUE(
        near(p.status.recommendations[0].containers[0].recommended.memoryRequest, w.memory));
    EXPECT_FALSE(history(p, api::ResizeResult::kSuccess).empty());
    const std::string& rationale = p.status.recommendations[0].containers[0].rationale;
    EXPECT_NE(rationale.find("memory: × (1 + " + std::string(w.overhead) + "%)"), std::string::npos)
        << rationale;
  }
}

}  // namespace
}  // namespace attune::controller::testing
