// Whole-second, whole-hour and whole-day indices of a Time (UTC, since the Unix epoch) — the
// compact timestamps the statistics store.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>

#include "core/time.h"

namespace attune::stats {

using Seconds = std::uint32_t;  // seconds since 1970-01-01T00:00:00Z; covers until 2106

inline constexpr Seconds kSecondsPerHour = 3600;
inline constexpr Seconds kSecondsPerDay = 86400;

// Seconds since the epoch (rounded down), or nullopt when `t` is before 1970 or after 2106.
inline std::optional<Seconds> toSeconds(Time t) {
  const auto s = std::chrono::floor<std::chrono::seconds>(t.time_since_epoch()).count();
  if (s < 0 || s > static_cast<std::int64_t>(UINT32_MAX)) return std::nullopt;
  return static_cast<Seconds>(s);
}

inline Time fromSeconds(Seconds s) { return Time(std::chrono::seconds(s)); }

// Hours since the epoch; two times have the same hour of the week iff their hour indices are
// congruent modulo 168, the same hour of the day iff congruent modulo 24.
inline std::uint32_t hourIndex(Seconds s) { return s / kSecondsPerHour; }
inline std::uint32_t dayIndex(Seconds s) { return s / kSecondsPerDay; }

}  // namespace attune::stats
