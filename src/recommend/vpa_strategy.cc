#include "recommend/vpa_strategy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "recommend/resource_pipeline.h"

namespace attune::recommend {
namespace {

VpaEstimate estimate(Resource r, const VpaPercentiles& raw, double confidence, int containers,
                     std::optional<double> oomMemory, Explainer& ex) {
  VpaEstimate e{raw.lowerBound, raw.target, raw.upperBound};
  ex.step("p50 (lower bound)", e.lowerBound);
  ex.step("p90 (target)", e.target);
  ex.step("p95 (upper bound)", e.upperBound);
  if (r == Resource::kMemory && oomMemory) {
    const double bump = std::max(*oomMemory + kVpaOomMinBumpBytes, *oomMemory * kVpaOomBumpRatio);
    if (bump > e.target) e.target = ex.step("target raised to OOM bump", bump);
    e.upperBound = std::max(e.upperBound, bump);
  }
  e.lowerBound *= 1 + kVpaSafetyMargin;
  e.upperBound *= 1 + kVpaSafetyMargin;
  e.target = ex.step("target × (1 + 15%)", e.target * (1 + kVpaSafetyMargin));
  e.upperBound = confidence > 0 ? e.upperBound * (1 + 1 / confidence)
                                : std::numeric_limits<double>::infinity();
  e.lowerBound = confidence > 0 ? e.lowerBound * std::pow(1 + 0.001 / confidence, -2.0) : 0;
  const double minimum = (r == Resource::kCpu ? kVpaPodMinCpuMillicores : kVpaPodMinMemoryBytes) /
                         std::max(containers, 1);
  if (e.target < minimum) e.target = ex.step("raised to pod minimum / containers", minimum);
  e.lowerBound = std::max(e.lowerBound, minimum);
  e.upperBound = std::max(e.upperBound, minimum);
  ex.step("lower bound (× (1 + 15%) × (1 + 0.001/confidence)^-2)", e.lowerBound);
  if (std::isinf(e.upperBound)) {
    ex.note("upper bound", "unbounded (no history)");
  } else {
    ex.step("upper bound (× (1 + 15%) × (1 + 1/confidence))", e.upperBound);
  }
  return e;
}

// VPA's per-container state: its decaying histograms. Every CPU sample weighs the same (VPA's
// minimum weight): history is read without the request in force at each sample, and a weight
// that does not change gives the same percentiles as weighting by a request that did not.
class VpaContainerState final : public ContainerState {
 public:
  void add(const stats::Sample& s) override {
    histograms.add(s.time, s.cpuCores, s.memoryBytes, std::nullopt);
  }
  VpaHistograms histograms;
};

class VpaStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "vpa"; }
  AdmissionSizing admissionSizing() const override { return AdmissionSizing::kRecommendation; }
  ContainerStatePtr newContainerState() const override {
    return std::make_unique<VpaContainerState>();
  }
  Recommendation recommend(const StrategyInput& in) const override {
    const auto* state = dynamic_cast<const VpaContainerState*>(in.state);
    const VpaHistograms* vpa = state != nullptr ? &state->histograms : nullptr;
    const double confidence = vpaConfidence(in.stats);
    std::optional<double> oom;
    if (const auto kill = in.stats.maxOomMemory(in.now)) oom = static_cast<double>(kill->value());
    return recommendEachWithinBounds(in, [&](Resource r, Explainer& ex) -> Outcome {
      VpaPercentiles raw;
      const VpaHistogram* histogram =
          vpa == nullptr ? nullptr : (r == Resource::kCpu ? &vpa->cpu : &vpa->memory);
      if (const auto fromHistogram = histogram ? vpaPercentiles(*histogram, r) : std::nullopt) {
        raw = *fromHistogram;
        ex.note("percentiles from", "decaying histogram (half-life 24h, buckets +5%)");
      } else {
        const stats::Series& series = seriesOf(in, r);
        for (auto [q, out] : {std::pair{kVpaLowerBoundPercentile, &raw.lowerBound},
                              std::pair{kVpaTargetPercentile, &raw.target},
                              std::pair{kVpaUpperBoundPercentile, &raw.upperBound}}) {
          const auto v = require(series.quantile(in.now, q), r, "in the history window");
          if (!v) return std::unexpected(v.error());
          *out = toUnits(r, *v);
        }
        ex.note("percentiles from", "long-horizon sketch (no decaying histogram kept)");
      }
      char what[48];
      std::snprintf(what, sizeof what, "%.3g days", confidence);
      ex.note("confidence", what);
      const VpaEstimate e = estimate(r, raw, confidence, in.containersInPod, oom, ex);
      return withLimit(e.target, currentRequest(in, r), currentLimit(in, r), true, ex);
    });
  }
};

}  // namespace

double vpaConfidence(const stats::ContainerStats& s) {
  const auto first = s.firstSampleTime();
  const auto last = s.lastSampleTime();
  if (!first || !last) return 0;
  const double lifespanDays = std::chrono::duration<double>(*last - *first).count() / 86400.0;
  return std::min(lifespanDays, static_cast<double>(s.sampleCount()) / (60.0 * 24.0));
}

std::optional<VpaPercentiles> vpaPercentiles(const VpaHistogram& h, Resource r) {
  if (h.empty()) return std::nullopt;
  return VpaPercentiles{toUnits(r, *h.percentile(kVpaLowerBoundPercentile)),
                        toUnits(r, *h.percentile(kVpaTargetPercentile)),
                        toUnits(r, *h.percentile(kVpaUpperBoundPercentile))};
}

VpaEstimate vpaEstimate(Resource r, const VpaPercentiles& raw, double confidence,
                        int containersInPod, std::optional<double> oomMemory) {
  std::vector<ExplanationStep> unused;
  Explainer ex(r, unused);
  return estimate(r, raw, confidence, containersInPod, oomMemory, ex);
}

StrategyPtr makeVpaStrategy() { return std::make_unique<VpaStrategy>(); }

}  // namespace attune::recommend
