#include "stats/series.h"

#include <algorithm>
#include <chrono>

namespace attune::stats {
namespace {

// Seconds of `now`, clamped into the representable range.
Seconds clampSeconds(Time now) {
  if (auto s = toSeconds(now)) return *s;
  return now.time_since_epoch().count() < 0 ? 0 : UINT32_MAX;
}

}  // namespace

Series::Series(const SeriesConfig& config)
    : config_(&config),
      recentWindow_(static_cast<Seconds>(
          std::chrono::duration_cast<std::chrono::seconds>(config.recentWindow).count())),
      historyDays_(stats::historyDays(config)),
      hourOfDayQuantile_(config.hourOfDayQuantile),
      scale_(config.minValue) {}

std::optional<double> Series::fineValue(FineCode code) const {
  if (code == kNoValue) return std::nullopt;
  return scale_.fineValue(code);
}

std::optional<double> Series::recentQuantile(Time now, double q) const {
  return recent_.quantile(clampSeconds(now), recentWindow_, q);
}

std::optional<double> Series::peak(Time now) const {
  return fineValue(hours_.maxCode(hourIndex(clampSeconds(now)), true));
}

std::optional<double> Series::weekMax(Time now) const {
  return fineValue(hours_.maxCode(hourIndex(clampSeconds(now)), false));
}

std::optional<double> Series::quantile(Time now, double q) const {
  return days_.window(dayIndex(clampSeconds(now)), historyDays_).quantile(q, scale_);
}

std::uint64_t Series::count(Time now) const {
  return days_.total(dayIndex(clampSeconds(now)), historyDays_);
}

std::optional<double> Series::hourOfDayQuantile(Time now, int hourOfDay) const {
  return fineValue(hours_.hourOfDayQuantileCode(hourIndex(clampSeconds(now)), hourOfDay,
                                                config_->hourOfDayQuantile));
}

std::optional<double> Series::maxHourOfDayQuantile(Time now) const {
  return fineValue(
      hours_.maxQuantileCode(hourIndex(clampSeconds(now)), config_->hourOfDayQuantile));
}

std::size_t Series::heapBytes() const {
  return recent_.heapBytes() + hours_.heapBytes() + days_.heapBytes();
}

void Series::encode(Writer& w) const {
  recent_.encode(w, recentWindow_);
  hours_.encode(w);
  days_.encode(w);
}

void Series::decode(Reader& r) {
  recent_.decode(r);
  hours_.decode(r);
  days_.decode(r);
}

}  // namespace attune::stats
