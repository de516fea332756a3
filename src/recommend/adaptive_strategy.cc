#include "recommend/adaptive_strategy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "recommend/attune_strategy.h"
#include "recommend/resource_pipeline.h"

namespace attune::recommend {
namespace {

std::string percentileName(int percentile) { return "p" + std::to_string(percentile); }

int hourOfDay(Time t) {
  const auto hours = std::chrono::floor<std::chrono::hours>(t.time_since_epoch()).count();
  return static_cast<int>(((hours % 24) + 24) % 24);
}

bool keepsHourOfDay(const stats::Series& series, int p) {
  return std::abs(series.config().hourOfDayQuantile - p / 100.0) <= 1e-9;
}

// CPU before the margin: the window's percentile, raised to the coming hours' percentile and to
// the recent P75.
std::expected<double, std::string> cpuRaw(const StrategyInput& in, int p, Explainer& ex) {
  const Resource r = Resource::kCpu;
  const stats::Series& series = seriesOf(in, r);
  const auto overall = require(series.quantile(in.now, p / 100.0), r, "in the history window");
  if (!overall) return overall;
  const auto recent = require(series.recentQuantile(in.now, 0.75), r,
                              "in the last " + formatDuration(series.config().recentWindow));
  if (!recent) return recent;
  const double level = ex.step(
      percentileName(p) + " over " + formatDuration(series.config().history), toUnits(r, *overall));
  double v = level;
  if (keepsHourOfDay(series, p)) {
    const int hour = hourOfDay(in.now);
    std::optional<double> coming;
    for (int k = 0; k <= kAdaptiveHoursAhead; ++k) {
      if (const auto h = series.hourOfDayQuantile(in.now, (hour + k) % 24)) {
        coming = std::max(coming.value_or(0.0), toUnits(r, *h));
      }
    }
    if (coming) {
      if (*coming > v) {
        char what[96];
        std::snprintf(what, sizeof what, "raised to the %s of hours %02d-%02d UTC",
                      percentileName(p).c_str(), hour, (hour + kAdaptiveHoursAhead) % 24);
        v = ex.step(what, *coming);
      }
    } else {
      ex.note("hour-of-day " + percentileName(p), "no sample in these hours: window value");
    }
  } else {
    ex.note("hour-of-day " + percentileName(p), "not kept by the stats: window value");
  }
  if (toUnits(r, *recent) > v) {
    v = ex.step("raised to the P75 of the last " + formatDuration(series.config().recentWindow),
                toUnits(r, *recent));
  }
  return v;
}

// Memory before the margin: the largest of the window's percentile, the busiest hour of the
// day's and the recent P75; at least the OOM bump.
std::expected<double, std::string> memoryRaw(const StrategyInput& in, int p, Explainer& ex) {
  const Resource r = Resource::kMemory;
  const stats::Series& series = seriesOf(in, r);
  const auto overall = require(series.quantile(in.now, p / 100.0), r, "in the history window");
  if (!overall) return overall;
  const auto recent = require(series.recentQuantile(in.now, 0.75), r,
                              "in the last " + formatDuration(series.config().recentWindow));
  if (!recent) return recent;
  double v = ex.step(percentileName(p) + " over " + formatDuration(series.config().history),
                     toUnits(r, *overall));
  if (keepsHourOfDay(series, p)) {
    if (const auto hourly = series.maxHourOfDayQuantile(in.now);
        hourly && toUnits(r, *hourly) > v) {
      v = ex.step("busiest hour-of-day " + percentileName(p), toUnits(r, *hourly));
    }
  }
  if (toUnits(r, *recent) > v) {
    v = ex.step("raised to the P75 of the last " + formatDuration(series.config().recentWindow),
                toUnits(r, *recent));
  }
  if (const auto kill = in.stats.maxOomMemory(in.now)) {
    const auto m = static_cast<double>(kill->value());
    const double bump = std::max(m + kAdaptiveOomMinBumpBytes, m * kAdaptiveOomBumpRatio);
    if (bump > v) v = ex.step("raised to the OOM bump max(m + 100Mi, 1.2 m)", bump);
  }
  return v;
}

Outcome recommendResource(const StrategyInput& in, Resource r, Explainer& ex) {
  const ResourceSettings s = resolveSettings(in.policy, r);
  const auto raw =
      r == Resource::kCpu ? cpuRaw(in, s.percentile, ex) : memoryRaw(in, s.percentile, ex);
  if (!raw) return std::unexpected(raw.error());
  const bool cpu = r == Resource::kCpu;
  double v = cpu ? ex.step("× (1 + 30%)", *raw * (1 + kAdaptiveCpuMargin))
                 : ex.step("× (1 + 15%)", *raw * (1 + kAdaptiveMemoryMargin));
  if (v < s.minAllowed || v > s.maxAllowed) {
    v = ex.step(
        "clamped to [" + formatUnits(r, s.minAllowed) + ", " + formatUnits(r, s.maxAllowed) + "]",
        std::clamp(v, s.minAllowed, s.maxAllowed));
  }
  const std::optional<double> request = currentRequest(in, r);
  // Increases are never capped nor held back: a container short of CPU or memory gets all of
  // it at once, however small. Decreases under 10% keep the current value, and are capped at
  // maxChangePercent during the first day of data only: after that the history says where the
  // container runs, and a pod recreated at its template's size comes back down in one step.
  const bool increase = request && v > *request;
  const bool capped =
      request && v < *request && daysOfData(in.stats, in.now) < kAdaptiveCappedDecreaseDays;
  v = applyChangeRules(
      v,
      {.current = request,
       .minChangePercent = increase ? 0.0 : kMinChangePercent,
       .maxChangePercent = capped ? std::optional<int>(s.maxChangePercent) : std::nullopt,
       .allowDecrease = s.allowDecrease},
      ex);
  return withLimit(v, request, currentLimit(in, r), s.controlLimits, ex);
}

class AdaptiveStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "adaptive"; }
  Recommendation recommend(const StrategyInput& in) const override {
    return recommendEach(in,
                         [&](Resource r, Explainer& ex) { return recommendResource(in, r, ex); });
  }
};

}  // namespace

StrategyPtr makeAdaptiveStrategy() { return std::make_unique<AdaptiveStrategy>(); }

}  // namespace attune::recommend
