// Noise, the daily wave and unit conversions shared by the synthetic usage models.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numbers>

#include "core/time.h"
#include "core/units.h"
#include "sim/random.h"

namespace attune::sim {

// `value` scaled by (1 + N(0, relativeStddev)), never below zero. Draws nothing when
// relativeStddev is 0, so noise-free models leave their stream untouched.
inline double jitter(Random& random, double value, double relativeStddev) {
  if (relativeStddev <= 0) return value;
  return std::max(0.0, value * (1.0 + random.normal(0.0, relativeStddev)));
}

// A non-negative byte count rounded to whole bytes.
inline Bytes toBytes(double bytes) {
  return Bytes(static_cast<std::int64_t>(std::llround(std::max(0.0, bytes))));
}

inline double toSeconds(Duration d) { return std::chrono::duration<double>(d).count(); }

// `seconds` rounded to whole nanoseconds; at least 1 ns when seconds > 0.
inline Duration fromSeconds(double seconds) {
  const auto d = std::chrono::round<Duration>(std::chrono::duration<double>(seconds));
  return seconds > 0 ? std::max(d, Duration(1)) : d;
}

// The UTC hour of day of `t`, fractional, in [0, 24).
inline double hourOfDay(Time t) {
  const Duration day = std::chrono::hours(24);
  Duration intoDay = t.time_since_epoch() % day;
  if (intoDay < Duration::zero()) intoDay += day;
  return toSeconds(intoDay) / 3600.0;
}

// cos(2π (hour(t) - peakHour) / 24): 1 at peakHour, -1 twelve hours later.
inline double dailyWave(Time t, double peakHour) {
  return std::cos(2 * std::numbers::pi * (hourOfDay(t) - peakHour) / 24.0);
}

}  // namespace attune::sim
