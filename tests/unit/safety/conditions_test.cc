// Condition bookkeeping and the Degraded condition (3 of the last 5 resizes reverted).
#include "safety/conditions.h"

#include <gtest/gtest.h>

#include "safety_testing.h"

namespace attune::safety {
namespace {

using namespace testing;
using R = api::ResizeResult;

std::vector<api::ResizeHistoryEntry> history(std::initializer_list<R> results) {
  std::vector<api::ResizeHistoryEntry> out;
  for (R r : results) {
    api::ResizeHistoryEntry e;
    e.workload = "web";
    e.result = r;
    out.push_back(e);
  }
  return out;
}

TEST(Conditions, TransitionTimeChangesOnlyWithTheStatus) {
  std::vector<api::Condition> conditions;
  EXPECT_TRUE(setCondition(conditions, {"Ready", "True", "Monitoring", "ok", {}, 1}, t0()));
  EXPECT_EQ(conditions[0].lastTransitionTime, t0());
  EXPECT_FALSE(setCondition(conditions, {"Ready", "True", "Monitoring", "ok", {}, 1}, t0() + 1h));
  EXPECT_TRUE(setCondition(conditions, {"Ready", "True", "Monitoring", "still", {}, 2}, t0() + 1h));
  EXPECT_EQ(conditions[0].lastTransitionTime, t0());
  EXPECT_EQ(conditions[0].message, "still");
  EXPECT_TRUE(setCondition(conditions, {"Ready", "False", "InvalidConfig", "", {}, 2}, t0() + 2h));
  EXPECT_EQ(conditions[0].lastTransitionTime, t0() + 2h);
  ASSERT_EQ(conditions.size(), 1u);
  EXPECT_TRUE(removeCondition(conditions, "Ready"));
  EXPECT_FALSE(removeCondition(conditions, "Ready"));
}

TEST(Degraded, SetAtThreeOfTheLastFiveAndClearedBelow) {
  std::vector<api::Condition> conditions;
  auto h = history({R::kApplied, R::kReverted, R::kApplied, R::kReverted});
  EXPECT_FALSE(updateDegradedCondition(conditions, h, t0(), 1));
  EXPECT_TRUE(conditions.empty());

  h.push_back(history({R::kReverted})[0]);  // 3 of 5
  EXPECT_TRUE(updateDegradedCondition(conditions, h, t0(), 1));
  const api::Condition* degraded = api::findCondition(conditions, "Degraded");
  ASSERT_NE(degraded, nullptr);
  EXPECT_EQ(degraded->status, "True");
  EXPECT_EQ(degraded->reason, "HighRevertRate");

  // Two more healthy resizes push reverts out of the window: 2 of the last 5.
  for (const auto& e : history({R::kApplied, R::kApplied})) h.push_back(e);
  EXPECT_EQ(recentRevertRate(h).reverted, 2);
  EXPECT_TRUE(updateDegradedCondition(conditions, h, t0() + 1h, 1));
  EXPECT_EQ(api::findCondition(conditions, "Degraded"), nullptr);
}

TEST(Degraded, OnlyResizeOperationsCount) {
  // Skips between the reverts do not push them out of the window.
  auto h = history({R::kReverted, R::kSkipped, R::kReverted, R::kSkipped, R::kSkipped, R::kSkipped,
                    R::kSkipped, R::kReverted});
  EXPECT_EQ(recentRevertRate(h).reverted, 3);
  EXPECT_EQ(recentRevertRate(h).considered, 3);
  std::vector<api::Condition> conditions;
  EXPECT_TRUE(updateDegradedCondition(conditions, h, t0(), 1));
}

}  // namespace
}  // namespace attune::safety
