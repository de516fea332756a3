// Overlapping policies: a workload several policies target is handled by the highest weight
// alone (equal weights: the name that sorts first); the others leave it alone and report a
// PolicyConflict condition and Warning Event naming the winner.
#include <gtest/gtest.h>

#include <string>

#include "controller/policy_overlaps.h"
#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace attune::literals;
using Kind = ActionRecord::Kind;

// web and api, both labelled tier: front, each using 200m of its 500m (recommendation 300m).
//  - broad (weight 100) selects tier: front, CPU capped at 250m;
//  - web-priority (weight 200) names web, no cap: it outranks broad on web;
//  - zeta (weight 100, no weight field) names api, CPU capped at 150m: it ties with broad on
//    api, and broad sorts first.
std::string overlapScenario() {
  const std::string front = "    labels: {tier: front}\n";
  std::string broad = policyYaml({.name = "broad", .target = "x", .cpu = "maxAllowed: 250m"});
  const std::string byName = "{kind: Deployment, name: x}";
  broad.replace(broad.find(byName), byName.size(),
                "{kind: Deployment, selector: {matchLabels: {tier: front}}}");
  broad += "      weight: 100\n";
  return scenarioYaml(
      workloadYaml({.name = "web", .workloadExtra = front}) +
          workloadYaml({.name = "api", .workloadExtra = front}),
      broad +
          policyYaml({.name = "web-priority", .target = "web", .extra = "      weight: 200\n"}) +
          policyYaml({.name = "zeta", .target = "api", .cpu = "maxAllowed: 150m"}));
}

std::vector<std::string> recommendedWorkloads(const api::AttunePolicy& p) {
  std::vector<std::string> out;
  for (const auto& r : p.status.recommendations) out.push_back(r.workload);
  return out;
}

std::vector<std::string> historyWorkloads(const api::AttunePolicy& p) {
  std::vector<std::string> out;
  for (const auto& e : p.status.resizeHistory) out.push_back(e.workload);
  return out;
}

std::vector<api::Event> conflictEvents(ScenarioHarness& h, std::string_view policy) {
  std::vector<api::Event> out;
  for (api::Event& e : h.events("PolicyConflict")) {
    if (e.involvedObject.kind == "AttunePolicy" && e.involvedObject.name == policy) {
      out.push_back(std::move(e));
    }
  }
  return out;
}

TEST(PolicyOverlapsTest, TheHighestWeightAloneHandlesAWorkloadAndTiesGoByName) {
  ScenarioHarness h(overlapScenario());
  ASSERT_TRUE(h.usable());
  h.runMinutes(30);

  // Each workload was resized by its winner alone, to the winner's target.
  EXPECT_TRUE(near(specResources(h.pod("apps", "web"), "app").cpuRequest, 300_m));
  EXPECT_EQ(specResources(h.pod("apps", "api"), "app").cpuRequest, 250_m);
  for (const ActionRecord& a : h.actions(Kind::kResized)) {
    EXPECT_EQ(a.policy, a.workload.name == "web" ? "apps/web-priority" : "apps/broad")
        << a.workload.name;
  }
  const api::AttunePolicy broad = h.policy("apps", "broad");
  const api::AttunePolicy priority = h.policy("apps", "web-priority");
  const api::AttunePolicy zeta = h.policy("apps", "zeta");
  EXPECT_EQ(recommendedWorkloads(broad), std::vector<std::string>{"api"});
  EXPECT_EQ(recommendedWorkloads(priority), std::vector<std::string>{"web"});
  EXPECT_TRUE(recommendedWorkloads(zeta).empty());
  for (const std::string& w : historyWorkloads(broad)) EXPECT_EQ(w, "api");
  EXPECT_FALSE(history(priority, api::ResizeResult::kSuccess).empty());
  EXPECT_TRUE(zeta.status.resizeHistory.empty());

  // The yielding policies say who handles the workload; the winner has no such condition.
  const api::Condition* broadConflict = condition(broad, kConditionPolicyConflict);
  ASSERT_NE(broadConflict, nullptr);
  EXPECT_EQ(broadConflict->status, "True");
  EXPECT_EQ(broadConflict->reason, "HandledByOtherPolicy");
  EXPECT_EQ(broadConflict->message,
            "Deployment web is handled by AttunePolicy web-priority (weight 200, this policy "
            "100)");
  const api::Condition* zetaConflict = condition(zeta, kConditionPolicyConflict);
  ASSERT_NE(zetaConflict, nullptr);
  EXPECT_EQ(zetaConflict->message,
            "Deployment api is handled by AttunePolicy broad (weight 100, the same as this "
            "policy's; its name sorts first)");
  EXPECT_EQ(condition(priority, kConditionPolicyConflict), nullptr);
  // zeta handles nothing: Ready says why rather than "matches no workload".
  const api::Condition* zetaReady = condition(zeta, api::kConditionReady);
  ASSERT_NE(zetaReady, nullptr);
  EXPECT_EQ(zetaReady->reason, "NoWorkloadsFound");
  EXPECT_NE(zetaReady->message.find("handled by another policy"), std::string::npos);
  // One Warning Event per yielding policy, on the policy, for a conflict that did not change.
  const auto broadEvents = conflictEvents(h, "broad");
  ASSERT_EQ(broadEvents.size(), 1u);
  EXPECT_EQ(broadEvents[0].type, "Warning");
  EXPECT_EQ(broadEvents[0].count, 1);
  EXPECT_EQ(broadEvents[0].message, broadConflict->message);
  EXPECT_EQ(conflictEvents(h, "zeta").size(), 1u);
  EXPECT_TRUE(conflictEvents(h, "web-priority").empty());

  // web-priority drops to weight 50: broad takes web over, and web-priority now yields to it.
  api::AttunePolicy lowered = h.policy("apps", "web-priority");
  lowered.spec.weight = 50;
  ASSERT_TRUE(h.sim().api().updateAttunePolicy(lowered).has_value());
  h.runMinutes(3);
  const api::AttunePolicy broadAfter = h.policy("apps", "broad");
  EXPECT_EQ(condition(broadAfter, kConditionPolicyConflict), nullptr);
  EXPECT_EQ(recommendedWorkloads(broadAfter), (std::vector<std::string>{"api", "web"}));
  const api::AttunePolicy priorityAfter = h.policy("apps", "web-priority");
  const api::Condition* priorityConflict = condition(priorityAfter, kConditionPolicyConflict);
  ASSERT_NE(priorityConflict, nullptr);

  EXPECT_EQ(priorityConflict->message,
            "Deployment web is handled by AttunePolicy broad (weight 100, this policy 50)");
  EXPECT_EQ(conflictEvents(h, "web-priority").size(), 1u);
}

}  // namespace
}  // namespace attune::controller::testing
