#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "recommend/vpa_histogram.h"
#include "recommend/vpa_strategy.h"
#include "recommend_testing.h"

namespace attune::recommend {
namespace {

using namespace attune::literals;
using namespace testing;
using std::chrono::hours;

constexpr std::int64_t kDay = 1440;  // minutes

// VPA's bucket start: first × (1.05^n - 1) / 0.05.
double start(double first, int n) { return first * (std::pow(1.05, n) - 1) / 0.05; }

TEST(VpaHistogramTest, BucketsGrowByFivePercent) {
  const VpaHistogram h(vpaCpuHistogramOptions());
  EXPECT_EQ(h.bucketOf(0.005), 0);
  EXPECT_EQ(h.bucketOf(0.01), 1);
  EXPECT_NEAR(h.bucketStart(1), 0.01, 1e-12);
  EXPECT_NEAR(h.bucketStart(26), start(0.01, 26), 1e-12);
  EXPECT_EQ(h.numBuckets(),
            static_cast<int>(std::ceil(std::log(1000 * 0.05 / 0.01 + 1) / std::log(1.05))) + 1);
  EXPECT_EQ(h.bucketOf(1e9), h.numBuckets() - 1);
  const VpaHistogram m(vpaMemoryHistogramOptions());
  EXPECT_NEAR(m.bucketStart(1), 1e7, 1e-3);
}

TEST(VpaHistogramTest, PercentileIsTheEndOfTheBucket) {
  VpaHistogram h(vpaCpuHistogramOptions());
  EXPECT_FALSE(h.percentile(0.9).has_value());  // never a number from no data
  h.add(0.5, 1, t0());
  const int b = h.bucketOf(0.5);
  EXPECT_LE(start(0.01, b), 0.5);
  EXPECT_GT(start(0.01, b + 1), 0.5);
  EXPECT_NEAR(*h.percentile(0.9), start(0.01, b + 1), 1e-12);
}

TEST(VpaHistogramTest, WeightsDoubleEveryHalfLife) {
  VpaHistogram same(vpaCpuHistogramOptions());
  same.add(0.1, 1, t0());
  same.add(1.0, 1, t0());
  VpaHistogram later(vpaCpuHistogramOptions());
  later.add(0.1, 1, t0());
  later.add(1.0, 1, t0() + hours(24));  // weighs 2: total 3
  const double endLow = start(0.01, same.bucketOf(0.1) + 1);
  const double endHigh = start(0.01, same.bucketOf(1.0) + 1);
  EXPECT_NEAR(*same.percentile(0.5), endLow, 1e-12);    // 1 >= 0.5 × 2
  EXPECT_NEAR(*later.percentile(0.5), endHigh, 1e-12);  // 1 < 0.5 × 3
  EXPECT_NEAR(*later.percentile(0.3), endLow, 1e-12);   // 1 >= 0.3 × 3
}

TEST(VpaHistogramTest, RescalesFarFutureSamples) {
  VpaHistogram h(vpaCpuHistogramOptions());
  h.add(0.1, 1, t0());
  h.add(1.0, 1, t0() + hours(24 * 200));  // 200 half-lives later: the first is negligible
  EXPECT_FALSE(h.empty());
  EXPECT_NEAR(*h.percentile(0.01), start(0.01, h.bucketOf(1.0) + 1), 1e-12);
  h.add(0.1, 1, t0() + hours(24 * 200));
  EXPECT_NEAR(*h.percentile(0.5), start(0.01, h.bucketOf(0.1) + 1), 1e-12);
}

TEST(VpaHistogramTest, SubtractTakesBackAnAddAtTheSameTime) {
  VpaHistogram h(vpaCpuHistogramOptions());
  h.add(0.1, 1, t0());
  h.add(1.0, 1, t0() + hours(24));
  h.subtract(1.0, 1, t0() + hours(24));
  EXPECT_NEAR(*h.percentile(0.99), start(0.01, h.bucketOf(0.1) + 1), 1e-12);
  h.subtract(0.1, 5, t0());  // more than the bucket holds: the bucket is emptied, never negative
  EXPECT_TRUE(h.empty());
}

// VPA's memory aggregation: one peak per 24 hours, at the interval's end. Day 1 (t0 .. t0+24h)
// sees 1e8, 3e8, 2e8: its peak 3e8 replaces 1e8. Day 2 (t0+25h) opens the interval ending at
// t0+48h with 1.5e8, weighing twice day 1's peak (one half-life later). Total weight 3: p50 is
// the end of 1.5e8's bucket (2 >= 1.5), p90 the end of 3e8's; a histogram of every sample would
// give 2e8's bucket for p50 (1.5e8 and 1e8 weigh 1 + 2 < 2.5 of 5).
TEST(VpaHistogramTest, MemoryHoldsOnePeakPerDay) {
  VpaHistograms h;
  h.add(t0(), 0.1, 1e8, std::nullopt);
  h.add(t0() + hours(1), 0.1, 3e8, std::nullopt);
  h.add(t0() + hours(2), 0.1, 2e8, std::nullopt);
  const VpaHistogram& m = h.memory;
  EXPECT_NEAR(*m.percentile(0.01), start(1e7, m.bucketOf(3e8) + 1), 1e-3);  // 1e8 was replaced
  h.add(t0() + hours(25), 0.1, 1.5e8, std::nullopt);
  EXPECT_NEAR(*m.percentile(0.5), start(1e7, m.bucketOf(1.5e8) + 1), 1e-3);
  EXPECT_NEAR(*m.percentile(0.9), start(1e7, m.bucketOf(3e8) + 1), 1e-3);
  h.add(t0() + hours(24), 0.1, 9e8, std::nullopt);  // older than the last sample: ignored
  EXPECT_NEAR(*m.percentile(0.9), start(1e7, m.bucketOf(3e8) + 1), 1e-3);
  // Three days later (t0 + 100h): the interval ending at t0 + 48h + 3 × 24h = t0 + 120h.
  h.add(t0() + hours(100), 0.1, 5e8, std::nullopt);
  EXPECT_NEAR(*m.percentile(0.5), start(1e7, m.bucketOf(5e8) + 1), 1e-3);  // weighs 16 of 19
}

TEST(VpaEstimateTest, MarginAndConfidence) {
  const VpaPercentiles raw{.lowerBound = 100, .target = 200, .upperBound = 300};
  VpaEstimate e = vpaEstimate(Resource::kCpu, raw, 2, 1, std::nullopt);
  EXPECT_DOUBLE_EQ(e.target, 200 * 1.15);
  EXPECT_DOUBLE_EQ(e.upperBound, 300 * 1.15 * (1 + 1.0 / 2));
  EXPECT_DOUBLE_EQ(e.lowerBound, 100 * 1.15 * std::pow(1 + 0.001 / 2, -2));
  e = vpaEstimate(Resource::kCpu, raw, 0, 1, std::nullopt);  // no history
  EXPECT_TRUE(std::isinf(e.upperBound));
  EXPECT_EQ(e.lowerBound, 25);  // 0, raised to the per-pod minimum
}

TEST(VpaEstimateTest, OomBumpIsTheLargerOfPlus100MiAndTimes1Point2) {
  const double mi = 1024.0 * 1024;
  // 4 containers: a per-pod minimum of 62.5Mi each, below all values here.
  const VpaPercentiles raw{.lowerBound = 100 * mi, .target = 200 * mi, .upperBound = 250 * mi};
  // 200Mi: +100Mi = 300Mi beats ×1.2 = 240Mi.
  EXPECT_DOUBLE_EQ(vpaEstimate(Resource::kMemory, raw, 7, 4, 200 * mi).target, 300 * mi * 1.15);
  // 1Gi: ×1.2 = 1228.8Mi beats +100Mi.
  EXPECT_DOUBLE_EQ(vpaEstimate(Resource::kMemory, raw, 7, 4, 1024 * mi).target,
                   1024 * mi * 1.2 * 1.15);
  // A small OOM below usage changes nothing.
  EXPECT_DOUBLE_EQ(vpaEstimate(Resource::kMemory, raw, 7, 4, 10 * mi).target, 200 * mi * 1.15);
}

Recommendation runVpa(const stats::ContainerStats& s, Time now, int containers,
                      api::ResourceValues current = {}) {
  static const api::AttunePolicySpec policy;
  return makeVpaStrategy()->recommend({.stats = s,
                                       .now = now,
                                       .current = current,
                                       .policy = policy,
                                       .containersInPod = containers});
}

TEST(VpaStrategyTest, TargetIsP90PlusMarginWithLimitRatioKept) {
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  const auto samples = minuteSamples(
      8 * kDay, [](std::int64_t m) { return 0.1 + 0.4 * scramble(m); },
      [](std::int64_t m) { return 2e8 + 1e8 * scramble(m + 7); });
  feed(s, samples);
  EXPECT_NEAR(vpaConfidence(s), (8.0 * kDay - 1) / kDay, 1e-9);  // min(lifespan, 11520 / 1440)

  const Recommendation r =
      runVpa(s, minute(8 * kDay - 1), 1, {.cpuRequest = 100_m, .cpuLimit = 200_m});
  ASSERT_TRUE(r.enoughData) << r.reason;
  const double cpu =
      lowerQuantile(cpuIn(samples, minute(kDay), minute(8 * kDay)), 0.9) * 1000 * 1.15;
  const double memory =
      lowerQuantile(memoryIn(samples, minute(kDay), minute(8 * kDay)), 0.9) * 1.15;
  EXPECT_NEAR(cpuRequest(r), cpu, cpu * 0.012 + 1);
  EXPECT_NEAR(memoryRequest(r), memory, memory * 0.012 + 1);
  EXPECT_NEAR(static_cast<double>(r.resources.cpuLimit->value()), 2 * cpuRequest(r), 1);
  EXPECT_EQ(r.resources.memoryLimit, std::nullopt);
  EXPECT_TRUE(explains(r, "cpu: upper bound"));
}

// With its decaying histograms (half-life 24h) VPA follows the last days: 4 of 8 days at 0.2
// cores after 4 at 1 core carry 1 − 2^-4 of the weight (> 90%), so p90 is 0.2 cores; the
// undecayed sketch over the week still says 1 core.
TEST(VpaStrategyTest, DecayingHistogramFollowsTheRecentDays) {
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  const StrategyPtr vpa = makeVpaStrategy();
  const ContainerStatePtr state = vpa->newContainerState();
  const auto samples = minuteSamples(
      8 * kDay, [](std::int64_t m) { return m < 4 * kDay ? 1.0 : 0.2; },
      [](std::int64_t) { return 3e8; });
  feed(s, samples);
  for (const auto& x : samples) state->add(x);
  static const api::AttunePolicySpec policy;
  const Time now = minute(8 * kDay - 1);
  const Recommendation withHistogram = vpa->recommend(
      {.stats = s, .now = now, .current = {}, .policy = policy, .state = state.get()});
  ASSERT_TRUE(withHistogram.enoughData) << withHistogram.reason;
  int bucket = 0;
  while (start(0.01, bucket + 1) <= 0.2) ++bucket;
  const double bucketEnd = start(0.01, bucket + 1);  // VPA's percentile: the bucket's end
  EXPECT_NEAR(cpuRequest(withHistogram), std::ceil(bucketEnd * 1000 * 1.15), 1);
  EXPECT_TRUE(explains(withHistogram, "cpu: percentiles from"));

  const Recommendation sketchOnly =
      makeVpaStrategy()->recommend({.stats = s, .now = now, .current = {}, .policy = policy});
  ASSERT_TRUE(sketchOnly.enoughData);
  EXPECT_NEAR(cpuRequest(sketchOnly), 1150, 1150 * 0.012 + 1);
}

TEST(VpaStrategyTest, PerPodMinimumSplitAcrossContainers) {
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  feed(s, minuteSamples(
              2 * kDay, [](auto) { return 0.001; }, [](auto) { return 1e6; }));
  const Time now = minute(2 * kDay - 1);
  Recommendation r = runVpa(s, now, 1);
  EXPECT_EQ(r.resources.cpuRequest, 25_m);
  EXPECT_EQ(r.resources.memoryRequest, 250_Mi);
  r = runVpa(s, now, 2);
  EXPECT_EQ(r.resources.cpuRequest, 13_m);  // 12.5m rounded up
  EXPECT_EQ(r.resources.memoryRequest, 125_Mi);
  r = runVpa(s, now, 4);
  EXPECT_EQ(r.resources.cpuRequest, 7_m);
  EXPECT_EQ(r.resources.memoryRequest, Bytes(250 * 1024 * 1024 / 4));
  EXPECT_TRUE(explains(r, "raised to pod minimum / containers"));
}

TEST(VpaStrategyTest, OomKillBumpsMemory) {
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  feed(s, minuteSamples(
              2 * kDay, [](auto) { return 0.2; }, [](auto) { return 1e8; }));
  ASSERT_TRUE(s.addOomKill(minute(kDay), 1_Gi));
  const Recommendation r = runVpa(s, minute(2 * kDay - 1), 1);
  EXPECT_EQ(r.resources.memoryRequest,
            Bytes(static_cast<std::int64_t>(std::ceil((1_Gi).value() * 1.2 * 1.15))));
  EXPECT_TRUE(explains(r, "memory: target raised to OOM bump"));
}

}  // namespace
}  // namespace attune::recommend
