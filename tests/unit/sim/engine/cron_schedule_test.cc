#include "sim/engine/cron_schedule.h"

#include <gtest/gtest.h>

#include <string>

namespace attune::sim {
namespace {

Time at(const char* rfc3339) { return *parseRfc3339(rfc3339); }

std::string next(const char* schedule, const char* after) {
  auto s = CronSchedule::parse(schedule);
  EXPECT_TRUE(s.has_value()) << schedule << ": " << (s ? "" : s.error().toString());
  if (!s) return "";
  const Time t = s->next(at(after));
  return t == Time::max() ? "never" : formatRfc3339(t);
}

TEST(CronScheduleTest, NextScheduledMinute) {
  EXPECT_EQ(next("15 * * * *", "2026-01-05T00:00:00Z"), "2026-01-05T00:15:00Z");
  EXPECT_EQ(next("15 * * * *", "2026-01-05T00:15:00Z"), "2026-01-05T01:15:00Z");
  EXPECT_EQ(next("15 * * * *", "2026-01-05T00:14:59.5Z"), "2026-01-05T00:15:00Z");
  EXPECT_EQ(next("*/20 * * * *", "2026-01-05T00:41:00Z"), "2026-01-05T01:00:00Z");
  EXPECT_EQ(next("0 2 * * *", "2026-01-05T03:00:00Z"), "2026-01-06T02:00:00Z");
  EXPECT_EQ(next("30 9-17/4 * * *", "2026-01-05T10:00:00Z"), "2026-01-05T13:30:00Z");
  EXPECT_EQ(next("0 0 1 */3 *", "2026-01-05T00:00:00Z"), "2026-04-01T00:00:00Z");
  EXPECT_EQ(next("0 0 30 2 *", "2026-01-05T00:00:00Z"), "never");
}

TEST(CronScheduleTest, NamesMacrosAndWeekdays) {
  // 2026-01-05 is a Monday.
  EXPECT_EQ(next("0 8 * * MON-FRI", "2026-01-09T09:00:00Z"), "2026-01-12T08:00:00Z");
  EXPECT_EQ(next("0 0 * * 7", "2026-01-05T00:00:00Z"), "2026-01-11T00:00:00Z");
  EXPECT_EQ(next("0 0 1 jan *", "2026-01-05T00:00:00Z"), "2027-01-01T00:00:00Z");
  EXPECT_EQ(next("@hourly", "2026-01-05T00:30:00Z"), "2026-01-05T01:00:00Z");
  EXPECT_EQ(next("@daily", "2026-01-05T00:30:00Z"), "2026-01-06T00:00:00Z");
  EXPECT_EQ(next("@weekly", "2026-01-05T00:30:00Z"), "2026-01-11T00:00:00Z");
  // Both day fields restricted: either matches (the 10th, a Saturday, or Monday the 12th).
  EXPECT_EQ(next("0 0 10 * 1", "2026-01-06T00:00:00Z"), "2026-01-10T00:00:00Z");
  EXPECT_EQ(next("0 0 10 * 1", "2026-01-10T00:00:00Z"), "2026-01-12T00:00:00Z");
}

TEST(CronScheduleTest, RejectsMalformedSchedules) {
  for (const char* bad : {"", "* * * *", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *",
                          "*/0 * * * *", "5-1 * * * *", "x * * * *", "* * * * MOON", "@often"}) {
    auto s = CronSchedule::parse(bad);
    EXPECT_FALSE(s.has_value()) << bad;
    if (!s) {
      EXPECT_EQ(s.error().code, ErrorCode::kInvalidArgument);
    }
  }
  EXPECT_EQ(CronSchedule::parse("61 * * * *").error().field, "minute");
}

}  // namespace
}  // namespace attune::sim
