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
// The busy hour is 4.2% of the samples, so the window's p95 is 0.2 core.
double diurnalCpu(std::int64_t m) { return (m / 60) % 24 == 8 ? 1.0 : 0.2; }
double flatMemory(std::int64_t) { return 1e9; }

// A histogram's percentile reads its bucket's end. VPA's CPU buckets start 0.01 core wide and
// grow by 5% each, so the bucket holding 0.2 core is [0.196, 0.216) (10% of 0.2) and the one
// holding 1 core about 6% wide; the window's sketch is within 1%. Allow 10% above and one unit
// of rounding.
void expectClose(double got, double want) {
  EXPECT_GE(got, want - 1);
  EXPECT_LE(got, want * 1.10 + 1);
}

class AdaptiveStrategyTest : public ::testing::Test {
 protected:
  // Samples every minute from day 0 00:00 up to and including `now` (day 7 + `minuteOfDay`),
  // fed to the statistics and to the strategy's own histograms, as the controller feeds them.
  Recommendation at(std::int64_t minuteOfDay, api::ResourceValues current = {},
                    const std::function<double(std::int64_t)>& cpu = diurnalCpu) {
    return upTo(7 * kDay + minuteOfDay, current, cpu);
  }
  Recommendation upTo(std::int64_t last, api::ResourceValues current = {},
                      const std::function<double(std::int64_t)>& cpu = diurnalCpu) {
    const std::vector<stats::Sample> samples = minuteSamples(last + 1, cpu, flatMemory);
    feed(stats_, samples);
    for (const stats::Sample& s : samples) state_->add(s);
    now_ = minute(last);
    return strategy_->recommend({.stats = stats_,
                                 .now = now_,
                                 .current = current,
                                 .policy = policy_,
                                 .state = state_.get()});
  }

  StrategyPtr strategy_ = makeAdaptiveStrategy();
  ContainerStatePtr state_ = strategy_->newContainerState();
  stats::StatsConfig config_;
  stats::ContainerStats stats_{config_};
  api::AttunePolicySpec policy_;
  Time now_;
};

// The weight of the samples between `from` and `to` hours ago, as a share of all the weight of
// an unending history, in a histogram whose samples halve every `halfLife` hours.
double weightShare(double from, double to, double halfLife) {
  return std::exp2(-from / halfLife) - std::exp2(-to / halfLife);
}

// At 18:00 the busy hour (08-09) is 9 to 10 hours old: with a 6-hour half-life it weighs
// (2^-1.5 - 2^-(10/6)) × (1 + 1/16 + ...) = 4.1% of the CPU histogram (the earlier days add
// 1/16 each), under the 5% above the p95: the request is 0.2 core × 1.3 = 260m. Memory: the
// p99 of 1e9 × 1.15.
TEST_F(AdaptiveStrategyTest, AnOldBusyHourNoLongerCounts) {
  ASSERT_LT(weightShare(9, 10, 6) * 16 / 15, 0.05);
  const Recommendation r = at(18 * 60);
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 260);
  expectClose(memoryRequest(r), 1.15e9);
  EXPECT_EQ(r.resources.cpuLimit, std::nullopt);
  EXPECT_EQ(r.resources.memoryLimit, std::nullopt);
  EXPECT_TRUE(explains(r, "cpu: p95 of the decaying histogram (half-life 6h)"));
  EXPECT_TRUE(explains(r, "memory: p99 of the decaying histogram (half-life 24h)"));
  EXPECT_FALSE(explains(r, "cpu: raised"));
  EXPECT_TRUE(explains(r, "cpu: × (1 + 30%)"));
  EXPECT_TRUE(explains(r, "memory: × (1 + 15%)"));
}

// At 12:00 the busy hour is 3 to 4 hours old and weighs (2^-0.5 - 2^-(4/6)) × 16/15 = 8.2% of
// the histogram, more than the 5% above the p95: the request is still 1 core × 1.3 = 1300m,
// where the week's p95 (0.2 core) would give 260m.
TEST_F(AdaptiveStrategyTest, ARecentBusyHourHoldsTheRequest) {
  ASSERT_GT(weightShare(3, 4, 6) * 16 / 15, 0.05);
  const Recommendation r = at(12 * 60);
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 1300);
}

// A caller that keeps no histograms gets the history window's percentile (0.2 core: 260m at
// 12:00 too), and the explanation says so.
TEST_F(AdaptiveStrategyTest, WithoutHistogramsTheWindowPercentileStandsIn) {
  feed(stats_, minuteSamples(7 * kDay + 12 * 60 + 1, diurnalCpu, flatMemory));
  const Recommendation r = strategy_->recommend({.stats = stats_,
                                                 .now = minute(7 * kDay + 12 * 60),
                                                 .current = {},
                                                 .policy = policy_,
                                                 .state = nullptr});
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 260);
  EXPECT_TRUE(explains(r, "cpu: p95 over 168h (no decaying histogram kept)"));
}

// The last 10 minutes at 2 cores: the recent P75 (2 cores) is above the histogram's p95, so the
// request follows the present: 2 × 1.3 = 2600m.
TEST_F(AdaptiveStrategyTest, RecentLoadRaisesTheRequest) {
  const std::int64_t last = 7 * kDay + 3 * 60;
  const Recommendation r =
      at(3 * 60, {}, [&](std::int64_t m) { return m > last - 10 ? 2.0 : diurnalCpu(m); });
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 2600);
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
  const Recommendation r = at(18 * 60, {.cpuRequest = 4000_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 260);
  EXPECT_FALSE(explains(r, "capped"));
}

// During the first day of data a decrease is capped at maxChangePercent (CPU default 50%). At
// 12:00 on day 0 the busy hour weighs (2^-0.5 - 2^-(4/6)) / (1 - 2^-2) = 10.3% of the 12 hours
// of histogram, so the p95 is 1 core: target 1300m; 4000m → 2000m (−67.5% capped at −50%).
TEST_F(AdaptiveStrategyTest, DecreasesAreCappedDuringTheFirstDay) {
  const Recommendation r = upTo(720, {.cpuRequest = 4000_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(cpuRequest(r), 2000);
  EXPECT_TRUE(explains(r, "capped at ±50%"));
}

// Increases are not capped: 100m → 1300m at once (the attune strategy would stop at 150m).
TEST_F(AdaptiveStrategyTest, IncreasesAreNotCapped) {
  const Recommendation r = at(12 * 60, {.cpuRequest = 100_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), 1300);
}

// A decrease under 10% keeps the current request: 1400m against a target of ~1300m (−7.1%).
TEST_F(AdaptiveStrategyTest, SmallDecreasesKeepTheCurrentRequest) {
  const Recommendation r = at(12 * 60, {.cpuRequest = 1400_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  EXPECT_EQ(cpuRequest(r), 1400);
  EXPECT_TRUE(explains(r, "< 10%: kept current"));
}

// An increase of any size is made: 1250m → ~1300m (+4%), so a request never stays below its
// target.
TEST_F(AdaptiveStrategyTest, SmallIncreasesAreMade) {
  const Recommendation r = at(12 * 60, {.cpuRequest = 1250_m});
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
  const Recommendation r = at(12 * 60, {.cpuRequest = 500_m, .cpuLimit = 1000_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  ASSERT_TRUE(r.resources.cpuLimit.has_value());
  // Each is rounded up on its own: 2 × 1300.x rounds to within 2m of 2 × the rounded request.
  EXPECT_NEAR(static_cast<double>(r.resources.cpuLimit->value()), 2 * cpuRequest(r), 2);
}

// Fail closed: the newest sample is 20 minutes old, so the recent window is empty and nothing
// is recommended.
TEST_F(AdaptiveStrategyTest, NoRecentSampleGivesNoNumbers) {
  const std::vector<stats::Sample> samples = minuteSamples(2 * kDay, diurnalCpu, flatMemory);
  feed(stats_, samples);
  for (const stats::Sample& s : samples) state_->add(s);
  const Recommendation r = strategy_->recommend({.stats = stats_,
                                                 .now = minute(2 * kDay + 20),
                                                 .current = {},
                                                 .policy = policy_,
                                                 .state = state_.get()});
  EXPECT_FALSE(r.enoughData);
  EXPECT_EQ(r.reason, "no cpu sample in the last 10m");
  EXPECT_EQ(r.resources, api::ResourceValues{});
}

}  // namespace
}  // namespace attune::recommend
