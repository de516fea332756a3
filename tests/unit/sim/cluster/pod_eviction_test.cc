// The eviction subresource through PodDisruptionBudgets (sim/cluster/pod_eviction.h), with the
// budgets' status set by hand as the disruption controller would have left it.
#include "sim/cluster/pod_eviction.h"

#include <gtest/gtest.h>

#include "pod_builder.h"
#include "sim/cluster/cluster.h"

namespace attune::sim {
namespace {

using testing::PodBuilder;

class PodEvictionTest : public ::testing::Test {
 protected:
  // Pod "shop/<name>" labelled app=web, Running, Ready unless `ready` is false.
  void addPod(const std::string& name, bool ready = true, std::string phase = "Running") {
    PodBuilder builder = PodBuilder("shop", name).label("app", "web").phase(std::move(phase));
    if (ready) builder = builder.ready(clock_.now());
    ASSERT_TRUE(state_.createPod(builder.build()));
  }

  // A budget over app=web, computed for its generation, with the given counts.
  void addBudget(const std::string& name, std::int32_t allowed, std::int32_t currentHealthy = 3,
                 std::int32_t desiredHealthy = 3, std::string policy = "") {
    api::PodDisruptionBudget pdb;
    pdb.metadata.namespace_ = "shop";
    pdb.metadata.name = name;
    pdb.spec.minAvailable = api::IntOrString::ofInt(desiredHealthy);
    pdb.spec.selector.emplace().matchLabels["app"] = "web";
    pdb.spec.unhealthyPodEvictionPolicy = std::move(policy);
    auto created = state_.pdbs.create(pdb);
    ASSERT_TRUE(created);
    ASSERT_TRUE(state_.pdbs.modify("shop", name, "", [&](api::PodDisruptionBudget& p) {
      p.status.observedGeneration = p.metadata.generation;
      p.status.disruptionsAllowed = allowed;
      p.status.currentHealthy = currentHealthy;
      p.status.desiredHealthy = desiredHealthy;
      p.status.expectedPods = currentHealthy;
      return Change::kMetadata;
    }));
  }

  Result<void> evict(const std::string& name, bool dryRun = false) {
    api::Eviction eviction;
    eviction.metadata.namespace_ = "shop";
    eviction.metadata.name = name;
    if (dryRun) eviction.deleteOptions = api::DeleteOptions{.dryRun = {"All"}};
    return cluster_.evictPod(eviction);
  }

  bool exists(const std::string& name) { return state_.pods.find("shop", name) != nullptr; }
  const api::PdbStatus& budget(const std::string& name) {
    return state_.pdbs.find("shop", name)->status;
  }

  SimulatedClock clock_{*parseRfc3339("2026-01-05T10:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(PodEvictionTest, AnAllowedEvictionTakesADisruptionAndRecordsThePod) {
  addPod("web-a");
  addBudget("web", 1, 4, 3);
  ASSERT_TRUE(evict("web-a"));
  EXPECT_FALSE(exists("web-a"));
  EXPECT_EQ(state_.evictions().size(), 1u);
  EXPECT_EQ(budget("web").disruptionsAllowed, 0);
  ASSERT_EQ(budget("web").disruptedPods.size(), 1u);
  EXPECT_EQ(budget("web").disruptedPods[0].name, "web-a");
  EXPECT_EQ(budget("web").disruptedPods[0].at, clock_.now());
}

TEST_F(PodEvictionTest, ABudgetWithoutDisruptionsAnswersTooManyRequestsAndThePodStays) {
  addPod("web-a");
  addBudget("web", 0, 3, 3);
  const std::string before = state_.pdbs.find("shop", "web")->metadata.resourceVersion;
  auto refused = evict("web-a");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kDisruptionBudget);
  EXPECT_EQ(refused.error().message,
            "Cannot evict pod as it would violate the pod's disruption budget. The disruption "
            "budget web needs 3 healthy pods and has 3 currently");
  EXPECT_EQ(api::disruptionBudgetCause(refused.error()),
            "The disruption budget web needs 3 healthy pods and has 3 currently");
  EXPECT_TRUE(exists("web-a"));
  EXPECT_TRUE(state_.evictions().empty());
  EXPECT_EQ(state_.pdbs.find("shop", "web")->metadata.resourceVersion, before);
}

TEST_F(PodEvictionTest, ABudgetNotYetComputedForItsGenerationRefuses) {
  addPod("web-a");
  addBudget("web", 2, 5, 3);
  ASSERT_TRUE(state_.pdbs.modify("shop", "web", "", [](api::PodDisruptionBudget& p) {
    p.spec.minAvailable = api::IntOrString::ofInt(2);
    return Change::kSpec;  // generation 2, status still for 1
  }));
  auto refused = evict("web-a");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kDisruptionBudget);
  EXPECT_EQ(api::disruptionBudgetCause(refused.error()),
            "The disruption budget web is still being processed by the server.");
  EXPECT_TRUE(exists("web-a"));
}

TEST_F(PodEvictionTest, TwoBudgetsOverOnePodAreAServerError) {
  addPod("web-a");
  addBudget("web", 1, 4, 3);
  addBudget("web-too", 1, 4, 3);
  auto refused = evict("web-a");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kInternal);
  EXPECT_EQ(refused.error().message,
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does "
            "not support.");
  EXPECT_TRUE(exists("web-a"));
  EXPECT_EQ(budget("web").disruptionsAllowed, 1);
}

TEST_F(PodEvictionTest, BudgetsWithAnEmptySelectorOrOtherLabelsDoNotApply) {
  addPod("web-a");
  api::PodDisruptionBudget everything;
  everything.metadata = {.name = "all", .namespace_ = "shop"};
  everything.spec.selector.emplace();
  ASSERT_TRUE(state_.pdbs.create(everything));
  api::PodDisruptionBudget other = everything;
  other.metadata.name = "db";
  other.spec.selector->matchLabels["app"] = "db";
  ASSERT_TRUE(state_.pdbs.create(other));
  EXPECT_TRUE(budgetsOfEvictedPod(state_, *state_.pods.find("shop", "web-a")).empty());
  ASSERT_TRUE(evict("web-a"));
  EXPECT_FALSE(exists("web-a"));
}

TEST_F(PodEvictionTest, TerminalAndPendingPodsGoWithoutABudgetCheck) {
  addPod("done", false, "Succeeded");
  addPod("failed", false, "Failed");
  addPod("waiting", false, "Pending");
  addBudget("web", 0, 2, 3);  // disrupted: an unready running pod would be refused
  EXPECT_TRUE(evict("done"));
  EXPECT_TRUE(evict("failed"));
  EXPECT_TRUE(evict("waiting"));
  EXPECT_EQ(state_.evictions().size(), 3u);
  EXPECT_TRUE(budget("web").disruptedPods.empty());
}

TEST_F(PodEvictionTest, AnUnreadyPodGoesFreeWhileTheApplicationIsHealthy) {
  addPod("web-a", /*ready=*/false);
  addBudget("web", 0, 3, 3);  // IfHealthyBudget (unset): currentHealthy >= desiredHealthy > 0
  ASSERT_TRUE(evict("web-a"));
  EXPECT_FALSE(exists("web-a"));
  EXPECT_EQ(budget("web").disruptionsAllowed, 0);
  EXPECT_TRUE(budget("web").disruptedPods.empty());
}

TEST_F(PodEvictionTest, AnUnreadyPodOfADisruptedApplicationNeedsTheBudgetUnlessAlwaysAllow) {
  addPod("web-a", /*ready=*/false);
  addBudget("web", 0, 2, 3, std::string(api::kIfHealthyBudget));
  auto refused = evict("web-a");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kDisruptionBudget);
  EXPECT_TRUE(exists("web-a"));

  ASSERT_TRUE(state_.pdbs.modify("shop", "web", "", [](api::PodDisruptionBudget& p) {
    p.spec.unhealthyPodEvictionPolicy = std::string(api::kAlwaysAllow);
    p.status.observedGeneration = p.metadata.generation + 1;  // the spec write below
    return Change::kSpec;
  }));
  ASSERT_TRUE(evict("web-a"));
  EXPECT_FALSE(exists("web-a"));
  EXPECT_EQ(budget("web").disruptionsAllowed, 0);
}

TEST_F(PodEvictionTest, AReadyPodUsesTheBudgetWhateverThePolicy) {
  addPod("web-a");
  addBudget("web", 0, 3, 3, std::string(api::kAlwaysAllow));
  auto refused = evict("web-a");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kDisruptionBudget);
}

TEST_F(PodEvictionTest, ADryRunChecksTheBudgetAndChangesNothing) {
  addPod("web-a");
  addBudget("web", 1, 4, 3);
  ASSERT_TRUE(evict("web-a", /*dryRun=*/true));
  EXPECT_TRUE(exists("web-a"));
  EXPECT_EQ(budget("web").disruptionsAllowed, 1);
  EXPECT_TRUE(budget("web").disruptedPods.empty());
  ASSERT_TRUE(state_.pdbs.modify("shop", "web", "", [](api::PodDisruptionBudget& p) {
    p.status.disruptionsAllowed = 0;
    return Change::kMetadata;
  }));
  auto refused = evict("web-a", /*dryRun=*/true);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kDisruptionBudget);
}

TEST_F(PodEvictionTest, TheKubeletsEvictionIgnoresBudgets) {
  addPod("web-a");
  addBudget("web", 0, 3, 3);
  ASSERT_TRUE(state_.evictPod("shop", "web-a"));
  EXPECT_FALSE(exists("web-a"));
}

}  // namespace
}  // namespace attune::sim
