#include "stats/container_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include "stats_testing.h"

namespace attune::stats {
namespace {

using testing::at;

// A week and a day of 1-minute samples with noise, PSI on every other sample, and two OOMs.
void fill(ContainerStats& c, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0.0, 0.5);
  for (std::int64_t m = 0; m < 8 * 1440; ++m) {
    Sample s{.time = at(m * 60),
             .cpuCores = 0.2 * noise(rng),
             .memoryBytes = 3e8 * (1 + 0.1 * noise(rng))};
    if (m % 2) s.psiCpuWaitingRate = 0.1;
    ASSERT_EQ(c.add(s), SampleVerdict::kAccepted);
  }
  c.addOomKill(at(3 * 86400), Bytes(512 << 20));
  c.addOomKill(at(5 * 86400), Bytes(400 << 20));
}

// Every query of `a` and `b` agrees at `now`.
void expectSameAnswers(const ContainerStats& a, const ContainerStats& b, Time now) {
  for (const Series* s : {&a.cpu(), &a.memory()}) {
    const Series& t = s == &a.cpu() ? b.cpu() : b.memory();
    EXPECT_EQ(s->recentQuantile(now), t.recentQuantile(now));
    EXPECT_EQ(s->peak(now), t.peak(now));
    EXPECT_EQ(s->weekMax(now), t.weekMax(now));
    EXPECT_EQ(s->count(now), t.count(now));
    for (double q : {0.0, 0.5, 0.9, 0.95, 0.99, 1.0})
      EXPECT_EQ(s->quantile(now, q), t.quantile(now, q));
    for (int h = 0; h < 24; ++h)
      EXPECT_EQ(s->hourOfDayQuantile(now, h), t.hourOfDayQuantile(now, h));
  }
  EXPECT_EQ(a.maxOomMemory(now), b.maxOomMemory(now));
  EXPECT_EQ(a.sampleCount(), b.sampleCount());
  EXPECT_EQ(a.firstSampleTime(), b.firstSampleTime());
  EXPECT_EQ(a.lastSampleTime(), b.lastSampleTime());
  EXPECT_EQ(a.rejectedInvalid(), b.rejectedInvalid());
  EXPECT_EQ(a.oomKills(), b.oomKills());
}

TEST(ContainerStatsTest, PsiAdjustsCpu) {
  StatsConfig config;
  ContainerStats c(config);
  c.add({.time = at(0), .cpuCores = 0.5, .psiCpuWaitingRate = 0.2, .memoryBytes = 1e6});
  EXPECT_NEAR(*c.cpu().recentQuantile(at(0)), 0.6, 1e-7);
  EXPECT_NEAR(*c.memory().recentQuantile(at(0)), 1e6, 1e-1);
}

TEST(ContainerStatsTest, BadSamplesAreCountedNotStored) {
  StatsConfig config;
  ContainerStats c(config);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(c.add({.time = at(0), .cpuCores = nan, .memoryBytes = 1}), SampleVerdict::kInvalid);
  EXPECT_EQ(c.add({.time = at(0), .cpuCores = 1, .memoryBytes = inf}), SampleVerdict::kInvalid);
  EXPECT_EQ(c.add({.time = at(0), .cpuCores = -1, .memoryBytes = 1}), SampleVerdict::kInvalid);
  EXPECT_EQ(c.add({.time = at(0), .cpuCores = 1, .psiCpuWaitingRate = nan, .memoryBytes = 1}),
            SampleVerdict::kInvalid);
  EXPECT_EQ(c.add({.time = Time(std::chrono::seconds(-5)), .cpuCores = 1, .memoryBytes = 1}),
            SampleVerdict::kInvalid);
  EXPECT_EQ(c.rejectedInvalid(), 5u);
  EXPECT_EQ(c.sampleCount(), 0u);
  EXPECT_FALSE(c.cpu().recentQuantile(at(0)));
  EXPECT_FALSE(c.firstSampleTime());

  EXPECT_EQ(c.add({.time = at(30 * 86400), .cpuCores = 1, .memoryBytes = 1}),
            SampleVerdict::kAccepted);
  EXPECT_EQ(c.add({.time = at(10 * 86400), .cpuCores = 1, .memoryBytes = 1}),
            SampleVerdict::kTooOld);
  EXPECT_EQ(c.rejectedTooOld(), 1u);
  EXPECT_EQ(c.cpu().count(at(30 * 86400)), 1u);
}

TEST(ContainerStatsTest, CountsAndTimeSpan) {
  StatsConfig config;
  ContainerStats c(config);
  c.add({.time = at(600), .cpuCores = 1, .memoryBytes = 1});
  c.add({.time = at(60), .cpuCores = 1, .memoryBytes = 1});
  c.add({.time = at(1200), .cpuCores = 1, .memoryBytes = 1});
  EXPECT_EQ(c.sampleCount(), 3u);
  EXPECT_EQ(c.firstSampleTime(), at(60));
  EXPECT_EQ(c.lastSampleTime(), at(1200));
}

TEST(ContainerStatsTest, OomMaxWithinTheHistoryWindow) {
  StatsConfig config;
  ContainerStats c(config);
  EXPECT_FALSE(c.maxOomMemory(at(0)));
  EXPECT_FALSE(c.addOomKill(at(0), Bytes(-1)));
  EXPECT_TRUE(c.addOomKill(at(0), Bytes(300)));
  EXPECT_TRUE(c.addOomKill(at(86400), Bytes(500)));
  EXPECT_TRUE(c.addOomKill(at(2 * 86400), Bytes(200)));
  EXPECT_TRUE(c.addOomKill(at(3600), Bytes(100)));  // late and small
  EXPECT_EQ(c.oomKills(), 4u);
  EXPECT_EQ(c.maxOomMemory(at(2 * 86400)), Bytes(500));
  EXPECT_EQ(c.maxOomMemory(at(8 * 86400 - 1)), Bytes(500));  // 7 days after the 500
  EXPECT_EQ(c.maxOomMemory(at(8 * 86400)), Bytes(200));
  EXPECT_FALSE(c.maxOomMemory(at(9 * 86400)));
}

TEST(ContainerStatsTest, FitsTheMemoryBudgetAtSevenDaysOfMinutes) {
  StatsConfig config;
  ContainerStats c(config);
  fill(c, 5);
  EXPECT_LE(c.bytesUsed(), 4096u);
  std::printf("bytesUsed at 7 days of 1-minute samples: %zu\n", c.bytesUsed());
}

TEST(ContainerStatsTest, CheckpointRestoresIdenticalAnswers) {
  StatsConfig config;
  ContainerStats c(config);
  fill(c, 11);
  c.add({.time = at(-1), .cpuCores = nan(""), .memoryBytes = 1});
  const auto blob = c.checkpoint();
  auto back = ContainerStats::restore(blob, config);
  ASSERT_TRUE(back.has_value()) << back.error().toString();
  const Time last = *c.lastSampleTime();
  for (Time now : {last, last + std::chrono::minutes(5), last + std::chrono::hours(30)}) {
    expectSameAnswers(c, *back, now);
  }
  // Both keep evolving identically.
  const Sample next{.time = last + std::chrono::minutes(1), .cpuCores = 3, .memoryBytes = 5e8};
  c.add(next);
  back->add(next);
  expectSameAnswers(c, *back, next.time);
  EXPECT_EQ(back->checkpoint(), c.checkpoint());
}

TEST(ContainerStatsTest, TruncatedOrCorruptBlobsFailCleanly) {
  StatsConfig config;
  ContainerStats c(config);
  fill(c, 13);
  const auto blob = c.checkpoint();
  for (std::size_t n = 0; n < blob.size(); n += (n < 200 ? 1 : 97)) {
    auto r = ContainerStats::restore(std::span(blob).first(n), config);
    ASSERT_FALSE(r.has_value()) << n;
    EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
    EXPECT_NE(r.error().message.find("checkpoint"), std::string::npos);
  }
  auto bad = blob;
  bad[0] = 'X';
  EXPECT_NE(ContainerStats::restore(bad, config).error().message.find("magic"), std::string::npos);
  bad = blob;
  bad.push_back(0);
  EXPECT_NE(ContainerStats::restore(bad, config).error().message.find("trailing"),
            std::string::npos);
  StatsConfig other;
  other.cpu.hourOfDayQuantile = 0.9;
  EXPECT_NE(ContainerStats::restore(blob, other).error().message.find("another config"),
            std::string::npos);
  // Random byte flips never crash; they either fail or decode to something.
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    bad = blob;
    bad[rng() % bad.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
    auto r = ContainerStats::restore(bad, config);
    if (r) (void)r->cpu().quantile(at(8 * 86400), 0.5);
  }
}

}  // namespace
}  // namespace attune::stats
