#include "recommend/attune_strategy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "recommend/resource_pipeline.h"

namespace attune::recommend {
namespace {

// The policy percentile: the larger of the history-window value and, when the stats keep that
// very quantile per hour, the busiest hour of the day's value.
std::expected<double, std::string> rawPercentile(const StrategyInput& in, Resource r, int p,
                                                 Explainer& ex) {
  const stats::Series& series = seriesOf(in, r);
  const double q = p / 100.0;
  const auto overall = require(series.quantile(in.now, q), r, "in the history window");
  if (!overall) return overall;
  double v = ex.step(percentileName(p) + " over " + formatDuration(series.config().history),
                     toUnits(r, *overall));
  if (std::abs(series.config().hourOfDayQuantile - q) > 1e-9) {
    ex.note("hour-of-day " + percentileName(p), "not kept by the stats: overall value only");
    return v;
  }
  if (const auto hourly = series.maxHourOfDayQuantile(in.now)) {
    if (toUnits(r, *hourly) > v) {
      v = ex.step("busiest hour-of-day " + percentileName(p), toUnits(r, *hourly));
    }
  }
  return v;
}

Outcome recommendResource(const StrategyInput& in, Resource r, Explainer& ex) {
  const ResourceSettings s = resolveSettings(in.policy, r);
  const auto raw = rawPercentile(in, r, s.percentile, ex);
  if (!raw) return std::unexpected(raw.error());
  double v = ex.step("× (1 + " + formatPercent(s.overheadPercent).substr(1) + ")",
                     *raw * (1 + s.overheadPercent / 100));
  const double days = daysOfData(in.stats, in.now);
  if (const double w = shortHistoryWidening(days, seriesOf(in, r).historyDays()); w > 0) {
    char what[96];
    std::snprintf(what, sizeof what, "× (1 + %.3g) for %.2g days of data", w, days);
    v = ex.step(what, v * (1 + w));
  }
  if (v < s.minAllowed || v > s.maxAllowed) {
    v = ex.step(
        "clamped to [" + formatUnits(r, s.minAllowed) + ", " + formatUnits(r, s.maxAllowed) + "]",
        std::clamp(v, s.minAllowed, s.maxAllowed));
  }
  const std::optional<double> request = currentRequest(in, r);
  v = applyChangeRules(v,
                       {.current = request,
                        .minChangePercent = kMinChangePercent,
                        .maxChangePercent = s.maxChangePercent,
                        .allowDecrease = s.allowDecrease},
                       ex);
  return withLimit(v, request, currentLimit(in, r), s.controlLimits, ex);
}

class AttuneStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "attune"; }
  Recommendation recommend(const StrategyInput& in) const override {
    return recommendEach(in,
                         [&](Resource r, Explainer& ex) { return recommendResource(in, r, ex); });
  }
};

}  // namespace

double shortHistoryWidening(double days, double historyDays) {
  if (days >= historyDays) return 0;
  if (days <= 0) return kMaxWidening;
  return std::clamp(1 / std::sqrt(days) - 1 / std::sqrt(historyDays), 0.0, kMaxWidening);
}

StrategyPtr makeAttuneStrategy() { return std::make_unique<AttuneStrategy>(); }

}  // namespace attune::recommend
