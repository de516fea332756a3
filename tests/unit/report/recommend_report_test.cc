#include "report/recommend_report.h"

#include <gtest/gtest.h>

#include "report_testing.h"

namespace attune::report {
namespace {

TEST(RecommendReportTest, TotalsCountContainersWithoutRecommendationAtCurrentRequests) {
  const auto t = totals(testing::sampleReport());
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].strategy, "attune");
  EXPECT_DOUBLE_EQ(t[0].cpuCoresNow, 0.2);  // 100m × 2; the sidecar has no request
  EXPECT_DOUBLE_EQ(t[0].cpuCoresRecommended, (0.150 + 0.010) * 2);
  EXPECT_DOUBLE_EQ(t[0].memoryGiBNow, 0.25);
  EXPECT_DOUBLE_EQ(t[0].memoryGiBRecommended, (96.0 + 32.0) * 2 / 1024);
  EXPECT_EQ(t[0].containers, 2);
  EXPECT_EQ(t[0].containersWithoutRecommendation, 0);
  // krr has no recommendation for app: it counts at 100m / 128Mi on both sides.
  EXPECT_EQ(t[1].containersWithoutRecommendation, 1);
  EXPECT_DOUBLE_EQ(t[1].cpuCoresRecommended, (0.100 + 0.020) * 2);
  EXPECT_DOUBLE_EQ(t[1].memoryGiBRecommended, (128.0 + 64.0) * 2 / 1024);
}

TEST(RecommendReportTest, ChangeAndSavedPercent) {
  EXPECT_DOUBLE_EQ(*changePercent(100, 150), 50.0);
  EXPECT_DOUBLE_EQ(*changePercent(200, 50), -75.0);
  EXPECT_FALSE(changePercent(std::nullopt, 50).has_value());
  EXPECT_FALSE(changePercent(0, 50).has_value());
  EXPECT_FALSE(changePercent(100, std::nullopt).has_value());
  EXPECT_DOUBLE_EQ(savedPercent(2.0, 1.5), 25.0);
  EXPECT_DOUBLE_EQ(savedPercent(0, 1.0), 0.0);
}

TEST(RecommendReportTest, EmptyReportHasZeroTotals) {
  RecommendReport r{.strategies = {"vpa"}};
  const auto t = totals(r);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].containers, 0);
  EXPECT_EQ(t[0].cpuCoresNow, 0);
}

}  // namespace
}  // namespace attune::report
