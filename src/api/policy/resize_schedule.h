// spec.updateStrategy.schedule (the public API's ResizeSchedule): when resizes may be made.
// Recommendations are computed at any time; only new resizes wait for a window (reverts never
// do). The rule that evaluates it is rollout/resize_schedule.h; docs/schedule.md describes it.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace attune::api {

inline constexpr std::string_view kDefaultScheduleTimezone = "UTC";

// Day names as the schedule spells them, indexed by std::chrono::weekday::c_encoding()
// (Sunday = 0).
inline constexpr std::array<std::string_view, 7> kWeekdayNames = {
    "Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"};

// A daily range of local time, "HH:MM" (24-hour) each. end < start wraps past midnight (the
// window belongs to the day it starts on); end == start never opens.
struct TimeWindow {
  std::string start;
  std::string end;
  bool operator==(const TimeWindow&) const = default;
};

struct ResizeSchedule {
  std::vector<TimeWindow> windows;      // any of them; none = the whole day
  std::vector<std::string> daysOfWeek;  // "Monday" ... "Sunday"; none = every day
  std::optional<std::string> timezone;  // an IANA name; unset = UTC
  bool operator==(const ResizeSchedule&) const = default;
};

// Minutes since midnight of an "HH:MM" time (00:00 to 23:59, two digits each); nullopt when
// `text` does not have that form.
std::optional<int> parseTimeOfDay(std::string_view text);

// The index of a day name in kWeekdayNames; nullopt for anything else (the match is exact).
std::optional<int> weekdayIndex(std::string_view name);

}  // namespace attune::api
