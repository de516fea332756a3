#include "core/backoff.h"

#include <gtest/gtest.h>

namespace attune {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

const Time kT0 = Time{} + std::chrono::hours(500000);

TEST(ExponentialBackoffTest, KubeletCurveDoublesAndCapsAt300s) {
  ExponentialBackoff b(BackoffPolicy::kubeletRestart());
  std::vector<long> delays;
  Time t = kT0;
  for (int i = 0; i < 8; ++i) {
    delays.push_back(std::chrono::duration_cast<seconds>(b.failure(t)).count());
    t += seconds(1);  // crashes right after each restart: never healthy for 10 minutes
  }
  EXPECT_EQ(delays, (std::vector<long>{10, 20, 40, 80, 160, 300, 300, 300}));
  EXPECT_EQ(b.failures(), 8);
}

TEST(ExponentialBackoffTest, ReducedCurveStartsAt1sAndCapsAt60s) {
  ExponentialBackoff b(BackoffPolicy::kubeletRestartReduced());
  std::vector<long> delays;
  for (int i = 0; i < 8; ++i)
    delays.push_back(std::chrono::duration_cast<seconds>(b.failure(kT0)).count());
  EXPECT_EQ(delays, (std::vector<long>{1, 2, 4, 8, 16, 32, 60, 60}));
}

TEST(ExponentialBackoffTest, ResetsAfterRunningTenMinutes) {
  ExponentialBackoff b(BackoffPolicy::kubeletRestart());
  b.failure(kT0);
  b.failure(kT0);
  b.failure(kT0);  // next would be 80s
  b.healthySince(kT0 + seconds(40));
  // Ran 9m59s: not long enough, the curve continues.
  EXPECT_EQ(b.failure(kT0 + seconds(40) + minutes(10) - seconds(1)), seconds(80));
  b.healthySince(kT0 + minutes(20));
  // Ran exactly 10 minutes: the curve restarts.
  EXPECT_EQ(b.failure(kT0 + minutes(30)), seconds(10));
  EXPECT_EQ(b.failures(), 1);
  EXPECT_EQ(b.peek(), seconds(20));
}

TEST(ExponentialBackoffTest, ZeroResetThresholdResetsOnAnySuccess) {
  ExponentialBackoff b(BackoffPolicy{std::chrono::milliseconds(100), 3.0, seconds(5), Duration(0)});
  EXPECT_EQ(b.failure(kT0), std::chrono::milliseconds(100));
  EXPECT_EQ(b.failure(kT0), std::chrono::milliseconds(300));
  EXPECT_EQ(b.failure(kT0), std::chrono::milliseconds(900));
  b.healthySince(kT0);
  EXPECT_EQ(b.failure(kT0), std::chrono::milliseconds(100));
  b.reset();
  EXPECT_EQ(b.failures(), 0);
}

TEST(ExponentialBackoffTest, DelayAfterMatchesTheCurve) {
  auto p = BackoffPolicy::kubeletRestart();
  EXPECT_EQ(ExponentialBackoff::delayAfter(p, 0), Duration(0));
  EXPECT_EQ(ExponentialBackoff::delayAfter(p, 1), seconds(10));
  EXPECT_EQ(ExponentialBackoff::delayAfter(p, 5), seconds(160));
  EXPECT_EQ(ExponentialBackoff::delayAfter(p, 6), seconds(300));
  EXPECT_EQ(ExponentialBackoff::delayAfter(p, 100), seconds(300));
}

}  // namespace
}  // namespace attune
