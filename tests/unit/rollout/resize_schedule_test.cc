// rollout/resize_schedule: windows, days, wrap past midnight, time zones with DST, the next
// opening and the ScheduleBlocked condition.
#include "rollout/resize_schedule.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace attune::rollout {
namespace {

Time at(std::string_view rfc3339) { return *parseRfc3339(rfc3339); }

api::ResizeSchedule schedule(std::vector<api::TimeWindow> windows,
                             std::vector<std::string> days = {}) {
  return {std::move(windows), std::move(days), std::nullopt};
}

const TimeZone kUtc = TimeZone::utc();

// 2026-01-07 is a Wednesday.
TEST(ResizeScheduleTest, DaysAloneOpenTheWholeDay) {
  const auto s = schedule({}, {"Monday", "Wednesday"});
  EXPECT_TRUE(scheduleOpen(s, kUtc, at("2026-01-07T10:00:00Z")));
  EXPECT_FALSE(scheduleOpen(s, kUtc, at("2026-01-08T10:00:00Z")));
  EXPECT_TRUE(scheduleOpen(schedule({}), kUtc, at("2026-01-08T10:00:00Z")));
}

TEST(ResizeScheduleTest, AWindowIncludesItsStartAndExcludesItsEnd) {
  const auto s = schedule({{"02:00", "06:00"}});
  EXPECT_FALSE(scheduleOpen(s, kUtc, at("2026-01-07T01:59:59Z")));
  EXPECT_TRUE(scheduleOpen(s, kUtc, at("2026-01-07T02:00:00Z")));
  EXPECT_TRUE(scheduleOpen(s, kUtc, at("2026-01-07T05:59:59Z")));
  EXPECT_FALSE(scheduleOpen(s, kUtc, at("2026-01-07T06:00:00Z")));
}

TEST(ResizeScheduleTest, AWindowPastMidnightBelongsToItsStartDay) {
  const auto s = schedule({{"22:00", "06:00"}}, {"Wednesday"});
  EXPECT_TRUE(scheduleOpen(s, kUtc, at("2026-01-07T23:00:00Z")));   // Wednesday evening
  EXPECT_TRUE(scheduleOpen(s, kUtc, at("2026-01-08T03:00:00Z")));   // its Thursday tail
  EXPECT_FALSE(scheduleOpen(s, kUtc, at("2026-01-08T23:00:00Z")));  // Thursday's own start
  EXPECT_FALSE(scheduleOpen(s, kUtc, at("2026-01-09T03:00:00Z")));
  EXPECT_FALSE(scheduleOpen(s, kUtc, at("2026-01-07T10:00:00Z")));
}

TEST(ResizeScheduleTest, EqualStartAndEndNeverOpensButOtherWindowsStill) {
  const auto never = schedule({{"02:00", "02:00"}});
  EXPECT_FALSE(scheduleOpen(never, kUtc, at("2026-01-07T02:00:00Z")));
  EXPECT_EQ(nextOpening(never, kUtc, at("2026-01-07T00:00:00Z")), std::nullopt);
  const auto mixed = schedule({{"02:00", "02:00"}, {"02:00", "06:00"}});
  EXPECT_TRUE(scheduleOpen(mixed, kUtc, at("2026-01-07T03:00:00Z")));
}

TEST(ResizeScheduleTest, NextOpeningIsTheFirstOpenMinute) {
  const auto s = schedule({{"02:00", "06:00"}}, {"Friday"});
  EXPECT_EQ(nextOpening(s, kUtc, at("2026-01-07T10:00:30Z")), at("2026-01-09T02:00:00Z"));
  EXPECT_EQ(nextOpening(s, kUtc, at("2026-01-09T01:59:00Z")), at("2026-01-09T02:00:00Z"));
}

TEST(ResizeScheduleTest, TheConditionSaysUntilWhen) {
  const auto s = schedule({{"02:00", "06:00"}}, {"Friday"});
  const api::Condition c =
      scheduleBlockedCondition(s, kUtc, nextOpening(s, kUtc, at("2026-01-07T10:00:00Z")));
  EXPECT_EQ(c.type, "ScheduleBlocked");
  EXPECT_EQ(c.status, "True");
  EXPECT_EQ(c.reason, "OutsideWindow");
  EXPECT_EQ(c.message,
            "resizes wait for the schedule 02:00-06:00 on Friday (UTC); the next window opens "
            "at 2026-01-09T02:00:00Z (02:00 UTC)");
  EXPECT_NE(scheduleBlockedCondition(s, kUtc, std::nullopt).message.find("no window opens"),
            std::string::npos);
}

class NewYorkScheduleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto z = loadTimeZone("America/New_York", zoneinfoDirectory());
    if (!z) GTEST_SKIP() << z.error().toString() << " (install tzdata)";
    ny_ = std::move(*z);
  }
  api::ResizeSchedule inNewYork(std::vector<api::TimeWindow> w, std::vector<std::string> d = {}) {
    api::ResizeSchedule s = schedule(std::move(w), std::move(d));
    s.timezone = "America/New_York";
    return s;
  }
  TimeZone ny_ = TimeZone::utc();
};

TEST_F(NewYorkScheduleTest, LocalTimeAndLocalDays) {
  // Monday 22:00-06:00 New York: Tuesday 03:00 EST (08:00 UTC) is Monday's tail.
  const auto s = inNewYork({{"22:00", "06:00"}}, {"Monday"});
  EXPECT_TRUE(scheduleOpen(s, ny_, at("2026-01-06T04:00:00Z")));   // Mon 23:00 EST
  EXPECT_TRUE(scheduleOpen(s, ny_, at("2026-01-06T08:00:00Z")));   // Tue 03:00 EST
  EXPECT_FALSE(scheduleOpen(s, ny_, at("2026-01-07T04:00:00Z")));  // Tue 23:00 EST
  EXPECT_EQ(nextOpening(s, ny_, at("2026-01-06T12:00:00Z")), at("2026-01-13T03:00:00Z"));
}

TEST_F(NewYorkScheduleTest, SpringForwardSkipsAndFallBackRepeats) {
  // 2026-03-08: 02:00-03:00 EST never happens.
  const auto skipped = inNewYork({{"02:00", "03:00"}});
  EXPECT_FALSE(scheduleOpen(skipped, ny_, at("2026-03-08T06:45:00Z")));  // 01:45 EST
  EXPECT_FALSE(scheduleOpen(skipped, ny_, at("2026-03-08T07:15:00Z")));  // 03:15 EDT
  EXPECT_EQ(nextOpening(skipped, ny_, at("2026-03-08T06:45:00Z")), at("2026-03-09T06:00:00Z"));
  // A window whose start is skipped opens at the change itself (03:00 EDT = 07:00 UTC).
  const auto startSkipped = inNewYork({{"02:30", "04:00"}});
  EXPECT_EQ(nextOpening(startSkipped, ny_, at("2026-03-08T06:00:00Z")), at("2026-03-08T07:00:00Z"));
  // 2026-11-01: 01:00-02:00 happens twice (EDT, then EST); open both times.
  const auto repeated = inNewYork({{"01:00", "02:00"}});
  EXPECT_TRUE(scheduleOpen(repeated, ny_, at("2026-11-01T05:30:00Z")));   // 01:30 EDT
  EXPECT_TRUE(scheduleOpen(repeated, ny_, at("2026-11-01T06:30:00Z")));   // 01:30 EST
  EXPECT_FALSE(scheduleOpen(repeated, ny_, at("2026-11-01T07:15:00Z")));  // 02:15 EST
}

}  // namespace
}  // namespace attune::rollout
