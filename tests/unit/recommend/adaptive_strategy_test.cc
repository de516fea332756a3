#include "recommend/adaptive_strategy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recommend_testing.h"

namespace attune::recommend {
namespace {

using namespace attune::literals;
using namespace testing;

constexpr std::int64_t kDay = 1440;  // minutes

// 1 core from 08:00 to 09:00 UTC, 0.2 core the rest of the day; memory 1e9 bytes throughout.
// The busy hour is 4.2% of the samples, so the window's p95 is 0.2 core; hour 8's own p95 is 1.
double diurnalCpu(std::int64_t m) { return (m / 60) % 24 == 8 ? 1.0 : 0.2; }
// The same with the busy hour at 00:00.
double midnightCpu(std::int64_t m) { return (m / 60) % 24 == 0 ? 1.0 : 0.2; }
double flatMemory(std::int64_t) { return 1e9; }

// The sketch is within 0.99% of the exact rank, the hour-of-day values within 0.05%; allow 1.2%
// and one unit of rounding.
void expectClose(double got, double want) { EXPECT_NEAR(got, want, want * 0.012 + 1); }

class AdaptiveStrategyTest : public ::testing::Test {
 protected:
  // Samples every minute from day 0 00:00 up to and including `now` (day 7 + `minuteOfDay`).
  Recommendation at(std::int64_t minuteOfDay, api::ResourceValues current = {},
                    const std::function<double(std::int64_t)>& cpu = diurnalCpu) {
    const std::int64_t last = 7 * kDay + minuteOfDay;
    feed(stats_, minuteSamples(last + 1, cpu, flatMemory));
    now_ = minute(last);
    return makeAdaptiveStrategy()->recommend(
        {.stats = stats_, .now = now_, .current = current, .policy = policy_});
  }

  stats::StatsConfig config_;  // the policy's percentiles are kept per hour (p95 / p99)
  stats::ContainerStats stats_{config_};
  api::AttunePolicySpec policy_;
  Time now_;
};

// At 03:00 the coming hours (03-05) ran at 0.2 core all week, as the window's p95: 200m × 1.3
// = 260m. Memory: p99 1e9 × 1.15.
TEST_F(AdaptiveStrategyTest, QuietHoursGetTheWindowPercentile) {
  const Recommendation r = at(3 * 60);
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 260);
  expectClose(memoryRequest(r), 1.15e9);
  EXPECT_EQ(r.resources.cpuLimit, std::nullopt);
  EXPECT_EQ(r.resources.memoryLimit, std::nullopt);
  EXPECT_TRUE(explains(r, "cpu: p95 over 168h"));
  EXPECT_FALSE(explains(r, "cpu: raised"));
  EXPECT_TRUE(explains(r, "cpu: × (1 + 30%)"));
  EXPECT_TRUE(explains(r, "memory: × (1 + 15%)"));
}

// At 07:00 the coming hours include 08, busy all week: 1 core × 1.3 = 1300m, ahead of the load
// (the recent P75 is still 0.2 core).
TEST_F(AdaptiveStrategyTest, RisesBeforeTheBusyHour) {
  const Recommendation r = at(7 * 60);
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 1300);
  EXPECT_TRUE(explains(r, "cpu: raised to the p95 of hours 07-09 UTC"));
}

// At 23:00 the coming hours wrap around midnight (23, 00, 01, read modulo 24): a busy hour at
// 00:00 raises the request to 1300m; at 03:00 it is behind, and the request is 260m.
TEST_F(AdaptiveStrategyTest, HoursWrapAroundMidnight) {
  const Recommendation r = at(23 * 60, {}, midnightCpu);
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 1300);
  EXPECT_TRUE(explains(r, "cpu: raised to the p95 of hours 23-01 UTC"));
  stats::ContainerStats fresh(config_);
  feed(fresh, minuteSamples(7 * kDay + 3 * 60 + 1, midnightCpu, flatMemory));
  const Recommendation later = makeAdaptiveStrategy()->recommend(
      {.stats = fresh, .now = minute(7 * kDay + 3 * 60), .current = {}, .policy = policy_});
  expectClose(cpuRequest(later), 260);
}

// The last 10 minutes at 2 cores: the recent P75 (2 cores) is above the week's values, so the
// request follows the present: 2 × 1.3 = 2600m. Without hour-of-day percentiles in the stats
// the window's p95 (0.2 core) is the base.
TEST_F(AdaptiveStrategyTest, RecentLoadRaisesTheRequest) {
  config_.cpu.hourOfDayQuantile = 0.5;  // not the policy's p95
  const std::int64_t last = 7 * kDay + 3 * 60;
  const Recommendation r =
      at(3 * 60, {}, [&](std::int64_t m) { return m > last - 10 ? 2.0 : diurnalCpu(m); });
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 2600);
  EXPECT_TRUE(explains(r, "cpu: hour-of-day p95"));
  EXPECT_TRUE(explains(r, "cpu: raised to the P75 of the last 10m"));
}

// An OOM kill at 1.5e9 bytes: VPA's bump max(1.5e9 + 100Mi, 1.8e9) = 1.8e9 is above the p99 of
// 1e9, so memory = 1.8e9 × 1.15 = 2.07e9 exactly.
TEST_F(AdaptiveStrategyTest, OomKillRaisesMemoryToTheBump) {
  ASSERT_TRUE(stats_.addOomKill(minute(7 * kDay), Bytes(1'500'000'000)));
  const Recommendation r = at(3 * 60);
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(memoryRequest(r), 2.07e9);
  EXPECT_TRUE(explains(r, "memory: raised to the OOM bump max(m + 100Mi, 1.2 m)"));
}

// With 7 days of data a decrease goes to the target in one step: 4000m → 260m.
TEST_F(AdaptiveStrategyTest, DecreasesAreNotCappedOnceADayOfDataIsIn) {
  const Recommendation r = at(3 * 60, {.cpuRequest = 4000_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 260);
  EXPECT_FALSE(explains(r, "capped"));
}

// During the first day of data a decrease is capped at maxChangePercent (CPU default 50%). At
// 12:00 on day 0 the busy hour is 60 of 721 samples (8.3%), so the p95 is 1 core: target 1300m;
// 4000m → 2000m (−67.5% capped at −50%).
TEST_F(AdaptiveStrategyTest, DecreasesAreCappedDuringTheFirstDay) {
  feed(stats_, minuteSamples(721, diurnalCpu, flatMemory));
  const Recommendation r = makeAdaptiveStrategy()->recommend(
      {.stats = stats_, .now = minute(720), .current = {.cpuRequest = 4000_m}, .policy = policy_});
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(cpuRequest(r), 2000);
  EXPECT_TRUE(explains(r, "capped at ±50%"));
}

// Increases are not capped: 100m → 1300m at once (the attune strategy would stop at 150m).
TEST_F(AdaptiveStrategyTest, IncreasesAreNotCapped) {
  const Recommendation r = at(7 * 60, {.cpuRequest = 100_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 1300);
}

// A decrease under 10% keeps the current request: 1400m against a target of ~1300m (−7.1%).
TEST_F(AdaptiveStrategyTest, SmallDecreasesKeepTheCurrentRequest) {
  const Recommendation r = at(7 * 60, {.cpuRequest = 1400_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(cpuRequest(r), 1400);
  EXPECT_TRUE(explains(r, "< 10%: kept current"));
}

// An increase of any size is made: 1250m → ~1300m (+4%), so a request never stays below its
// target.
TEST_F(AdaptiveStrategyTest, SmallIncreasesAreMade) {
  const Recommendation r = at(7 * 60, {.cpuRequest = 1250_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 1300);
  EXPECT_FALSE(explains(r, "kept current"));
}

// The policy's allowDecrease: false keeps a higher current memory request.
TEST_F(AdaptiveStrategyTest, AllowDecreaseFalseKeepsTheCurrentValue) {
  policy_.memory.allowDecrease = false;
  const Recommendation r = at(3 * 60, {.memoryRequest = Bytes(4'000'000'000)});
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(memoryRequest(r), 4e9);
}

// RequestsAndLimits with a current limit: the limit keeps the current limit/request ratio.
TEST_F(AdaptiveStrategyTest, LimitsFollowControlledValues) {
  policy_.cpu.controlledValues = api::ControlledValues::kRequestsAndLimits;
  const Recommendation r = at(7 * 60, {.cpuRequest = 500_m, .cpuLimit = 1000_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  ASSERT_TRUE(r.resources.cpuLimit.has_value());
  // Each is rounded up on its own: 2 × 1300.x rounds to within 2m of 2 × the rounded request.
  EXPECT_NEAR(static_cast<double>(r.resources.cpuLimit->value()), 2 * cpuRequest(r), 2);
}

// Fail closed: the newest sample is 20 minutes old, so the recent window is empty and nothing
// is recommended.
TEST_F(AdaptiveStrategyTest, NoRecentSampleGivesNoNumbers) {
  feed(stats_, minuteSamples(2 * kDay, diurnalCpu, flatMemory));
  const Recommendation r = makeAdaptiveStrategy()->recommend(
      {.stats = stats_, .now = minute(2 * kDay + 20), .current = {}, .policy = policy_});
  EXPECT_FALSE(r.enoughData);
  EXPECT_EQ(r.reason, "no cpu sample in the last 10m");
  EXPECT_EQ(r.resources, api::ResourceValues{});
}

}  // namespace
}  // namespace attune::recommend
