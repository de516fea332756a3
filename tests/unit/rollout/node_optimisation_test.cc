// Node optimisation (rollout/node_optimisation.h), rule by rule: what the rest of the node
// reserves, the proportional sharing of the largest headroom on a worked example, memory before
// CPU, the eviction order and its protections, the memory limit, the policy bounds, small moves
// left alone, the per-pod targets in the planner and the eviction ranking's sources.
#include "rollout/node_optimisation.h"

#include <gtest/gtest.h>

#include "rollout_testing.h"

namespace attune::rollout {
namespace {

using namespace testing;

recommend::CruisekubeDemand demand(Millicores cpuBase, Millicores cpuHeadroom, Bytes memoryBase,
                                   Bytes memoryHeadroom, Bytes memoryLimit = 2_Gi) {
  return {.cpuBase = cpuBase,
          .cpuHeadroom = cpuHeadroom,
          .memoryBase = memoryBase,
          .memoryHeadroom = memoryHeadroom,
          .memoryLimit = memoryLimit};
}

// A cluster of one node n1 and the pods the test adds.
class NodeOptimisationTest : public ::testing::Test {
 protected:
  NodeOptimisationTest() : policy_(policy(api::UpdateMode::kAuto)) {
    policy_.spec.memory.controlledValues = api::ControlledValues::kRequestsAndLimits;
    nodes_.push_back(node("n1", "4", "8Gi"));
  }

  // An optimised pod `name` of workload `workload` with one container "app" of `d`.
  OptimisedPod& optimised(const std::string& name, recommend::CruisekubeDemand d,
                          api::EvictionRanking ranking = api::EvictionRanking::kLow,
                          std::string workload = "web") {
    pods_.push_back(pod(name, resources("1", "1Gi", "", "2Gi")));
    input_.optimised.push_back(
        {.pod = &pods_.back(),
         .workload = api::workloadRef(api::WorkloadKind::kDeployment, "team", std::move(workload)),
         .workloadKind = api::TargetKind::kDeployment,
         .ranking = ranking,
         .evictable = true,
         .containers = {{.name = "app", .demand = d}},
         .policy = &policy_});
    return input_.optimised.back();
  }
  // A pod on n1 no policy optimises, requesting `cpu` and `memory`.
  void other(const std::string& name, std::string_view cpu, std::string_view memory) {
    pods_.push_back(pod(name, resources(cpu, memory)));
  }

  NodeOptimisation run() {
    input_.nodes = nodes_;
    podList_.assign(pods_.begin(), pods_.end());
    input_.pods = podList_;
    return optimiseNodes(input_);
  }

  static std::vector<std::string> evicted(const NodeOptimisation& o) {
    std::vector<std::string> out;
    for (const EvictAction& e : o.evictions) out.push_back(e.pod + ":" + e.cause);
    return out;
  }
  static api::ResourceValues targetOf(const NodeOptimisation& o, const std::string& pod,
                                      const std::string& container = "app") {
    return o.targets.at("team/" + pod).at(container);
  }

  api::AttunePolicy policy_;
  std::vector<api::Node> nodes_;
  std::deque<api::Pod> pods_;
  std::vector<api::Pod> podList_;
  NodeOptimisationInput input_;
};

TEST_F(NodeOptimisationTest, TheLargestHeadroomIsSharedInProportionToEachContainersHeadroom) {
  // Worked example: bases 500m, 200m, 100m; headrooms 300m, 100m, 200m. The largest headroom
  // (300m) is shared 300:100:200 of 600m: +150m, +50m, +100m.
  OptimisedPod& a = optimised("a", demand(500_m, 300_m, 256_Mi, 0_Mi));
  (void)a;
  OptimisedPod& b = optimised("b", demand(200_m, 100_m, 256_Mi, 0_Mi));
  b.containers.push_back({.name = "side", .demand = demand(100_m, 200_m, 256_Mi, 0_Mi)});
  addContainer(pods_.back(), "side", resources("1", "1Gi", "", "2Gi"));
  const NodeOptimisation o = run();
  EXPECT_TRUE(o.evictions.empty());
  EXPECT_EQ(targetOf(o, "a").cpuRequest, 650_m);
  EXPECT_EQ(targetOf(o, "b").cpuRequest, 250_m);
  EXPECT_EQ(targetOf(o, "b", "side").cpuRequest, 200_m);
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].plan.sharedCpuHeadroom, 300_m);
}

TEST_F(NodeOptimisationTest, OtherPodsRequestsAreReservedAndUnsizedContainersToo) {
  // 4 cores: another pod holds 3, the optimised pod's unsized sidecar 600m; 400m are left, and
  // 300m base + 200m headroom do not fit.
  other("db", "3", "1Gi");
  optimised("a", demand(300_m, 200_m, 256_Mi, 0_Mi));
  addContainer(pods_.back(), "sidecar", resources("600m", "64Mi"));
  const NodeOptimisation o = run();
  ASSERT_EQ(o.nodes.size(), 1u);
  EXPECT_EQ(o.nodes[0].plan.availableCpu, 400_m);
  EXPECT_EQ(evicted(o), std::vector<std::string>{"a:NodeCPUShortage"});
}

TEST_F(NodeOptimisationTest, APodOnAnotherNodeOrFinishedReservesNothing) {
  other("done", "3", "1Gi");
  pods_.back().status.phase = "Succeeded";
  other("elsewhere", "3", "1Gi");
  pods_.back().spec.nodeName = "n2";
  optimised("a", demand(300_m, 200_m, 256_Mi, 0_Mi));
  const NodeOptimisation o = run();
  EXPECT_TRUE(o.evictions.empty());
  EXPECT_EQ(o.nodes[0].plan.availableCpu, 4000_m);
}

TEST_F(NodeOptimisationTest, MemoryIsMadeToFitBeforeCpu) {
  // Memory does not fit (8Gi: 3 × 2Gi base + 3Gi headroom); CPU does not either (4 cores: 3 ×
  // 1200m + 600m). Evicting for memory comes first and its eviction (the one with the largest
  // memory headroom) also makes CPU fit.
  optimised("a", demand(1200_m, 600_m, 2_Gi, 1_Gi));
  optimised("b", demand(1200_m, 100_m, 2_Gi, 3_Gi));
  optimised("c", demand(1200_m, 100_m, 2_Gi, 512_Mi));
  const NodeOptimisation o = run();
  EXPECT_EQ(evicted(o), std::vector<std::string>{"b:NodeMemoryShortage"});
}

TEST_F(NodeOptimisationTest, EvictionFollowsTheRankingLowThenMediumThenHigh) {
  // Only one pod of 3 cores fits on 4 cores: two go, Low first, then Medium; High stays.
  optimised("high", demand(3000_m, 0_m, 256_Mi, 0_Mi), api::EvictionRanking::kHigh, "h");
  optimised("medium", demand(3000_m, 0_m, 256_Mi, 0_Mi), api::EvictionRanking::kMedium, "m");
  optimised("low", demand(3000_m, 0_m, 256_Mi, 0_Mi), api::EvictionRanking::kLow, "l");
  const NodeOptimisation o = run();
  EXPECT_EQ(evicted(o),
            (std::vector<std::string>{"low:NodeCPUShortage", "medium:NodeCPUShortage"}));
  EXPECT_TRUE(o.targets.contains("team/high"));
  EXPECT_FALSE(o.targets.contains("team/low"));
}

TEST_F(NodeOptimisationTest, TiesGoToTheLargerHeadroom) {
  optimised("small", demand(1500_m, 100_m, 256_Mi, 0_Mi));
  optimised("large", demand(1500_m, 900_m, 256_Mi, 0_Mi));
  optimised("mid", demand(1500_m, 500_m, 256_Mi, 0_Mi));
  const NodeOptimisation o = run();
  EXPECT_EQ(evicted(o), std::vector<std::string>{"large:NodeCPUShortage"});
}

TEST_F(NodeOptimisationTest, DaemonSetsNoEvictionAndPodsNotEvictableAreNeverEvicted) {
  OptimisedPod& ds = optimised("ds", demand(3000_m, 0_m, 256_Mi, 0_Mi));
  ds.workloadKind = api::TargetKind::kDaemonSet;
  optimised("pinned", demand(3000_m, 0_m, 256_Mi, 0_Mi), api::EvictionRanking::kNoEviction);
  OptimisedPod& observed = optimised("observed", demand(3000_m, 0_m, 256_Mi, 0_Mi));
  observed.evictable = false;
  const NodeOptimisation o = run();
  EXPECT_TRUE(o.evictions.empty());
  EXPECT_FALSE(o.nodes[0].plan.cpuFits);
}

TEST_F(NodeOptimisationTest, ANodeThatStillDoesNotFitGetsNoIncreaseOfThatResource) {
  // 2 × 3 cores on 4, neither evictable: CPU stays at the 1 core requested (no increase the
  // kubelet could only defer); memory fits and moves.
  optimised("a", demand(3000_m, 0_m, 512_Mi, 0_Mi), api::EvictionRanking::kNoEviction);
  optimised("b", demand(3000_m, 0_m, 512_Mi, 0_Mi), api::EvictionRanking::kNoEviction);
  const NodeOptimisation o = run();
  EXPECT_EQ(targetOf(o, "a").cpuRequest, 1000_m);
  EXPECT_EQ(targetOf(o, "a").memoryRequest, 512_Mi);
}

TEST_F(NodeOptimisationTest, TheMemoryLimitIsTheDemandsWithinTheBounds) {
  optimised("a", demand(500_m, 0_m, 1_Gi, 0_Mi, 3_Gi));
  EXPECT_EQ(targetOf(run(), "a").memoryLimit, 3_Gi);
  policy_.spec.memory.maxAllowed = 2_Gi;
  EXPECT_EQ(targetOf(run(), "a").memoryLimit, 2_Gi);
}

TEST_F(NodeOptimisationTest, RequestsAreClampedToThePolicyBounds) {
  policy_.spec.cpu.minAllowed = 700_m;
  policy_.spec.memory.maxAllowed = 600_Mi;
  optimised("a", demand(500_m, 0_m, 700_Mi, 0_Mi));
  const NodeOptimisation o = run();
  EXPECT_EQ(targetOf(o, "a").cpuRequest, 700_m);
  EXPECT_EQ(targetOf(o, "a").memoryRequest, 600_Mi);
}

TEST_F(NodeOptimisationTest, AMoveSmallerThanTenPercentKeepsTheCurrentValue) {
  // The pod requests 1 core and 1Gi: 950m stays 1; 800m moves.
  optimised("a", demand(950_m, 0_m, 800_Mi, 0_Mi));
  const NodeOptimisation o = run();
  EXPECT_EQ(targetOf(o, "a").cpuRequest, 1000_m);
  EXPECT_EQ(targetOf(o, "a").memoryRequest, 800_Mi);
}

TEST_F(NodeOptimisationTest, ANodeWithoutAllocatableIsNotOptimised) {
  nodes_[0].status.allocatable.memory.reset();
  optimised("a", demand(500_m, 0_m, 1_Gi, 0_Mi));
  const NodeOptimisation o = run();
  EXPECT_TRUE(o.targets.empty());
  EXPECT_TRUE(o.nodes.empty());
}

TEST(NodeOptimisationRanking, AnnotationThenPolicyThenTheDefault) {
  api::AttunePolicy p = policy(api::UpdateMode::kAuto);
  api::ObjectMeta w;
  w.name = "web";
  EXPECT_EQ(evictionRanking(w, p, api::TargetKind::kDeployment, 3), api::EvictionRanking::kLow);
  EXPECT_EQ(evictionRanking(w, p, api::TargetKind::kDeployment, 1), api::EvictionRanking::kMedium);
  EXPECT_EQ(evictionRanking(w, p, api::TargetKind::kStatefulSet, 3), api::EvictionRanking::kMedium);
  p.spec.nodeOptimization =
      api::NodeOptimization{.enabled = true, .evictionRanking = api::EvictionRanking::kHigh};
  EXPECT_EQ(evictionRanking(w, p, api::TargetKind::kDeployment, 3), api::EvictionRanking::kHigh);
  w.annotations[std::string(kEvictionRankingAnnotation)] = "NoEviction";
  EXPECT_EQ(evictionRanking(w, p, api::TargetKind::kDeployment, 3),
            api::EvictionRanking::kNoEviction);
  w.annotations[std::string(kEvictionRankingAnnotation)] = "never";
  const auto bad = evictionRanking(w, p, api::TargetKind::kDeployment, 3);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("\"never\" is not one of"), std::string::npos);
}

TEST(NodeOptimisationPlanner, EachPodGetsItsOwnTargetsAndAPodWithoutNoneIsLeftAlone) {
  const auto p = policy(api::UpdateMode::kAuto);
  auto pods = testing::pods(3);
  WorkloadInput w = web(pods);
  w.targets.clear();
  w.perPodTargets = true;
  w.podTargets["web-0"]["app"] = target(300_m, 384_Mi);
  w.podTargets["web-1"]["app"] = target(200_m, 256_Mi);
  RolloutInput in;
  in.workloads.push_back(w);
  const Plan plan = planRollout(p, in, t0());
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-0", "web-1"}));
  const auto actions = plan.all<ResizeAction>();
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0]->containers[0].resources.requests.cpu->toMillicores(), 300_m);
  EXPECT_EQ(actions[1]->containers[0].resources.requests.cpu->toMillicores(), 200_m);
}

TEST(NodeOptimisationPlanner, TheCpuLimitStaysAndTheMemoryLimitComesFromTheTarget) {
  auto p = policy(api::UpdateMode::kAuto);
  p.spec.cpu.controlledValues = api::ControlledValues::kRequestsAndLimits;
  p.spec.memory.controlledValues = api::ControlledValues::kRequestsAndLimits;
  const api::Pod pod = testing::pod("web-0", resources("500m", "512Mi", "1", "1Gi"));
  ContainerTargets t;
  t["app"] = target(300_m, 384_Mi);
  t["app"].memoryLimit = 1536_Mi;
  const auto changes = podChanges(pod, t, p, LimitRule::kNodeOptimisation);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].target.cpuRequest, 300_m);
  EXPECT_EQ(changes[0].target.cpuLimit, 1000_m);  // kept: no CPU limit is set
  EXPECT_EQ(changes[0].target.memoryRequest, 384_Mi);
  EXPECT_EQ(changes[0].target.memoryLimit, 1536_Mi);
  // Under memory RequestsOnly the memory limit stays.
  p.spec.memory.controlledValues = api::ControlledValues::kRequestsOnly;
  EXPECT_EQ(podChanges(pod, t, p, LimitRule::kNodeOptimisation)[0].target.memoryLimit, 1_Gi);
}

}  // namespace
}  // namespace attune::rollout
