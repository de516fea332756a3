#include "safety/node_load.h"

#include <gtest/gtest.h>

namespace attune::safety {
namespace {

using Change = NodeLoadDecision::Change;

NodeLoadReading reading(std::optional<double> load1, double cores, bool tainted) {
  return {.node = "n", .load1 = load1, .cpuCores = cores, .tainted = tainted};
}

TEST(NodeLoad, AboveTheThresholdPerCoreTaints) {
  const auto d = decideNodeTaint(reading(8.8, 8, false), 1.0);
  EXPECT_EQ(d.change, Change::kTaint);
  ASSERT_TRUE(d.load.has_value());
  EXPECT_DOUBLE_EQ(*d.load, 1.1);
  // Already tainted: nothing to do.
  EXPECT_EQ(decideNodeTaint(reading(8.8, 8, true), 1.0).change, Change::kNone);
  // The load is per core: 8.8 on 16 cores is not overloaded.
  EXPECT_EQ(decideNodeTaint(reading(8.8, 16, false), 1.0).change, Change::kNone);
}

TEST(NodeLoad, BelowTheThresholdUntaintsAndAtItNothingChanges) {
  EXPECT_EQ(decideNodeTaint(reading(7.9, 8, true), 1.0).change, Change::kUntaint);
  EXPECT_EQ(decideNodeTaint(reading(7.9, 8, false), 1.0).change, Change::kNone);
  EXPECT_EQ(decideNodeTaint(reading(8, 8, true), 1.0).change, Change::kNone);
  EXPECT_EQ(decideNodeTaint(reading(8, 8, false), 1.0).change, Change::kNone);
  EXPECT_EQ(decideNodeTaint(reading(6, 8, false), 0.7).change, Change::kTaint);
}

TEST(NodeLoad, MissingDataChangesNothing) {
  const auto noLoad = decideNodeTaint(reading(std::nullopt, 8, true), 1.0);
  EXPECT_EQ(noLoad.change, Change::kNone);
  EXPECT_FALSE(noLoad.load.has_value());
  EXPECT_EQ(decideNodeTaint(reading(std::nullopt, 8, false), 1.0).change, Change::kNone);
  EXPECT_EQ(decideNodeTaint(reading(20, 0, false), 1.0).change, Change::kNone);
}

TEST(NodeLoad, OnlyAttunesTaintIsAddedOrRemoved) {
  const api::Taint gpu{"nvidia.com/gpu", "", "NoSchedule"};
  const api::Taint maintenance{"maintenance", "true", "NoExecute"};
  const std::vector<api::Taint> taints{gpu, maintenance};
  const auto added = withOverloadedTaint(taints, true);
  ASSERT_EQ(added.size(), 3u);
  EXPECT_EQ(added[0], gpu);
  EXPECT_EQ(added[1], maintenance);
  EXPECT_EQ(added[2].key, kOverloadedTaintKey);
  EXPECT_EQ(added[2].effect, "NoSchedule");
  EXPECT_TRUE(hasOverloadedTaint(added));
  EXPECT_FALSE(hasOverloadedTaint(taints));
  EXPECT_EQ(withOverloadedTaint(added, false), taints);
  // Adding twice keeps one.
  EXPECT_EQ(withOverloadedTaint(added, true).size(), 3u);
}

}  // namespace
}  // namespace attune::safety
