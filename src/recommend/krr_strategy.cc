#include "recommend/krr_strategy.h"

#include <algorithm>

#include "recommend/resource_pipeline.h"

namespace attune::recommend {
namespace {

class KrrStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "krr"; }
  Recommendation recommend(const StrategyInput& in) const override {
    return recommendEachWithinBounds(in, [&](Resource r, Explainer& ex) -> Outcome {
      const stats::Series& series = seriesOf(in, r);
      const std::string window = "over " + formatDuration(series.config().history);
      if (r == Resource::kCpu) {
        const auto p95 =
            require(series.quantile(in.now, kKrrCpuPercentile), r, "in the history window");
        if (!p95) return std::unexpected(p95.error());
        const double request = ex.step("request = p95 " + window, toUnits(r, *p95));
        ex.note("limit", "none");
        return ResourceOutcome{request, std::nullopt};
      }
      const auto max = require(series.quantile(in.now, 1.0), r, "in the history window");
      if (!max) return std::unexpected(max.error());
      double top = ex.step("max " + window, *max);
      if (const auto week = series.weekMax(in.now); week && *week > top) {
        top = ex.step("max over the last week", *week);
      }
      const double value =
          ex.step("request = limit = max × (1 + 15%)", top * (1 + kKrrMemoryBuffer));
      return ResourceOutcome{value, value};
    });
  }
};

}  // namespace

StrategyPtr makeKrrStrategy() { return std::make_unique<KrrStrategy>(); }

}  // namespace attune::recommend
