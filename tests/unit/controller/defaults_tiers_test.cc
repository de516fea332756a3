// The defaults tiers in the controller: an AttuneNamespaceDefaults or AttuneDefaults object
// changes what a policy that leaves a field unset does, a field the policy sets wins, and the
// namespace's defaults win over the cluster's.
#include <gtest/gtest.h>

#include "api/policy/attune_defaults.h"
#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

api::AttuneDefaults decodeDefaults(std::string_view yaml) {
  auto decoded = api::checkDefaults(yaml);
  EXPECT_EQ(decoded.size(), 1u);
  if (decoded.empty() || !decoded[0].defaults) return {};
  EXPECT_TRUE(decoded[0].errors.empty()) << decoded[0].errors.front().error.toString();
  return std::move(*decoded[0].defaults);
}

void putNamespaceDefaults(ScenarioHarness& h, std::string_view updateStrategy) {
  api::AttuneNamespaceDefaults d(decodeDefaults(
      "apiVersion: attune.io/v1alpha1\nkind: AttuneNamespaceDefaults\nmetadata: {name: apps, "
      "namespace: apps}\nspec:\n  updateStrategy: " +
      std::string(updateStrategy) + "\n"));
  ASSERT_TRUE(h.sim().state().attuneNamespaceDefaults.create(std::move(d)));
}

void putClusterDefaults(ScenarioHarness& h, std::string_view updateStrategy) {
  api::AttuneDefaults d = decodeDefaults(
      "apiVersion: attune.io/v1alpha1\nkind: AttuneDefaults\nmetadata: {name: cluster}\nspec:\n"
      "  updateStrategy: " +
      std::string(updateStrategy) + "\n");
  ASSERT_TRUE(h.sim().state().attuneDefaults.create(std::move(d)));
}

bool resized(ScenarioHarness& h, std::string_view workload) {
  for (const ActionRecord& a : h.actions(Kind::kResized)) {
    if (a.workload.name == workload) return true;
  }
  return false;
}

// Two policies in namespace apps: `inherits` leaves updateStrategy.type unset, `recommends` sets
// Recommend.
std::string twoPolicies() {
  return scenarioYaml(
      workloadYaml({.name = "inherits"}) + workloadYaml({.name = "recommends"}),
      policyYaml({.name = "inherits", .target = "inherits", .updateStrategy = "{}"}) +
          policyYaml({.name = "recommends",
                      .target = "recommends",
                      .updateStrategy = "{type: Recommend}"}));
}

TEST(DefaultsTiersTest, ANamespaceDefaultChangesTheModeAndAPolicyFieldOverridesIt) {
  ScenarioHarness h(twoPolicies());
  ASSERT_TRUE(h.usable());
  // Built in: Recommend. Neither workload is resized.
  h.runMinutes(20);
  EXPECT_FALSE(resized(h, "inherits"));
  EXPECT_FALSE(resized(h, "recommends"));
  ASSERT_FALSE(h.policy("apps", "inherits").status.recommendations.empty());

  putNamespaceDefaults(h, "{type: Auto}");
  ASSERT_TRUE(h.runUntil([&] { return resized(h, "inherits"); }, 20min));
  EXPECT_TRUE(near(specResources(h.pod("apps", "inherits"), "app").cpuRequest, 300_m));
  h.runMinutes(20);
  EXPECT_FALSE(resized(h, "recommends")) << "the policy's own type wins over the namespace's";
  // The stored policy is not rewritten: the merge is the controller's view.
  EXPECT_FALSE(h.policy("apps", "inherits").spec.updateStrategy.type.has_value());
}

TEST(DefaultsTiersTest, NamespaceDefaultsWinOverClusterDefaults) {
  ScenarioHarness h(twoPolicies());
  ASSERT_TRUE(h.usable());
  putClusterDefaults(h, "{type: Auto}");
  putNamespaceDefaults(h, "{type: Observe}");
  h.runMinutes(30);
  EXPECT_FALSE(resized(h, "inherits"));
  // Observe (the namespace's) writes no recommendation; Recommend (the policy's) does.
  EXPECT_TRUE(h.policy("apps", "inherits").status.recommendations.empty());
  EXPECT_FALSE(h.policy("apps", "recommends").status.recommendations.empty());

  // Without the namespace's object, the cluster's Auto applies.
  ASSERT_TRUE(h.sim().state().attuneNamespaceDefaults.erase("apps", "apps"));
  ASSERT_TRUE(h.runUntil([&] { return resized(h, "inherits"); }, 20min));
  EXPECT_FALSE(resized(h, "recommends"));
}

TEST(DefaultsTiersTest, AnInvalidCombinationIsReportedAndNothingIsResized) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "inherits"}),
      policyYaml({.name = "inherits", .target = "inherits", .cpu = "maxAllowed: 100m"})));
  ASSERT_TRUE(h.usable());
  // The namespace's minimum lies above the policy's maximum.
  api::AttuneNamespaceDefaults d(
      decodeDefaults("apiVersion: attune.io/v1alpha1\nkind: AttuneNamespaceDefaults\nmetadata: "
                     "{name: apps, namespace: apps}\nspec:\n  cpu: {minAllowed: 200m}\n"));
  ASSERT_TRUE(h.sim().state().attuneNamespaceDefaults.create(std::move(d)));
  h.runMinutes(20);
  EXPECT_FALSE(resized(h, "inherits"));
  const api::AttunePolicy inherits = h.policy("apps", "inherits");
  const api::Condition* ready = condition(inherits, api::kConditionReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_FALSE(ready->isTrue());
  EXPECT_NE(ready->message.find("AttuneNamespaceDefaults apps"), std::string::npos)
      << ready->message;
  EXPECT_NE(ready->message.find("minAllowed"), std::string::npos) << ready->message;
}

TEST(DefaultsTiersTest, APolicyMadeInvalidWithdrawsItsGaugesUntilItIsValidAgain) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web"}), policyYaml({.name = "web",
                                                              .target = "web",
                                                              .updateStrategy = "{type: Recommend}",
                                                              .cpu = "maxAllowed: 400m"})));
  ASSERT_TRUE(h.usable());
  const auto recommendation = [&] {
    return h.metric(
        R"(attune_recommendation_cpu_cores{namespace="apps",workload="web",container="app"})");
  };
  const auto savings = [&] {
    return h.metric(R"(attune_savings_cpu_cores_total{namespace="apps"})");
  };
  h.runMinutes(60);
  ASSERT_TRUE(recommendation().has_value());
  ASSERT_GT(savings().value_or(0), 0);
  ASSERT_FALSE(h.policy("apps", "web").status.recommendations.empty());
  ASSERT_TRUE(h.policy("apps", "web").status.savings.has_value());
  // The namespace's minimum lies above the policy's maximum: the effective policy is invalid.
  api::AttuneNamespaceDefaults d(
      decodeDefaults("apiVersion: attune.io/v1alpha1\nkind: AttuneNamespaceDefaults\nmetadata: "
                     "{name: apps, namespace: apps}\nspec:\n  cpu: {minAllowed: 500m}\n"));
  ASSERT_TRUE(h.sim().state().attuneNamespaceDefaults.create(std::move(d)));
  h.runMinutes(2);
  EXPECT_FALSE(recommendation().has_value());
  EXPECT_FALSE(h.metric(R"(attune_confidence{namespace="apps",workload="web",container="app"})")
                   .has_value());
  EXPECT_FALSE(
      h.metric(R"(attune_reclaimed_request_cpu_cores{namespace="apps",policy="web"})").has_value());
  EXPECT_EQ(savings().value_or(0), 0);
  // So does its status: Ready=False, no recommendation, no savings, none counted as pending.
  {
    const api::AttunePolicy web = h.policy("apps", "web");
    const api::Condition* ready = condition(web, api::kConditionReady);
    ASSERT_NE(ready, nullptr);
    EXPECT_FALSE(ready->isTrue());
    EXPECT_TRUE(web.status.recommendations.empty());
    EXPECT_FALSE(web.status.savings.has_value());
    ASSERT_TRUE(web.status.workloads.has_value());
    EXPECT_EQ(web.status.workloads->withRecommendations, 0);
    EXPECT_EQ(web.status.workloads->pending, 0);
    EXPECT_EQ(web.status.workloads->discovered, 1);
  }
  // Valid again: its next pass publishes again.
  ASSERT_TRUE(h.sim().state().attuneNamespaceDefaults.erase("apps", "apps"));
  h.runMinutes(2);
  EXPECT_TRUE(recommendation().has_value());
  EXPECT_GT(savings().value_or(0), 0);
  {
    const api::AttunePolicy web = h.policy("apps", "web");
    EXPECT_TRUE(condition(web, api::kConditionReady)->isTrue());
    EXPECT_FALSE(web.status.recommendations.empty());
    EXPECT_TRUE(web.status.savings.has_value());
    EXPECT_EQ(web.status.workloads->withRecommendations, 1);
  }
}

}  // namespace
}  // namespace attune::controller::testing
