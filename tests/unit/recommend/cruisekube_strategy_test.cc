#include "recommend/cruisekube_strategy.h"

#include <gtest/gtest.h>

#include <chrono>

#include "recommend_testing.h"

namespace attune::recommend {
namespace {

using namespace attune::literals;
using namespace testing;

constexpr std::int64_t kDay = 1440;  // minutes

class CruisekubeStrategyTest : public ::testing::Test {
 protected:
  CruisekubeStrategyTest() {
    samples_ = minuteSamples(
        8 * kDay, [](std::int64_t m) { return 0.1 + 0.4 * scramble(m); },
        [](std::int64_t m) { return 2e8 + 1e8 * scramble(m + 7); });
    feed(stats_, samples_);
  }

  Recommendation run() const {
    return makeCruisekubeStrategy()->recommend(
        {.stats = stats_, .now = now_, .current = {.cpuRequest = 1000_m}, .policy = policy_});
  }

  // Samples in (now - window, now].
  std::vector<double> recent(bool cpu, std::int64_t windowMinutes) const {
    const Time from = now_ - std::chrono::minutes(windowMinutes - 1);
    const Time to = now_ + std::chrono::minutes(1);
    return cpu ? cpuIn(samples_, from, to) : memoryIn(samples_, from, to);
  }
  // Max over now's hour of the week: this hour and the same hour 168 hours earlier.
  double peak(bool cpu) const {
    const std::int64_t hour = lastMinute_ / 60;
    std::vector<double> v;
    for (std::int64_t h : {hour, hour - 168}) {
      const auto part = cpu ? cpuIn(samples_, minute(h * 60), minute(h * 60 + 60))
                            : memoryIn(samples_, minute(h * 60), minute(h * 60 + 60));
      v.insert(v.end(), part.begin(), part.end());
    }
    return maxOf(v);
  }
  double weekMaxMemory() const {
    return maxOf(memoryIn(samples_, minute((lastMinute_ / 60 - 168) * 60), minute(8 * kDay)));
  }

  stats::StatsConfig config_;
  stats::ContainerStats stats_{config_};
  std::vector<stats::Sample> samples_;
  std::int64_t lastMinute_ = 8 * kDay - 1;
  Time now_ = minute(8 * kDay - 1);
  api::AttunePolicySpec policy_;
};

TEST_F(CruisekubeStrategyTest, AloneGetsBasePlusHeadroom) {
  const double cpuBase = interpolatedQuantile(recent(true, 10), 0.75) * 1000;
  const double cpuPeak = peak(true) * 1000;
  const double memoryBase = interpolatedQuantile(recent(false, 30), 0.75);
  const double memoryPeak = peak(false);
  ASSERT_GT(cpuPeak, cpuBase);

  const Recommendation r = run();
  ASSERT_TRUE(r.enoughData) << r.reason;
  // base + (peak - base): the hour-of-week peak, rounded up by <= 0.05%.
  EXPECT_NEAR(cpuRequest(r), cpuPeak, cpuPeak * 0.0005 + 1);
  EXPECT_NEAR(memoryRequest(r), memoryPeak, memoryPeak * 0.0005 + 1);
  EXPECT_EQ(r.resources.cpuLimit, std::nullopt);
  const double limit = 2 * weekMaxMemory();
  EXPECT_NEAR(static_cast<double>(r.resources.memoryLimit->value()), limit, limit * 0.0005 + 2);

  const auto d = cruisekubeDemand(stats_, now_);
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(static_cast<double>(d->cpuBase.value()), cpuBase, 1);
  EXPECT_NEAR(static_cast<double>(d->memoryBase.value()), memoryBase, memoryBase * 1e-6 + 1);
  EXPECT_EQ(d->cpuBase + d->cpuHeadroom, r.resources.cpuRequest);
  EXPECT_EQ(d->memoryBase + d->memoryHeadroom, r.resources.memoryRequest);
  EXPECT_EQ(d->memoryLimit, r.resources.memoryLimit);
  EXPECT_TRUE(explains(r, "cpu: base p75 over 10m"));
  EXPECT_TRUE(explains(r, "memory: base p75 over 30m"));
}

TEST_F(CruisekubeStrategyTest, OomAboveWeekMaxSetsTheMemoryLimit) {
  const Bytes oom(static_cast<std::int64_t>(weekMaxMemory() * 1.5));
  ASSERT_TRUE(stats_.addOomKill(minute(5 * kDay), oom));
  const Recommendation r = run();
  EXPECT_EQ(r.resources.memoryLimit, Bytes(2 * oom.value()));
  EXPECT_TRUE(explains(r, "memory: memory at OOM kill"));
}

TEST_F(CruisekubeStrategyTest, NoRecentSamplesNoNumbers) {
  now_ = minute(lastMinute_ + 120);
  const Recommendation r = run();
  EXPECT_FALSE(r.enoughData);
  EXPECT_EQ(r.reason, "no cpu sample in the last 10m");
  EXPECT_EQ(r.resources, api::ResourceValues{});
  EXPECT_FALSE(cruisekubeDemand(stats_, now_).has_value());
}

}  // namespace
}  // namespace attune::recommend
