#include "core/clock.h"

#include <gtest/gtest.h>

#include <vector>

namespace attune {
namespace {

using std::chrono::seconds;

const Time kStart = Time{} + std::chrono::hours(24 * 365 * 50);

TEST(SimulatedClockTest, TimeMovesOnlyWhenAdvanced) {
  SimulatedClock clock(kStart);
  EXPECT_EQ(clock.now(), kStart);
  clock.advance(seconds(5));
  EXPECT_EQ(clock.now(), kStart + seconds(5));
  clock.advance(-seconds(3));  // ignored
  EXPECT_EQ(clock.now(), kStart + seconds(5));
  clock.sleepFor(seconds(1));
  EXPECT_EQ(clock.now(), kStart + seconds(6));
  clock.advanceTo(kStart);  // the past: ignored
  EXPECT_EQ(clock.now(), kStart + seconds(6));
}

TEST(SimulatedClockTest, RunsDueCallbacksInOrderAtTheirTime) {
  SimulatedClock clock(kStart);
  std::vector<std::pair<int, Time>> ran;
  clock.at(kStart + seconds(20), [&] { ran.emplace_back(2, clock.now()); });
  clock.at(kStart + seconds(10), [&] { ran.emplace_back(1, clock.now()); });
  clock.at(kStart + seconds(20), [&] { ran.emplace_back(3, clock.now()); });  // tie: FIFO
  clock.at(kStart + seconds(40), [&] { ran.emplace_back(4, clock.now()); });
  EXPECT_EQ(clock.nextDue(), kStart + seconds(10));
  clock.advance(seconds(30));
  ASSERT_EQ(ran.size(), 3u);
  EXPECT_EQ(ran[0], std::make_pair(1, kStart + seconds(10)));
  EXPECT_EQ(ran[1], std::make_pair(2, kStart + seconds(20)));
  EXPECT_EQ(ran[2], std::make_pair(3, kStart + seconds(20)));
  EXPECT_EQ(clock.now(), kStart + seconds(30));
  EXPECT_EQ(clock.pending(), 1u);
}

TEST(SimulatedClockTest, CallbacksMayScheduleMoreWorkWithinTheSameAdvance) {
  SimulatedClock clock(kStart);
  int ticks = 0;
  std::function<void()> tick = [&] {
    ++ticks;
    clock.at(clock.now() + seconds(10), tick);
  };
  clock.at(kStart + seconds(10), tick);
  clock.advance(seconds(60));
  EXPECT_EQ(ticks, 6);
  EXPECT_EQ(clock.nextDue(), kStart + seconds(70));
}

TEST(SimulatedClockTest, CancelledCallbacksDoNotRun) {
  SimulatedClock clock(kStart);
  bool ran = false;
  auto id = clock.at(kStart + seconds(1), [&] { ran = true; });
  EXPECT_TRUE(clock.cancel(id));
  EXPECT_FALSE(clock.cancel(id));
  clock.advance(seconds(2));
  EXPECT_FALSE(ran);
  EXPECT_EQ(clock.nextDue(), Time::max());
}

TEST(SimulatedClockTest, PastDueCallbackRunsAtNextAdvanceWithoutMovingTimeBack) {
  SimulatedClock clock(kStart + seconds(100));
  Time seen{};
  clock.at(kStart, [&] { seen = clock.now(); });
  clock.advance(seconds(1));
  EXPECT_EQ(seen, kStart + seconds(100));
}

TEST(SystemClockTest, IsCloseToWallClockAndMonotoneEnough) {
  SystemClock clock;
  Time a = clock.now();
  Time b = clock.now();
  EXPECT_LE(a, b);
  EXPECT_GT(a.time_since_epoch(), std::chrono::hours(24 * 365 * 50));  // after 2020
}

}  // namespace
}  // namespace attune
