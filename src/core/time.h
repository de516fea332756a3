// Points in time and durations. Time is UTC with nanosecond resolution; Kubernetes writes
// timestamps as RFC 3339 (metav1.Time to the second, metav1.MicroTime to the microsecond).
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "core/error.h"

namespace attune {

using Duration = std::chrono::nanoseconds;
using Time = std::chrono::sys_time<std::chrono::nanoseconds>;

// Parses RFC 3339 ("2008-01-01T01:01:01Z", "2008-01-01T01:01:01.123456+02:00").
Result<Time> parseRfc3339(std::string_view text);
// Formats as UTC RFC 3339 with `fractionDigits` (0, 3, 6 or 9) digits of fractional seconds.
std::string formatRfc3339(Time t, int fractionDigits = 0);

// Parses a Go time.Duration string: a signed sequence of decimal numbers, each with an optional
// fraction and a unit (ns, us, µs, μs, ms, s, m, h), e.g. "300ms", "-1.5h", "1h30m". "0" needs no
// unit. Overflow of the int64 nanosecond range is rejected.
Result<Duration> parseDuration(std::string_view text);
// Formats compactly in a form parseDuration and Go both accept: "1h30m", "5m", "300ms", "0s".
std::string formatDuration(Duration d);

}  // namespace attune
