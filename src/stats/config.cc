#include "stats/config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

namespace attune::stats {
namespace {

constexpr Duration kDay = std::chrono::hours(24);
constexpr int kMaxHistoryDays = 62;

Result<void> validateSeries(const SeriesConfig& c, const std::string& name) {
  if (!std::isfinite(c.minValue) || c.minValue <= 0) {
    return fail(ErrorCode::kInvalidArgument, "must be positive and finite", name + ".minValue");
  }
  if (c.recentWindow < std::chrono::seconds(1) || c.recentWindow > std::chrono::hours(24)) {
    return fail(ErrorCode::kOutOfRange, "must be between 1s and 24h", name + ".recentWindow");
  }
  if (c.history < kDay || c.history % kDay != Duration::zero() ||
      c.history / kDay > kMaxHistoryDays) {
    return fail(ErrorCode::kOutOfRange, "must be a whole number of days between 1 and 62",
                name + ".history");
  }
  if (!(c.hourOfDayQuantile >= 0 && c.hourOfDayQuantile <= 1)) {
    return fail(ErrorCode::kOutOfRange, "must be in [0, 1]", name + ".hourOfDayQuantile");
  }
  return {};
}

}  // namespace

Result<void> StatsConfig::validate() const {
  if (auto r = validateSeries(cpu, "cpu"); !r) return r;
  return validateSeries(memory, "memory");
}

int historyDays(const SeriesConfig& c) { return static_cast<int>(c.history / kDay); }

Duration historyCovering(Duration window) {
  const auto days = (window + kDay - Duration(1)) / kDay;
  return kDay * std::clamp<std::int64_t>(days, 1, kMaxHistoryDays);
}

}  // namespace attune::stats
