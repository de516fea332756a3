// Test helpers for the stats module: fixed times and exact (sort-based) reference statistics.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "core/time.h"

namespace attune::stats::testing {

// 2024-01-01T00:00:00Z, a Monday.
inline Time t0() { return Time(std::chrono::seconds(1704067200)); }
inline Time at(std::int64_t seconds) { return t0() + std::chrono::seconds(seconds); }

// Value of lower nearest rank floor(q * (n - 1)).
inline double exactLowerQuantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::floor(q * static_cast<double>(v.size() - 1)))];
}

// Prometheus quantile_over_time: linear interpolation between closest ranks.
inline double exactInterpolatedQuantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double rank = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

inline double relativeError(double got, double want) {
  return want == 0 ? std::abs(got) : std::abs(got - want) / std::abs(want);
}

}  // namespace attune::stats::testing
