// The arithmetic of the scaling summary: replica counts over time, and the time to recover after
// a service's rate change.
#include <gtest/gtest.h>

#include "sim/engine/run_totals.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

const Time kStart = Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5));
Time at(Duration d) { return kStart + d; }

// One sample per minute from minute 0: ready replicas as given, CPU short `shortPerTick` each.
std::vector<ScalingSample> perMinute(const std::vector<std::int32_t>& ready,
                                     double shortPerTick = 0) {
  std::vector<ScalingSample> out;
  for (std::size_t i = 0; i < ready.size(); ++i) {
    out.push_back({.at = at(std::chrono::minutes(i)),
                   .readyReplicas = ready[i],
                   .cpuShortCoreSeconds = shortPerTick});
  }
  return out;
}

TEST(ReplicaTrackTest, MinMaxFinalAndTimeWeightedMean) {
  ReplicaTrack track;
  EXPECT_EQ(track.stats().max, 0);
  track.add(4, 30s);
  track.add(2, 90s);
  track.add(8, 60s);
  const ReplicaStats s = track.stats();
  EXPECT_EQ(s.min, 2);
  EXPECT_EQ(s.max, 8);
  EXPECT_EQ(s.final, 8);
  // (4 × 30 + 2 × 90 + 8 × 60) / 180 = 780 / 180.
  EXPECT_DOUBLE_EQ(s.mean, 780.0 / 180.0);
}

TEST(RecoveryTest, TimeFromTheEndOfTheChangeUntilTheBaselineIsBack) {
  // Change from minute 2 to minute 5; 6 ready before it, down to 2, back to 6 at minute 8.
  const auto samples = perMinute({6, 6, 6, 4, 2, 2, 3, 5, 6, 6}, 1.5);
  const Recovery r = recoveryAfter(samples, at(2min), at(5min));
  EXPECT_EQ(r.baselineReplicas, 6);
  EXPECT_EQ(r.minReplicas, 2);
  ASSERT_TRUE(r.timeToRecover.has_value());
  EXPECT_EQ(*r.timeToRecover, 3min);
  // Samples of minutes 6, 7 and 8: (5, 8].
  EXPECT_DOUBLE_EQ(r.cpuShortCoreSeconds, 4.5);
}

TEST(RecoveryTest, BaselineIsTheLastSampleAtOrBeforeTheChange) {
  // The baseline is 5 (minute 2), not the 6 of minutes 0 and 7: recovered at minute 6.
  const auto samples = perMinute({6, 5, 5, 2, 2, 4, 5, 6});
  const Recovery r = recoveryAfter(samples, at(2min), at(4min));
  EXPECT_EQ(r.baselineReplicas, 5);
  ASSERT_TRUE(r.timeToRecover.has_value());
  EXPECT_EQ(*r.timeToRecover, 2min);
}

TEST(RecoveryTest, HeldReplicasRecoverAtOnce) {
  const auto samples = perMinute({3, 3, 3, 3, 3}, 2.0);
  const Recovery r = recoveryAfter(samples, at(1min), at(3min));
  EXPECT_EQ(r.minReplicas, 3);
  ASSERT_TRUE(r.timeToRecover.has_value());
  EXPECT_EQ(*r.timeToRecover, 0min);
  EXPECT_EQ(r.cpuShortCoreSeconds, 0);
}

TEST(RecoveryTest, NeverBackToTheBaselineIsNotRecovered) {
  const auto samples = perMinute({4, 4, 1, 1, 2, 3, 3}, 1.0);
  const Recovery r = recoveryAfter(samples, at(1min), at(3min));
  EXPECT_EQ(r.baselineReplicas, 4);
  EXPECT_EQ(r.minReplicas, 1);
  EXPECT_FALSE(r.timeToRecover.has_value());
  // Every sample after the change: minutes 4, 5, 6.
  EXPECT_DOUBLE_EQ(r.cpuShortCoreSeconds, 3.0);
}

TEST(RecoveryTest, NoSamplesIsNotRecovered) {
  const Recovery r = recoveryAfter({}, at(1min), at(2min));
  EXPECT_FALSE(r.timeToRecover.has_value());
  EXPECT_EQ(r.baselineReplicas, 0);
}

}  // namespace
}  // namespace attune::sim
