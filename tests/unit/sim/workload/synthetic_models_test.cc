#include "sim/workload/synthetic_models.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numbers>

#include "model_testing.h"

namespace attune::sim {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::kStart;
using testing::model;
using testing::sample;

constexpr double kMi = 1 << 20;

TEST(SteadyModel, MeanAndSpreadMatchParameters) {
  auto m = model("steady", {{"cpuCores", 2}, {"memoryBytes", 100 * kMi}, {"noise", 0.1}});
  const auto samples = sample(*m, 20000, seconds(10));
  double sum = 0, sumSq = 0;
  for (const Usage& u : samples) {
    sum += u.cpuCores;
    sumSq += u.cpuCores * u.cpuCores;
    EXPECT_GE(u.memory.value(), 0);
  }
  const double mean = sum / samples.size();
  const double stddev = std::sqrt(sumSq / samples.size() - mean * mean);
  EXPECT_NEAR(mean, 2.0, 0.01);
  EXPECT_NEAR(stddev, 0.2, 0.01);
}

TEST(DiurnalModel, PeaksAtPeakHourWithAmplitudeAndDailyPeriod) {
  auto m = model("diurnal", {{"cpuCores", 4},
                             {"memoryBytes", 100 * kMi},
                             {"amplitude", 0.5},
                             {"memoryAmplitude", 0.2},
                             {"peakHour", 14.5},
                             {"noise", 0}});
  const auto day = sample(*m, 96, minutes(15));  // kStart is midnight UTC
  double sum = 0;
  for (const Usage& u : day) sum += u.cpuCores;
  EXPECT_NEAR(sum / day.size(), 4.0, 1e-9);
  EXPECT_NEAR(day[58].cpuCores, 6.0, 1e-9);  // 14:30: mean * (1 + 0.5)
  EXPECT_NEAR(day[10].cpuCores, 2.0, 1e-9);  // 02:30: mean * (1 - 0.5)
  EXPECT_NEAR(day[58].memory.value(), 120 * kMi, 1);
  for (std::size_t i = 0; i < day.size(); ++i) {
    EXPECT_LE(day[i].cpuCores, day[58].cpuCores + 1e-12);
    const double hour = i * 0.25;
    const double expected = 4 * (1 + 0.5 * std::cos(2 * std::numbers::pi * (hour - 14.5) / 24));
    EXPECT_NEAR(day[i].cpuCores, expected, 1e-9) << "hour " << hour;
  }
  // Period: a day later the value repeats.
  EXPECT_NEAR(m->usage(kStart + hours(24 * 3) + minutes(15 * 7), {}).cpuCores, day[7].cpuCores,
              1e-9);
}

TEST(BurstyModel, SpikeFrequencyAndFactorMatchParameters) {
  auto m = model("bursty", {{"cpuCores", 0.5},
                            {"memoryBytes", 64 * kMi},
                            {"spikeProbability", 0.02},
                            {"spikeFactor", 10},
                            {"spikeMemoryFactor", 2},
                            {"noise", 0}});
  const int n = 50000;
  int spikes = 0;
  for (const Usage& u : sample(*m, n, seconds(10))) {
    if (u.cpuCores == 5.0) {
      ++spikes;
      EXPECT_EQ(u.memory.value(), 128 * kMi);
    } else {
      EXPECT_EQ(u.cpuCores, 0.5);
      EXPECT_EQ(u.memory.value(), 64 * kMi);
    }
  }
  // Binomial(50000, 0.02): mean 1000, sd ~31; allow 5 sd.
  EXPECT_NEAR(spikes, 1000, 160);
}

TEST(MemoryLeakModel, GrowsLinearlyAndResetsOnRestart) {
  auto m = model(
      "memory-leak",
      {{"cpuCores", 1}, {"memoryBytes", 100 * kMi}, {"leakBytesPerHour", 36 * kMi}, {"noise", 0}});
  EXPECT_EQ(m->usage(kStart, {}).memory.value(), 100 * kMi);
  EXPECT_EQ(m->usage(kStart + minutes(30), minutes(30)).memory.value(), 118 * kMi);
  const auto at1h = m->usage(kStart + hours(1), hours(1)).memory.value();
  const auto at5h = m->usage(kStart + hours(5), hours(5)).memory.value();
  EXPECT_EQ(at5h - at1h, 4 * 36 * kMi);
  // Restarted 10 minutes ago, at 5h10m: back near the base.
  EXPECT_EQ(m->usage(kStart + hours(5) + minutes(10), minutes(10)).memory.value(), 106 * kMi);
  EXPECT_EQ(m->usage(kStart, {}).cpuCores, 1.0);
}

TEST(JvmModel, SawtoothBetweenFloorAndHeapWithGcEveryPeriod) {
  auto m = model("jvm", {{"cpuCores", 0.5},
                         {"heapBytes", 1024 * kMi},
                         {"floorBytes", 256 * kMi},
                         {"gcPeriodSeconds", 300},
                         {"gcDurationSeconds", 5},
                         {"gcCpuCores", 2},
                         {"noise", 0}});
  const auto s = sample(*m, 3000, seconds(1));
  int drops = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    EXPECT_GE(s[i].memory.value(), 256 * kMi);
    EXPECT_LT(s[i].memory.value(), 1024 * kMi);
    const bool gc = i >= 300 && i % 300 < 5;
    EXPECT_EQ(s[i].cpuCores, gc ? 2.5 : 0.5) << "second " << i;
    if (i > 0 && s[i].memory < s[i - 1].memory) {
      ++drops;
      EXPECT_EQ(i % 300, 0u) << "drop at second " << i;
      EXPECT_EQ(s[i].memory.value(), 256 * kMi);
    }
  }
  EXPECT_EQ(drops, 9);  // at 300, 600, ..., 2700
  EXPECT_NEAR(s[299].memory.value(), 256 * kMi + 768 * kMi * 299 / 300, 1);
}

TEST(BatchModel, FinishesAtItsDurationAndRestartsFromScratch) {
  auto m = model(
      "batch",
      {{"cpuCores", 1.5}, {"memoryBytes", 512 * kMi}, {"durationSeconds", 600}, {"noise", 0}});
  EXPECT_FALSE(m->finished(kStart, {}));
  EXPECT_EQ(m->usage(kStart + seconds(599), seconds(599)),
            (Usage{1.5, Bytes(static_cast<std::int64_t>(512 * kMi))}));
  EXPECT_FALSE(m->finished(kStart + seconds(599), seconds(599)));
  EXPECT_TRUE(m->finished(kStart + seconds(600), seconds(600)));
  EXPECT_EQ(m->usage(kStart + seconds(600), seconds(600)), Usage{});
  EXPECT_EQ(m->usage(kStart + hours(2), hours(2)), Usage{});
  // Restarted: runs again.
  EXPECT_FALSE(m->finished(kStart + hours(2), seconds(1)));
  EXPECT_EQ(m->usage(kStart + hours(2), seconds(1)).cpuCores, 1.5);
}

class Determinism : public ::testing::TestWithParam<const char*> {};

std::map<std::string, double, std::less<>> noisyParams(std::string_view kind) {
  std::map<std::string, double, std::less<>> p = {{"cpuCores", 1}, {"noise", 0.2}};
  if (kind == "jvm") {
    p.insert({{"heapBytes", 1e9}, {"floorBytes", 1e8}});
  } else {
    p["memoryBytes"] = 1e9;
  }
  if (kind == "memory-leak") p["leakBytesPerHour"] = 1e6;
  if (kind == "batch") p["durationSeconds"] = 1e6;
  if (kind == "bursty") p["spikeProbability"] = 0.1;
  return p;
}

TEST_P(Determinism, SameStreamSameValuesOtherStreamOtherValues) {
  const std::string kind = GetParam();
  auto a = model(kind, noisyParams(kind), "web-0");
  auto b = model(kind, noisyParams(kind), "web-0");
  auto c = model(kind, noisyParams(kind), "web-1");
  const auto sa = sample(*a, 200, seconds(30));
  EXPECT_EQ(sa, sample(*b, 200, seconds(30)));
  EXPECT_NE(sa, sample(*c, 200, seconds(30)));
}

INSTANTIATE_TEST_SUITE_P(AllNoisyKinds, Determinism,
                         ::testing::Values("steady", "diurnal", "bursty", "memory-leak", "jvm",
                                           "batch"));

}  // namespace
}  // namespace attune::sim
