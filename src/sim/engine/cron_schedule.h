// A CronJob's schedule: the five-field cron expression the CronJob controller reads (the standard
// parser of robfig/cron, which Kubernetes uses), evaluated in UTC (spec.timeZone is not
// modelled).
#pragma once

#include <bitset>
#include <string_view>

#include "core/error.h"
#include "core/time.h"

namespace attune::sim {

// Fields: minute (0-59) hour (0-23) day-of-month (1-31) month (1-12 or JAN-DEC) day-of-week
// (0-6 or SUN-SAT, 7 = Sunday). Each is `*`, a value, a range `a-b`, any of these with a step
// `/n`, or a comma-separated list of them; `?` means `*`. The macros @yearly, @annually,
// @monthly, @weekly, @daily, @midnight and @hourly stand for their expressions. As in cron, when
// both day-of-month and day-of-week are restricted a day matching either one is scheduled.
// Immutable value; copy freely.
class CronSchedule {
 public:
  // kInvalidArgument naming the bad field ("minute", "hour", ...) and why.
  static Result<CronSchedule> parse(std::string_view text);

  // The first scheduled minute strictly after `t`; Time::max() when none falls in the next five
  // years (e.g. "0 0 30 2 *"). Pure.
  Time next(Time t) const;

 private:
  bool dayMatches(int dayOfMonth, int month, int dayOfWeek) const;

  std::bitset<60> minutes_;
  std::bitset<24> hours_;
  std::bitset<32> daysOfMonth_;  // bit 0 unused
  std::bitset<13> months_;       // bit 0 unused
  std::bitset<7> daysOfWeek_;    // 0 = Sunday
  bool daysOfMonthRestricted_ = false;
  bool daysOfWeekRestricted_ = false;
};

}  // namespace attune::sim
