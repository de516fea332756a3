// The simulated disruption controller: the budget arithmetic (int and percent, rounding up),
// and PodDisruptionBudget status kept over workloads run by the ControlPlane.
#include "sim/control/disruption_controller.h"

#include <gtest/gtest.h>

#include <ranges>

#include "control_builders.h"
#include "core/clock.h"
#include "sim/cluster/cluster.h"
#include "sim/control/control_plane.h"

namespace attune::sim {
namespace {

using api::IntOrString;
using testing::fixedTime;
using testing::podTemplate;
using testing::readyNode;

api::PdbSpec minAvailable(IntOrString value) { return {.minAvailable = std::move(value)}; }
api::PdbSpec maxUnavailable(IntOrString value) { return {.maxUnavailable = std::move(value)}; }

// A scale source that must not be asked.
Result<std::int32_t> noScale() { return fail(ErrorCode::kInternal, "scale asked"); }

TEST(HealthTarget, IntegerMinAvailableCountsTheSelectedPods) {
  EXPECT_EQ(healthTarget(minAvailable(IntOrString::ofInt(2)), 5, noScale), (HealthTarget{5, 2}));
}

TEST(HealthTarget, PercentMinAvailableRoundsUpOnTheControllersScale) {
  auto scale = [] { return Result<std::int32_t>(5); };
  EXPECT_EQ(healthTarget(minAvailable(IntOrString::ofString("50%")), 3, scale),
            (HealthTarget{5, 3}));  // 2.5 → 3
  EXPECT_EQ(healthTarget(minAvailable(IntOrString::ofString("21%")), 3, scale),
            (HealthTarget{5, 2}));  // 1.05 → 2
}

TEST(HealthTarget, MaxUnavailableRoundsUpWhatMayBeUnavailable) {
  auto scale = [] { return Result<std::int32_t>(5); };
  EXPECT_EQ(healthTarget(maxUnavailable(IntOrString::ofInt(1)), 5, scale), (HealthTarget{5, 4}));
  EXPECT_EQ(healthTarget(maxUnavailable(IntOrString::ofString("25%")), 5, scale),
            (HealthTarget{5, 3}));  // 1.25 → 2 unavailable
  EXPECT_EQ(healthTarget(maxUnavailable(IntOrString::ofInt(9)), 5, scale), (HealthTarget{5, 0}));
}

TEST(HealthTarget, NoBudgetAndErrors) {
  EXPECT_EQ(healthTarget({}, 4, noScale), (HealthTarget{0, 0}));
  EXPECT_FALSE(healthTarget(maxUnavailable(IntOrString::ofInt(1)), 4, noScale));
  EXPECT_FALSE(healthTarget(minAvailable(IntOrString::ofString("half")), 4,
                            [] { return Result<std::int32_t>(4); }));
}

TEST(DisruptionsAllowed, HealthyAboveDesiredAndNeverNegative) {
  EXPECT_EQ(disruptionsAllowed(5, {5, 3}), 2);
  EXPECT_EQ(disruptionsAllowed(2, {5, 3}), 0);
  EXPECT_EQ(disruptionsAllowed(3, {0, 0}), 0);  // no expected pods yet: safe
}

class DisruptionControllerTest : public ::testing::Test {
 protected:
  DisruptionControllerTest() {
    EXPECT_TRUE(state_.nodes.create(readyNode("node-a", "16", "32Gi")));
  }

  void tick() { controlPlane_.tick(state_, clock_.now()); }

  void addDeployment(const std::string& name, std::int32_t replicas) {
    api::Deployment d;
    d.metadata = {.name = name, .namespace_ = "team"};
    d.spec.replicas = replicas;
    d.spec.selector.matchLabels["app"] = name;
    d.spec.template_ = podTemplate(name, "app:1");
    ASSERT_TRUE(state_.deployments.create(d));
  }

  // Marks the first `count` pods labelled app=<app> Running and Ready (as the kubelet would).
  void makeReady(const std::string& app, std::size_t count) {
    api::ListOptions options{.namespace_ = "team"};
    options.labelSelector.matchLabels["app"] = app;
    const auto pods = state_.pods.list(options);
    ASSERT_GE(pods.size(), count);
    for (std::size_t i = 0; i < count; ++i) {
      ASSERT_TRUE(state_.pods.modify("team", pods[i].metadata.name, "", [](api::Pod& p) {
        p.status.phase = "Running";
        p.status.conditions = {{"Ready", "True", "", "", {}, 0}};
        return Change::kMetadata;
      }));
    }
  }

  void addBudget(const std::string& app, api::PdbSpec spec) {
    api::PodDisruptionBudget pdb;
    pdb.metadata = {.name = app, .namespace_ = "team"};
    pdb.spec = std::move(spec);
    pdb.spec.selector.emplace().matchLabels["app"] = app;
    ASSERT_TRUE(state_.pdbs.create(pdb));
  }

  const api::PodDisruptionBudget& budget(const std::string& name) {
    return *state_.pdbs.find("team", name);
  }

  Result<void> evict(const std::string& pod) {
    api::Eviction eviction;
    eviction.metadata = {.name = pod, .namespace_ = "team"};
    return cluster_.evictPod(eviction);
  }

  SimulatedClock clock_{fixedTime()};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
  ControlPlane controlPlane_;
};

TEST_F(DisruptionControllerTest, StatusFollowsTheReadyPodsOfADeployment) {
  addDeployment("web", 4);
  addBudget("web", maxUnavailable(IntOrString::ofInt(1)));
  tick();
  makeReady("web", 3);
  tick();
  const api::PdbStatus* s = &budget("web").status;
  EXPECT_EQ(s->expectedPods, 4);
  EXPECT_EQ(s->desiredHealthy, 3);
  EXPECT_EQ(s->currentHealthy, 3);
  EXPECT_EQ(s->disruptionsAllowed, 0);
  EXPECT_EQ(s->observedGeneration, budget("web").metadata.generation);
  const api::Condition* allowed = api::findCondition(s->conditions, "DisruptionAllowed");
  ASSERT_NE(allowed, nullptr);
  EXPECT_EQ(allowed->status, "False");
  EXPECT_EQ(allowed->reason, "InsufficientPods");

  makeReady("web", 4);
  tick();
  s = &budget("web").status;
  EXPECT_EQ(s->currentHealthy, 4);
  EXPECT_EQ(s->disruptionsAllowed, 1);
  allowed = api::findCondition(s->conditions, "DisruptionAllowed");
  EXPECT_EQ(allowed->status, "True");
  EXPECT_EQ(allowed->reason, "SufficientPods");
}

TEST_F(DisruptionControllerTest, APercentIsOfTheControllersScaleAnIntegerOfTheSelectedPods) {
  addDeployment("web", 5);
  tick();
  makeReady("web", 5);
  // Two of the five pods carry canary=yes; the budgets select only those.
  for (const api::Pod& pod : state_.pods.list({}) | std::views::take(2)) {
    ASSERT_TRUE(state_.pods.modify("team", pod.metadata.name, "", [](api::Pod& p) {
      p.metadata.labels["canary"] = "yes";
      return Change::kMetadata;
    }));
  }
  addBudget("web", minAvailable(IntOrString::ofString("50%")));
  addBudget("fixed", minAvailable(IntOrString::ofInt(1)));
  for (const char* name : {"web", "fixed"}) {
    ASSERT_TRUE(state_.pdbs.modify("team", name, "", [](api::PodDisruptionBudget& p) {
      p.spec.selector->matchLabels = {{"app", "web"}, {"canary", "yes"}};
      return Change::kSpec;
    }));
  }
  tick();
  const api::PdbStatus& percent = budget("web").status;
  EXPECT_EQ(percent.expectedPods, 5);    // the Deployment's replicas
  EXPECT_EQ(percent.desiredHealthy, 3);  // 2.5 → 3
  EXPECT_EQ(percent.currentHealthy, 2);  // the selected Ready pods
  EXPECT_EQ(percent.disruptionsAllowed, 0);
  const api::PdbStatus& fixed = budget("fixed").status;
  EXPECT_EQ(fixed.expectedPods, 2);  // the selected pods
  EXPECT_EQ(fixed.desiredHealthy, 1);
  EXPECT_EQ(fixed.disruptionsAllowed, 1);
}

TEST_F(DisruptionControllerTest, APercentOverPodsWithoutAScaleFailsSafe) {
  api::DaemonSet ds;
  ds.metadata = {.name = "agent", .namespace_ = "team"};
  ds.spec.selector.matchLabels["app"] = "agent";
  ds.spec.template_ = podTemplate("agent", "agent:1");
  ASSERT_TRUE(state_.daemonSets.create(ds));
  addBudget("agent", maxUnavailable(IntOrString::ofString("10%")));
  tick();
  makeReady("agent", 1);
  tick();
  const api::PdbStatus& s = budget("agent").status;
  EXPECT_EQ(s.disruptionsAllowed, 0);
  EXPECT_EQ(s.observedGeneration, 0);
  const api::Condition* allowed = api::findCondition(s.conditions, "DisruptionAllowed");
  ASSERT_NE(allowed, nullptr);
  EXPECT_EQ(allowed->reason, "SyncFailed");
  EXPECT_NE(allowed->message.find("found no controllers for pod"), std::string::npos);
}

TEST_F(DisruptionControllerTest, AnIntegerMinAvailableNeedsNoScale) {
  api::DaemonSet ds;
  ds.metadata = {.name = "agent", .namespace_ = "team"};
  ds.spec.selector.matchLabels["app"] = "agent";
  ds.spec.template_ = podTemplate("agent", "agent:1");
  ASSERT_TRUE(state_.daemonSets.create(ds));
  addBudget("agent", minAvailable(IntOrString::ofInt(0)));
  tick();
  makeReady("agent", 1);
  tick();
  EXPECT_EQ(budget("agent").status.expectedPods, 1);
  EXPECT_EQ(budget("agent").status.disruptionsAllowed, 1);
}

TEST_F(DisruptionControllerTest, AnEvictedPodStaysDisruptedUntilItIsGone) {
  addDeployment("web", 3);
  addBudget("web", minAvailable(IntOrString::ofInt(1)));
  tick();
  makeReady("web", 3);
  tick();
  ASSERT_EQ(budget("web").status.disruptionsAllowed, 2);
  const std::string victim = state_.pods.list({})[0].metadata.name;
  ASSERT_TRUE(evict(victim));
  EXPECT_EQ(budget("web").status.disruptionsAllowed, 1);
  ASSERT_EQ(budget("web").status.disruptedPods.size(), 1u);
  tick();  // the pod is gone: its entry goes, the replacement is not Ready yet
  EXPECT_TRUE(budget("web").status.disruptedPods.empty());
  EXPECT_EQ(budget("web").status.currentHealthy, 2);
  EXPECT_EQ(budget("web").status.disruptionsAllowed, 1);
}

TEST_F(DisruptionControllerTest, ADisruptedPodThatStaysIsNotHealthyForTwoMinutes) {
  addDeployment("web", 3);
  addBudget("web", minAvailable(IntOrString::ofInt(1)));
  tick();
  makeReady("web", 3);
  tick();
  const std::string pod = state_.pods.list({})[0].metadata.name;
  // The eviction's record without the deletion (as when the delete has not happened yet).
  ASSERT_TRUE(state_.pdbs.modify("team", "web", "", [&](api::PodDisruptionBudget& p) {
    p.status.disruptedPods.push_back({pod, clock_.now()});
    --p.status.disruptionsAllowed;
    return Change::kMetadata;
  }));
  clock_.advance(std::chrono::seconds(119));
  tick();
  EXPECT_EQ(budget("web").status.disruptedPods.size(), 1u);
  EXPECT_EQ(budget("web").status.currentHealthy, 2);
  clock_.advance(std::chrono::seconds(1));
  tick();
  EXPECT_TRUE(budget("web").status.disruptedPods.empty());
  EXPECT_EQ(budget("web").status.currentHealthy, 3);
  EXPECT_EQ(budget("web").status.disruptionsAllowed, 2);
}

TEST_F(DisruptionControllerTest, ABudgetWithoutSelectorSelectsNothing) {
  addDeployment("web", 2);
  api::PodDisruptionBudget pdb;
  pdb.metadata = {.name = "none", .namespace_ = "team"};
  pdb.spec = minAvailable(IntOrString::ofInt(1));
  ASSERT_TRUE(state_.pdbs.create(pdb));
  tick();
  makeReady("web", 2);
  tick();
  EXPECT_EQ(budget("none").status.expectedPods, 0);
  EXPECT_EQ(budget("none").status.currentHealthy, 0);
  EXPECT_EQ(budget("none").status.disruptionsAllowed, 0);
}

}  // namespace
}  // namespace attune::sim
