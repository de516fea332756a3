#include "recommend/headroom_planner.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace attune::recommend {
namespace {

using namespace attune::literals;
using api::TargetKind;

ContainerDemand container(std::string name, std::int64_t cpuBase, std::int64_t cpuHeadroom,
                          Bytes memoryBase, Bytes memoryHeadroom) {
  return {std::move(name), Millicores(cpuBase), Millicores(cpuHeadroom), memoryBase,
          memoryHeadroom};
}

PodDemand pod(std::string name, TargetKind kind, EvictionRanking ranking,
              std::vector<ContainerDemand> containers) {
  return {std::move(name), kind, ranking, std::move(containers)};
}

// A one-container Deployment pod.
PodDemand simple(std::string name, EvictionRanking ranking, std::int64_t cpuBase,
                 std::int64_t cpuHeadroom, Bytes memoryBase, Bytes memoryHeadroom,
                 TargetKind kind = TargetKind::kDeployment) {
  return pod(name, kind, ranking,
             {container(name + "-c", cpuBase, cpuHeadroom, memoryBase, memoryHeadroom)});
}

std::vector<std::string> evicted(const NodePlan& plan) {
  std::vector<std::string> out;
  for (const Eviction& e : plan.evictions) out.push_back(e.pod);
  return out;
}

TEST(HeadroomPlannerTest, FitsAndSharesMaxHeadroomProportionally) {
  const std::vector<PodDemand> pods = {
      pod("p1", TargetKind::kDeployment, EvictionRanking::kLow,
          {container("c1", 500, 300, 1_Gi, 512_Mi), container("c2", 200, 100, 256_Mi, 256_Mi)}),
      simple("p2", EvictionRanking::kLow, 1000, 600, 2_Gi, 1_Gi)};
  const NodeCapacity node{.allocatableCpu = 4000_m,
                          .allocatableMemory = 8_Gi,
                          .reservedCpu = 500_m,
                          .reservedMemory = 1_Gi};
  const NodePlan plan = HeadroomPlanner().plan(node, pods);
  EXPECT_TRUE(plan.memoryFits);
  EXPECT_TRUE(plan.cpuFits);
  EXPECT_TRUE(plan.evictions.empty());
  EXPECT_EQ(plan.availableCpu, 3500_m);
  EXPECT_EQ(plan.availableMemory, 7_Gi);
  EXPECT_EQ(plan.sharedCpuHeadroom, 600_m);
  EXPECT_EQ(plan.sharedMemoryHeadroom, 1_Gi);

  // CPU: max 600 over total 1000 → 300 → 180, 100 → 60, 600 → 360.
  // Memory: max 1Gi over total 1792Mi, shares rounded down.
  const std::int64_t gi = (1_Gi).value();
  const std::int64_t total = (512_Mi + 256_Mi + 1_Gi).value();
  ASSERT_EQ(plan.containers.size(), 3u);
  EXPECT_EQ(plan.containers[0].pod, "p1");
  EXPECT_EQ(plan.containers[0].container, "c1");
  EXPECT_EQ(plan.containers[0].cpuRequest, 680_m);
  EXPECT_EQ(plan.containers[0].memoryRequest, 1_Gi + Bytes(gi * (512_Mi).value() / total));
  EXPECT_EQ(plan.containers[1].cpuRequest, 260_m);
  EXPECT_EQ(plan.containers[1].memoryRequest, 256_Mi + Bytes(gi * (256_Mi).value() / total));
  EXPECT_EQ(plan.containers[2].pod, "p2");
  EXPECT_EQ(plan.containers[2].cpuRequest, 1360_m);
  EXPECT_EQ(plan.containers[2].memoryRequest, 2_Gi + Bytes(gi * gi / total));
  // The node's total never exceeds sum(base) + max(headroom).
  Bytes sum;
  for (const ContainerPlan& c : plan.containers) sum += c.memoryRequest;
  EXPECT_LE(sum, 1_Gi + 256_Mi + 2_Gi + 1_Gi);
}

TEST(HeadroomPlannerTest, EvictsMemoryFirstThenCpuInRankingOrder) {
  const std::vector<PodDemand> pods = {
      // Low and the largest headroom, but a DaemonSet: never evicted.
      simple("ds", EvictionRanking::kLow, 500, 1000, 1_Gi, 3_Gi, TargetKind::kDaemonSet),
      simple("keep", EvictionRanking::kNoEviction, 500, 100, 1_Gi, 2_Gi),
      simple("high", EvictionRanking::kHigh, 500, 100, 1_Gi, 1_Gi),
      simple("medium", EvictionRanking::kMedium, 500, 100, 1_Gi, 1_Gi),
      simple("lowSmall", EvictionRanking::kLow, 500, 100, 1_Gi, 512_Mi),
      simple("lowBig", EvictionRanking::kLow, 500, 100, 1_Gi, 1_Gi),
  };
  // Memory: 6Gi + 3Gi > 7Gi → lowBig (larger headroom) → 5+3 > 7 → lowSmall → 4+3 fits.
  // CPU: 2000 + 1000 > 2600 → medium (before high) → 1500 + 1000 fits.
  const NodeCapacity node{.allocatableCpu = 2600_m, .allocatableMemory = 7_Gi};
  const NodePlan plan = HeadroomPlanner().plan(node, pods);
  EXPECT_EQ(evicted(plan), (std::vector<std::string>{"lowBig", "lowSmall", "medium"}));
  EXPECT_EQ(plan.evictions[0].shortage, Resource::kMemory);
  EXPECT_EQ(plan.evictions[1].shortage, Resource::kMemory);
  EXPECT_EQ(plan.evictions[2].shortage, Resource::kCpu);
  EXPECT_TRUE(plan.memoryFits);
  EXPECT_TRUE(plan.cpuFits);
  ASSERT_EQ(plan.containers.size(), 3u);
  EXPECT_EQ(plan.containers[0].pod, "ds");
  EXPECT_EQ(plan.containers[1].pod, "keep");
  EXPECT_EQ(plan.containers[2].pod, "high");
}

TEST(HeadroomPlannerTest, CpuTieBrokenByLargerCpuHeadroom) {
  const std::vector<PodDemand> pods = {
      simple("a", EvictionRanking::kMedium, 1000, 200, 1_Gi, 0_B),
      simple("b", EvictionRanking::kMedium, 1000, 700, 1_Gi, 0_B),
      simple("c", EvictionRanking::kHigh, 1000, 900, 1_Gi, 0_B),
  };
  // 3000 + 900 > 3500 → b (Medium, larger CPU headroom than a) → 2000 + 900 fits.
  const NodePlan plan =
      HeadroomPlanner().plan({.allocatableCpu = 3500_m, .allocatableMemory = 8_Gi}, pods);
  EXPECT_EQ(evicted(plan), std::vector<std::string>{"b"});
  EXPECT_EQ(plan.evictions[0].shortage, Resource::kCpu);
}

TEST(HeadroomPlannerTest, NeverEvictsDaemonSetsOrNoEviction) {
  const std::vector<PodDemand> pods = {
      simple("ds", EvictionRanking::kLow, 100, 0, 2_Gi, 1_Gi, TargetKind::kDaemonSet),
      simple("keep", EvictionRanking::kNoEviction, 100, 0, 2_Gi, 1_Gi)};
  const NodePlan plan =
      HeadroomPlanner().plan({.allocatableCpu = 1000_m, .allocatableMemory = 4_Gi}, pods);
  EXPECT_TRUE(plan.evictions.empty());
  EXPECT_FALSE(plan.memoryFits);
  EXPECT_TRUE(plan.cpuFits);
  EXPECT_EQ(plan.containers.size(), 2u);
}

TEST(HeadroomPlannerTest, NoHeadroomMeansBaseOnly) {
  const std::vector<PodDemand> pods = {simple("a", EvictionRanking::kLow, 100, 0, 1_Mi, 0_B)};
  const NodePlan plan =
      HeadroomPlanner().plan({.allocatableCpu = 1000_m, .allocatableMemory = 4_Gi}, pods);
  ASSERT_EQ(plan.containers.size(), 1u);
  EXPECT_EQ(plan.containers[0].cpuRequest, 100_m);
  EXPECT_EQ(plan.containers[0].memoryRequest, 1_Mi);
}

TEST(HeadroomPlannerTest, DefaultRanking) {
  EXPECT_EQ(defaultEvictionRanking(TargetKind::kStatefulSet, 3), EvictionRanking::kMedium);
  EXPECT_EQ(defaultEvictionRanking(TargetKind::kDeployment, 1), EvictionRanking::kMedium);
  EXPECT_EQ(defaultEvictionRanking(TargetKind::kDeployment, 3), EvictionRanking::kLow);
}

}  // namespace
}  // namespace attune::recommend
