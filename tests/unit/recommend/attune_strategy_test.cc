#include "recommend/attune_strategy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "recommend_testing.h"

namespace attune::recommend {
namespace {

using namespace attune::literals;
using namespace testing;

constexpr std::int64_t kDay = 1440;  // minutes

double cpuOf(std::int64_t m) { return 0.1 + 0.4 * scramble(m); }
double memoryOf(std::int64_t m) { return 2e8 + 1e8 * scramble(m + 7); }

// 8 days of minute samples; at the last one the 7-day window holds days 1..7 (full history).
class AttuneStrategyTest : public ::testing::Test {
 protected:
  AttuneStrategyTest() {
    config_.cpu.hourOfDayQuantile = 0.5;  // not the policy's p95: overall percentile only
    samples_ = minuteSamples(8 * kDay, cpuOf, memoryOf);
    feed(stats_, samples_);
  }

  Recommendation run(api::ResourceValues current, const api::AttunePolicySpec& policy) const {
    return makeAttuneStrategy()->recommend(
        {.stats = stats_, .now = now_, .current = current, .policy = policy});
  }

  // The expected request with no current value: p95 × 1.2 (CPU), p99 × 1.3 (memory), rounded up.
  double expectedCpu() const {
    return std::ceil(lowerQuantile(cpuIn(samples_, minute(kDay), minute(8 * kDay)), 0.95) * 1000 *
                     1.2);
  }
  double expectedMemory() const {
    return std::ceil(lowerQuantile(memoryIn(samples_, minute(kDay), minute(8 * kDay)), 0.99) * 1.3);
  }

  stats::StatsConfig config_;
  stats::ContainerStats stats_{config_};
  std::vector<stats::Sample> samples_;
  Time now_ = minute(8 * kDay - 1);
  api::AttunePolicySpec policy_;
};

// The sketch is within 0.99% of the exact rank; allow 1.2% and one unit of rounding.
void expectClose(double got, double want) { EXPECT_NEAR(got, want, want * 0.012 + 1); }

TEST_F(AttuneStrategyTest, PercentileTimesOverhead) {
  const Recommendation r = run({}, policy_);
  ASSERT_TRUE(r.enoughData) << r.reason;
  expectClose(cpuRequest(r), expectedCpu());
  expectClose(memoryRequest(r), expectedMemory());
  EXPECT_EQ(r.resources.cpuLimit, std::nullopt);
  EXPECT_EQ(r.resources.memoryLimit, std::nullopt);
  EXPECT_TRUE(explains(r, "cpu: p95 over 168h"));
  EXPECT_TRUE(explains(r, "cpu: × (1 + 20%)"));
  EXPECT_TRUE(explains(r, "memory: p99 over 168h"));
  EXPECT_TRUE(explains(r, "memory: × (1 + 30%)"));
  EXPECT_FALSE(explains(r, "days of data"));  // full history: no widening
}

TEST_F(AttuneStrategyTest, PercentileZeroMeansTheDefault) {
  api::AttunePolicySpec p95;
  p95.cpu.percentile = 95;
  api::AttunePolicySpec p0;
  p0.cpu.percentile = 0;
  EXPECT_EQ(run({}, p0).resources, run({}, p95).resources);
  api::AttunePolicySpec p90;
  p90.cpu.percentile = 90;
  expectClose(
      cpuRequest(run({}, p90)),
      std::ceil(lowerQuantile(cpuIn(samples_, minute(kDay), minute(8 * kDay)), 0.9) * 1000 * 1.2));
}

TEST_F(AttuneStrategyTest, ClampsToBounds) {
  policy_.cpu.maxAllowed = 100_m;
  policy_.memory.minAllowed = 2_Gi;
  const Recommendation r = run({}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, 100_m);
  EXPECT_EQ(r.resources.memoryRequest, 2_Gi);
  EXPECT_TRUE(explains(r, "cpu: clamped to [1m, 100m]"));
  EXPECT_TRUE(explains(r, "memory: clamped to [2Gi, 8Gi]"));
}

TEST_F(AttuneStrategyTest, SmallChangesKeepCurrent) {
  const auto cpu = Millicores(static_cast<std::int64_t>(expectedCpu() * 1.05));
  const auto memory = Bytes(static_cast<std::int64_t>(expectedMemory() * 0.95));
  const Recommendation r = run({.cpuRequest = cpu, .memoryRequest = memory}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, cpu);
  EXPECT_EQ(r.resources.memoryRequest, memory);
  EXPECT_TRUE(explains(r, "cpu: change -"));
  EXPECT_TRUE(explains(r, "% < 10%: kept current"));
  EXPECT_TRUE(explains(r, "memory: change +"));
}

TEST_F(AttuneStrategyTest, CapsChangeAtMaxChangePercent) {
  // Defaults: CPU ±50%, memory ±30%.
  const std::int64_t cpu = static_cast<std::int64_t>(expectedCpu() / 3);
  const std::int64_t memory = static_cast<std::int64_t>(expectedMemory() / 2);
  Recommendation r = run({.cpuRequest = Millicores(cpu), .memoryRequest = Bytes(memory)}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, Millicores(static_cast<std::int64_t>(std::ceil(cpu * 1.5))));
  EXPECT_EQ(r.resources.memoryRequest,
            Bytes(static_cast<std::int64_t>(std::ceil(static_cast<double>(memory) * 1.3))));
  EXPECT_TRUE(explains(r, "capped at ±50%"));

  const std::int64_t high = static_cast<std::int64_t>(expectedCpu() * 4);
  policy_.cpu.maxChangePercent = 20;
  r = run({.cpuRequest = Millicores(high)}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, Millicores(static_cast<std::int64_t>(std::ceil(high * 0.8))));
}

TEST_F(AttuneStrategyTest, NeverDecreasesWhenNotAllowed) {
  const auto cpu = Millicores(static_cast<std::int64_t>(expectedCpu() * 3));
  const auto memory = Bytes(static_cast<std::int64_t>(expectedMemory() * 3));
  policy_.cpu.allowDecrease = false;  // memory: false by default
  Recommendation r = run({.cpuRequest = cpu, .memoryRequest = memory}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, cpu);
  EXPECT_EQ(r.resources.memoryRequest, memory);
  EXPECT_TRUE(explains(r, "memory: decrease not allowed: kept current"));

  policy_.memory.allowDecrease = true;
  r = run({.memoryRequest = memory}, policy_);  // -67% capped at -30%
  EXPECT_EQ(r.resources.memoryRequest,
            Bytes(static_cast<std::int64_t>(std::ceil(static_cast<double>(memory.value()) * 0.7))));
  // Increases are still allowed.
  policy_.cpu.maxChangePercent = 100;
  r = run({.cpuRequest = Millicores(static_cast<std::int64_t>(expectedCpu() / 2))}, policy_);
  expectClose(cpuRequest(r), expectedCpu());
}

TEST_F(AttuneStrategyTest, LimitsFollowControlledValues) {
  policy_.cpu.controlledValues = api::ControlledValues::kRequestsAndLimits;
  policy_.cpu.maxChangePercent = 100;
  // 100m → +100% = 200m; limit keeps the 1:3 ratio.
  Recommendation r = run({.cpuRequest = 100_m, .cpuLimit = 300_m}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, 200_m);
  EXPECT_EQ(r.resources.cpuLimit, 600_m);
  // RequestsOnly: the limit stays and caps the request.
  policy_.cpu.controlledValues = api::ControlledValues::kRequestsOnly;
  r = run({.cpuRequest = 100_m, .cpuLimit = 150_m}, policy_);
  EXPECT_EQ(r.resources.cpuRequest, 150_m);
  EXPECT_EQ(r.resources.cpuLimit, 150_m);
  EXPECT_TRUE(explains(r, "cpu: capped at current limit"));
}

TEST(AttuneWideningTest, Formula) {
  const double h = 7;
  EXPECT_EQ(shortHistoryWidening(0, h), 0.5);
  EXPECT_EQ(shortHistoryWidening(1, h), 0.5);  // 1 - 0.378 > 0.5
  EXPECT_NEAR(shortHistoryWidening(2, h), 1 / std::sqrt(2.0) - 1 / std::sqrt(7.0), 1e-12);
  EXPECT_NEAR(shortHistoryWidening(4, h), 0.5 - 1 / std::sqrt(7.0), 1e-12);
  EXPECT_EQ(shortHistoryWidening(7, h), 0);
  EXPECT_EQ(shortHistoryWidening(30, h), 0);
  for (double d = 0.1; d < 8; d += 0.1)
    EXPECT_GE(shortHistoryWidening(d, h), shortHistoryWidening(d + 0.1, h));
}

// Constant usage, growing history: the request shrinks to percentile × overhead.
TEST(AttuneWideningTest, ShrinksAsHistoryGrows) {
  const api::AttunePolicySpec policy;
  double previous = 1e18;
  for (int days : {1, 2, 3, 5, 8}) {
    stats::StatsConfig config;
    stats::ContainerStats s(config);
    const auto samples = minuteSamples(
        days * kDay, [](auto) { return 0.2; }, [](auto) { return 1e8; });
    feed(s, samples);
    const Time now = minute(days * kDay - 1);
    const Recommendation r =
        makeAttuneStrategy()->recommend({.stats = s, .now = now, .current = {}, .policy = policy});
    ASSERT_TRUE(r.enoughData);
    const double d = static_cast<double>(days * kDay - 1) / kDay;
    const double w = d >= 7 ? 0 : std::min(0.5, 1 / std::sqrt(d) - 1 / std::sqrt(7.0));
    expectClose(cpuRequest(r), 200 * 1.2 * (1 + w));
    expectClose(memoryRequest(r), 1e8 * 1.3 * (1 + w));
    EXPECT_LT(cpuRequest(r), previous);
    EXPECT_EQ(explains(r, "days of data"), w > 0);
    previous = cpuRequest(r);
  }
}

// With the stats keeping the policy's percentile per hour, the busiest hour of the day counts.
TEST(AttuneHourOfDayTest, BusiestHourRaisesThePercentile) {
  stats::StatsConfig config;  // hourOfDayQuantile 0.95 == policy p95
  stats::ContainerStats s(config);
  const auto busy = [](std::int64_t m) {
    return 0.1 + 0.2 * scramble(m) + ((m / 60) % 24 == 14 ? 0.5 : 0.0);
  };
  const auto samples = minuteSamples(8 * kDay, busy, memoryOf);
  feed(s, samples);
  const Time now = minute(8 * kDay - 1);
  const api::AttunePolicySpec policy;
  const Recommendation r =
      makeAttuneStrategy()->recommend({.stats = s, .now = now, .current = {}, .policy = policy});

  // Each of the last 169 hours' own p95; the largest, or the overall p95 if larger.
  double expected = lowerQuantile(cpuIn(samples, minute(kDay), minute(8 * kDay)), 0.95);
  const std::int64_t lastHour = (8 * kDay - 1) / 60;
  for (std::int64_t h = lastHour - 168; h <= lastHour; ++h) {
    expected = std::max(expected,
                        lowerQuantile(cpuIn(samples, minute(h * 60), minute(h * 60 + 60)), 0.95));
  }
  EXPECT_GT(expected, 0.6);  // the busy hour wins
  EXPECT_NEAR(cpuRequest(r), expected * 1000 * 1.2, expected * 1000 * 1.2 * 0.001 + 1);
  EXPECT_TRUE(explains(r, "cpu: busiest hour-of-day p95"));
}

}  // namespace
}  // namespace attune::recommend
