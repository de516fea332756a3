// Test helpers for the recommend module: minute samples with fixed timestamps and exact,
// sort-based reference statistics computed independently of the stats module.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/time.h"
#include "recommend/recommendation.h"
#include "stats/container_stats.h"

namespace attune::recommend::testing {

// 2024-01-01T00:00:00Z, a Monday.
inline Time t0() { return Time(std::chrono::seconds(1704067200)); }
inline Time minute(std::int64_t m) { return t0() + std::chrono::minutes(m); }

// Deterministic pseudo-uniform value in [0, 1) for index i.
inline double scramble(std::int64_t i) {
  return static_cast<double>((static_cast<std::uint64_t>(i) * 2654435761u) % 10007u) / 10007.0;
}

// One sample per minute for minutes [0, count): cpu(m) cores, mem(m) bytes.
inline std::vector<stats::Sample> minuteSamples(std::int64_t count,
                                                const std::function<double(std::int64_t)>& cpu,
                                                const std::function<double(std::int64_t)>& mem) {
  std::vector<stats::Sample> out;
  for (std::int64_t m = 0; m < count; ++m) {
    out.push_back({.time = minute(m), .cpuCores = cpu(m), .memoryBytes = mem(m)});
  }
  return out;
}

inline void feed(stats::ContainerStats& s, const std::vector<stats::Sample>& samples) {
  for (const stats::Sample& x : samples) s.add(x);
}

// Values of the samples with from <= time < to.
inline std::vector<double> cpuIn(const std::vector<stats::Sample>& v, Time from, Time to) {
  std::vector<double> out;
  for (const auto& s : v)
    if (s.time >= from && s.time < to) out.push_back(s.cpuCores);
  return out;
}
inline std::vector<double> memoryIn(const std::vector<stats::Sample>& v, Time from, Time to) {
  std::vector<double> out;
  for (const auto& s : v)
    if (s.time >= from && s.time < to) out.push_back(s.memoryBytes);
  return out;
}

// Lower nearest rank floor(q * (n - 1)).
inline double lowerQuantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(std::floor(q * static_cast<double>(v.size() - 1)))];
}

// Prometheus quantile_over_time: linear interpolation between closest ranks.
inline double interpolatedQuantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double rank = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const auto hi = static_cast<std::size_t>(std::ceil(rank));
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

inline double maxOf(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

inline double cpuRequest(const Recommendation& r) {
  return static_cast<double>(r.resources.cpuRequest.value().value());
}
inline double memoryRequest(const Recommendation& r) {
  return static_cast<double>(r.resources.memoryRequest.value().value());
}

// True if some explanation step's `what` contains `text`.
inline bool explains(const Recommendation& r, const std::string& text) {
  return std::any_of(r.explanation.begin(), r.explanation.end(), [&](const ExplanationStep& s) {
    return s.what.find(text) != std::string::npos;
  });
}

}  // namespace attune::recommend::testing
