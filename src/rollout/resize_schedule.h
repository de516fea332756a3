// The schedule pre-check (spec.updateStrategy.schedule): whether new resizes may be made now,
// and when they may next. Pure: the zone comes in loaded (core/time_zone.h), `now` is a value.
//
// Rules (the public operator's): local time is `now` in the schedule's zone. With no windows,
// every minute of an allowed day is open (no days: every day). A window [start, end) with
// start < end is open on an allowed day; with end < start it wraps past midnight and belongs to
// the day it starts on (Monday 22:00-06:00 covers Tuesday 03:00 when Monday is allowed); with
// start == end it never opens. Any open window opens the schedule. A local time that a DST
// change skips never happens, and one it repeats is open both times.
#pragma once

#include <optional>
#include <string>

#include "api/k8s/meta.h"
#include "api/policy/attune_policy.h"
#include "api/policy/resize_schedule.h"
#include "core/time.h"
#include "core/time_zone.h"

namespace attune::rollout {

inline constexpr std::string_view kConditionScheduleBlocked = "ScheduleBlocked";
inline constexpr std::string_view kReasonOutsideWindow = "OutsideWindow";
inline constexpr std::string_view kReasonUnknownTimezone = "UnknownTimezone";

// True when `schedule` lets resizes be made at `now` in `zone`. Windows that do not parse are
// ignored (validation rejects them).
bool scheduleOpen(const api::ResizeSchedule& schedule, const TimeZone& zone, Time now);

// The first whole minute after `now`, within 8 days, at which the schedule is open; nullopt
// when it does not open in that time (e.g. every window has start == end).
std::optional<Time> nextOpening(const api::ResizeSchedule& schedule, const TimeZone& zone,
                                Time now);

// The ScheduleBlocked condition (status True) for a pass at `now` while the schedule is closed:
// reason OutsideWindow, the message says until when (UTC and local time). `opensAt` from
// nextOpening. lastTransitionTime is left to safety::setCondition.
api::Condition scheduleBlockedCondition(const api::ResizeSchedule& schedule, const TimeZone& zone,
                                        std::optional<Time> opensAt);

// Where a policy's updateStrategy.schedule leaves a pass at `now`: `blocked` is the
// ScheduleBlocked condition (observedGeneration set) while no window is open, or while `zone` is
// null (the zone could not be loaded: reason UnknownTimezone with `zoneError`; fail closed);
// `opensAt` is when the next window opens. Both nullopt without a schedule or while it is open.
struct ScheduleGate {
  std::optional<api::Condition> blocked;
  std::optional<Time> opensAt;
};
ScheduleGate gateSchedule(const api::AttunePolicy& policy, const TimeZone* zone,
                          std::string_view zoneError, Time now);

// "02:00-06:00 on Monday, Friday (America/New_York)": the schedule in one phrase.
std::string describeSchedule(const api::ResizeSchedule& schedule);

}  // namespace attune::rollout
