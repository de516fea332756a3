#include "rollout/resize_schedule.h"

#include <chrono>
#include <vector>

namespace attune::rollout {
namespace {

using std::chrono::days;
using std::chrono::floor;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::weekday;

constexpr int kMinutesPerDay = 24 * 60;
constexpr int kScanDays = 8;

bool dayAllowed(const api::ResizeSchedule& s, unsigned weekdayIndex) {
  if (s.daysOfWeek.empty()) return true;
  for (const std::string& d : s.daysOfWeek) {
    if (api::weekdayIndex(d) == static_cast<int>(weekdayIndex)) return true;
  }
  return false;
}

std::string zoneName(const api::ResizeSchedule& s) {
  return s.timezone.value_or(std::string(api::kDefaultScheduleTimezone));
}

// "HH:MM" of local time `t` in `zone`.
std::string localClock(Time t, const TimeZone& zone) {
  const auto local = floor<minutes>(t.time_since_epoch() + zone.offsetAt(t));
  const int m = static_cast<int>((local - floor<days>(local)).count());
  const auto two = [](int v) { return std::string(v < 10 ? "0" : "") + std::to_string(v); };
  return two(m / 60) + ":" + two(m % 60);
}

}  // namespace

bool scheduleOpen(const api::ResizeSchedule& schedule, const TimeZone& zone, Time now) {
  const auto local = floor<seconds>(now.time_since_epoch() + zone.offsetAt(now));
  const days day = floor<days>(local);
  const int minute = static_cast<int>(floor<minutes>(local - day).count());
  const unsigned today = weekday(sys_days(day)).c_encoding();
  const unsigned yesterday = (today + 6) % 7;
  if (schedule.windows.empty()) return dayAllowed(schedule, today);
  for (const api::TimeWindow& w : schedule.windows) {
    const auto start = api::parseTimeOfDay(w.start);
    const auto end = api::parseTimeOfDay(w.end);
    if (!start || !end || *start == *end) continue;
    if (*start < *end) {
      if (minute >= *start && minute < *end && dayAllowed(schedule, today)) return true;
    } else {
      if (minute >= *start && dayAllowed(schedule, today)) return true;
      if (minute < *end && dayAllowed(schedule, yesterday)) return true;
    }
  }
  return false;
}

std::optional<Time> nextOpening(const api::ResizeSchedule& schedule, const TimeZone& zone,
                                Time now) {
  // A closed schedule opens only when local time reaches a window's start or midnight (a new
  // day), or when the UTC offset changes. Between those the scan jumps; across an offset change
  // it steps minute by minute. Every zone in use today has whole-minute offsets, so local
  // minutes start on UTC minutes.
  std::vector<int> candidates = {0};
  for (const api::TimeWindow& w : schedule.windows) {
    if (const auto start = api::parseTimeOfDay(w.start)) candidates.push_back(*start);
  }
  Time t = std::chrono::ceil<minutes>(now);
  if (t == now) t += minutes(1);
  const Time end = t + days(kScanDays);
  while (t < end) {
    if (scheduleOpen(schedule, zone, t)) return t;
    const seconds offset = zone.offsetAt(t);
    const auto local = floor<minutes>(t.time_since_epoch() + offset);
    const int minute = static_cast<int>((local - floor<days>(local)).count());
    int jump = kMinutesPerDay;
    for (int c : candidates) {
      const int ahead = (c - minute + kMinutesPerDay) % kMinutesPerDay;
      if (ahead > 0 && ahead < jump) jump = ahead;
    }
    const Time next = t + minutes(jump);
    t = zone.offsetAt(next) == offset ? next : t + minutes(1);
  }
  return std::nullopt;
}

std::string describeSchedule(const api::ResizeSchedule& schedule) {
  std::string out;
  for (const api::TimeWindow& w : schedule.windows) {
    out += (out.empty() ? "" : ", ") + w.start + "-" + w.end;
  }
  if (out.empty()) out = "all day";
  if (!schedule.daysOfWeek.empty()) {
    std::string days;
    for (const std::string& d : schedule.daysOfWeek) days += (days.empty() ? "" : ", ") + d;
    out += " on " + days;
  }
  return out + " (" + zoneName(schedule) + ")";
}

api::Condition scheduleBlockedCondition(const api::ResizeSchedule& schedule, const TimeZone& zone,
                                        std::optional<Time> opensAt) {
  api::Condition c;
  c.type = std::string(kConditionScheduleBlocked);
  c.status = "True";
  c.reason = std::string(kReasonOutsideWindow);
  c.message = "resizes wait for the schedule " + describeSchedule(schedule) + "; ";
  if (opensAt) {
    c.message += "the next window opens at " + formatRfc3339(*opensAt) + " (" +
                 localClock(*opensAt, zone) + " " + zoneName(schedule) + ")";
  } else {
    c.message += "no window opens in the next 8 days";
  }
  return c;
}

ScheduleGate gateSchedule(const api::AttunePolicy& policy, const TimeZone* zone,
                          std::string_view zoneError, Time now) {
  ScheduleGate gate;
  const auto& schedule = policy.spec.updateStrategy.schedule;
  if (!schedule) return gate;
  if (zone == nullptr) {
    api::Condition c;
    c.type = std::string(kConditionScheduleBlocked);
    c.status = "True";
    c.reason = std::string(kReasonUnknownTimezone);
    c.message = "no resize is made: " + std::string(zoneError);
    gate.blocked = std::move(c);
  } else if (!scheduleOpen(*schedule, *zone, now)) {
    gate.opensAt = nextOpening(*schedule, *zone, now);
    gate.blocked = scheduleBlockedCondition(*schedule, *zone, gate.opensAt);
  }
  if (gate.blocked) gate.blocked->observedGeneration = policy.metadata.generation;
  return gate;
}

}  // namespace attune::rollout
