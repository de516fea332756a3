// Configuration of per-container usage statistics: value scales, the recent (steady-state)
// windows and the long-horizon history window.
#pragma once

#include <chrono>

#include "core/error.h"
#include "core/time.h"

namespace attune::stats {

// How one resource's samples are summarised.
struct SeriesConfig {
  // Values below this count as zero in every log-encoded structure (peaks, sketches); the
  // recent window stays exact. Cores for CPU, bytes for memory.
  double minValue = 1e-6;
  // Window of the steady-state percentile (CPU 10 min, memory 30 min).
  Duration recentWindow = std::chrono::minutes(10);
  // Long-horizon window of the percentile sketches; a positive whole number of days (<= 62).
  Duration history = std::chrono::hours(168);
  // The quantile kept per hour for hour-of-day percentiles (the policy percentile), in [0, 1].
  double hourOfDayQuantile = 0.95;

  bool operator==(const SeriesConfig&) const = default;
};

struct StatsConfig {
  SeriesConfig cpu{.minValue = 1e-6, .recentWindow = std::chrono::minutes(10)};
  SeriesConfig memory{.minValue = 1.0, .recentWindow = std::chrono::minutes(30)};

  // Checks every field; the error names the offending field ("cpu.history").
  Result<void> validate() const;
  bool operator==(const StatsConfig&) const = default;
};

// Whole days in `c.history` (valid configs only).
int historyDays(const SeriesConfig& c);

// The sketch history that covers a window of `window`: whole days, at least 1 and at most 62
// (a window beyond 62 days keeps the last 62).
Duration historyCovering(Duration window);

}  // namespace attune::stats
