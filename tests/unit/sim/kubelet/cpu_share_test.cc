// The CPU arithmetic of the kubelet model: CFS throttling and contention shares.
#include "sim/kubelet/cpu_share.h"

#include <gtest/gtest.h>

#include <vector>

namespace attune::sim {
namespace {

using namespace attune::literals;

constexpr double kPeriod = 0.1;

TEST(CfsThrottleTest, NoQuotaMeansNoPeriodsAndFullUsage) {
  const CfsTick t = cfsThrottle(3.0, 0, 60, kPeriod, 0.5);
  EXPECT_DOUBLE_EQ(t.usageCores, 3.0);
  EXPECT_EQ(t.periods, 0u);
  EXPECT_EQ(t.throttledPeriods, 0u);
}

TEST(CfsThrottleTest, WellBelowTheLimitIsNeverThrottled) {
  const CfsTick t = cfsThrottle(0.5, 1.0, 60, kPeriod, 0.5);
  EXPECT_EQ(t.periods, 600u);
  EXPECT_EQ(t.throttledPeriods, 0u);
  EXPECT_DOUBLE_EQ(t.throttledSeconds, 0);
  EXPECT_DOUBLE_EQ(t.usageCores, 0.5);
}

TEST(CfsThrottleTest, TwiceTheLimitThrottlesEveryPeriodAndCapsUsage) {
  const CfsTick t = cfsThrottle(2.0, 1.0, 60, kPeriod, 0.5);
  EXPECT_EQ(t.periods, 600u);
  EXPECT_EQ(t.throttledPeriods, 600u);
  EXPECT_DOUBLE_EQ(t.usageCores, 1.0);
  EXPECT_GT(t.throttledSeconds, 0);
  EXPECT_LT(t.throttledSeconds, 60);
}

TEST(CfsThrottleTest, RatioAndUsageAreMonotoneInDemand) {
  double lastRatio = 0;
  double lastUsage = 0;
  for (double d = 0.05; d <= 3.0; d += 0.05) {
    const CfsTick t = cfsThrottle(d, 1.0, 60, kPeriod, 0.5);
    const double ratio = static_cast<double>(t.throttledPeriods) / static_cast<double>(t.periods);
    EXPECT_GE(ratio, lastRatio) << d;
    EXPECT_GE(t.usageCores, lastUsage - 1e-12) << d;
    EXPECT_LE(t.usageCores, std::min(d, 1.0) + 1e-12) << d;
    lastRatio = ratio;
    lastUsage = t.usageCores;
  }
  // At the limit, half of the periods see a burst above the quota.
  const CfsTick atLimit = cfsThrottle(1.0, 1.0, 60, kPeriod, 0.5);
  EXPECT_EQ(atLimit.throttledPeriods, 300u);
}

TEST(CfsThrottleTest, SteadyDemandIsThrottledOnlyAboveTheLimit) {
  EXPECT_EQ(cfsThrottle(1.0, 1.0, 60, kPeriod, 0).throttledPeriods, 0u);
  const CfsTick above = cfsThrottle(1.25, 1.0, 60, kPeriod, 0);
  EXPECT_EQ(above.throttledPeriods, 600u);
  EXPECT_DOUBLE_EQ(above.usageCores, 1.0);
  EXPECT_NEAR(above.throttledSeconds, 600 * kPeriod * 0.2, 1e-9);  // 1 - 1/1.25 of each period
}

TEST(CpuSharesTest, FollowRequestsWithTheKernelMinimum) {
  EXPECT_DOUBLE_EQ(cpuShares(1000_m), 1024);
  EXPECT_DOUBLE_EQ(cpuShares(250_m), 256);
  EXPECT_DOUBLE_EQ(cpuShares(0_m), 2);  // BestEffort
  EXPECT_DOUBLE_EQ(cpuShares(1_m), 2);
}

TEST(ShareCpuTest, EveryoneGetsTheirWantWhenItFits) {
  std::vector<CpuClaim> claims{{1.0, 1024, 0}, {0.5, 2, 0}};
  std::vector<std::size_t> scratch;
  shareCpu(claims, 2.0, scratch);
  EXPECT_DOUBLE_EQ(claims[0].gotCores, 1.0);
  EXPECT_DOUBLE_EQ(claims[1].gotCores, 0.5);
}

TEST(ShareCpuTest, ContentionSplitsInProportionToWeight) {
  std::vector<CpuClaim> claims{{4.0, cpuShares(1500_m), 0}, {4.0, cpuShares(500_m), 0}};
  std::vector<std::size_t> scratch;
  shareCpu(claims, 2.0, scratch);
  EXPECT_NEAR(claims[0].gotCores, 1.5, 1e-12);
  EXPECT_NEAR(claims[1].gotCores, 0.5, 1e-12);
}

TEST(ShareCpuTest, UnusedSharesAreRedistributed) {
  // The first claim wants less than its fair share; the 2.8 cores it leaves are split among
  // the others by weight, the BestEffort one (weight 2) getting less than it wants.
  std::vector<CpuClaim> claims{{0.2, 1024, 0}, {4.0, 1024, 0}, {4.0, 2048, 0}, {0.1, 2, 0}};
  std::vector<std::size_t> scratch;
  shareCpu(claims, 3.0, scratch);
  EXPECT_DOUBLE_EQ(claims[0].gotCores, 0.2);
  EXPECT_NEAR(claims[1].gotCores, 2.8 * 1024 / 3074, 1e-12);
  EXPECT_NEAR(claims[2].gotCores, 2.8 * 2048 / 3074, 1e-12);
  EXPECT_NEAR(claims[3].gotCores, 2.8 * 2 / 3074, 1e-12);
  double total = 0;
  for (const auto& c : claims) total += c.gotCores;
  EXPECT_NEAR(total, 3.0, 1e-12);
}

TEST(ShareCpuTest, UnknownCapacityMeansNoContention) {
  std::vector<CpuClaim> claims{{8.0, 2, 0}};
  std::vector<std::size_t> scratch;
  shareCpu(claims, 0, scratch);
  EXPECT_DOUBLE_EQ(claims[0].gotCores, 8.0);
}

}  // namespace
}  // namespace attune::sim
