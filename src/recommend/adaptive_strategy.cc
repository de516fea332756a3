#include "recommend/adaptive_strategy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>

#include "recommend/attune_strategy.h"
#include "recommend/resource_pipeline.h"
#include "recommend/vpa_histogram.h"

namespace attune::recommend {
namespace {

// The decaying histograms adaptive keeps per container, fed every sample in time order.
class AdaptiveContainerState final : public ContainerState {
 public:
  void add(const stats::Sample& s) override {
    // The CPU the container asked for: usage × (1 + PSI waiting rate), as the stats' series.
    cpu.add(s.cpuCores * (1 + s.psiCpuWaitingRate.value_or(0.0)), kSampleWeight, s.time);
    memory.add(s.memoryBytes, kSampleWeight, s.time);
  }
  VpaHistogram cpu{withHalfLife(vpaCpuHistogramOptions(), kAdaptiveCpuHalfLife)};
  VpaHistogram memory{withHalfLife(vpaMemoryHistogramOptions(), kAdaptiveMemoryHalfLife)};

 private:
  static constexpr double kSampleWeight = 1;  // every sample counts alike
  static VpaHistogramOptions withHalfLife(VpaHistogramOptions o, Duration halfLife) {
    o.halfLife = halfLife;
    return o;
  }
};

// The base of resource `r` before the recent P75: the policy percentile `p` of the decaying
// histogram when the caller keeps one, else of the history window. Either way the history
// window must hold a sample (fail closed).
std::expected<double, std::string> baseLevel(const StrategyInput& in, Resource r, int p,
                                             Explainer& ex) {
  const stats::Series& series = seriesOf(in, r);
  const auto overall = require(series.quantile(in.now, p / 100.0), r, "in the history window");
  if (!overall) return overall;
  const auto* state = dynamic_cast<const AdaptiveContainerState*>(in.state);
  const VpaHistogram* histogram =
      state == nullptr ? nullptr : (r == Resource::kCpu ? &state->cpu : &state->memory);
  if (histogram == nullptr || histogram->empty()) {
    return ex.step(percentileName(p) + " over " + formatDuration(series.config().history) +
                       " (no decaying histogram kept)",
                   toUnits(r, *overall));
  }
  const Duration halfLife = r == Resource::kCpu ? kAdaptiveCpuHalfLife : kAdaptiveMemoryHalfLife;
  return ex.step(
      percentileName(p) + " of the decaying histogram (half-life " + formatDuration(halfLife) + ")",
      toUnits(r, *histogram->percentile(p / 100.0)));
}

// Before the margin: the base raised to the recent P75; memory at least the OOM bump.
std::expected<double, std::string> rawLevel(const StrategyInput& in, Resource r, int p,
                                            Explainer& ex) {
  const auto base = baseLevel(in, r, p, ex);
  if (!base) return base;
  const stats::Series& series = seriesOf(in, r);
  const auto recent = require(series.recentQuantile(in.now, 0.75), r,
                              "in the last " + formatDuration(series.config().recentWindow));
  if (!recent) return recent;
  double v = *base;
  if (toUnits(r, *recent) > v) {
    v = ex.step("raised to the P75 of the last " + formatDuration(series.config().recentWindow),
                toUnits(r, *recent));
  }
  if (r == Resource::kMemory) {
    if (const auto kill = in.stats.maxOomMemory(in.now)) {
      const auto m = static_cast<double>(kill->value());
      const double bump = std::max(m + kAdaptiveOomMinBumpBytes, m * kAdaptiveOomBumpRatio);
      if (bump > v) v = ex.step("raised to the OOM bump max(m + 100Mi, 1.2 m)", bump);
    }
  }
  return v;
}

Outcome recommendAdaptive(const StrategyInput& in, Resource r, Explainer& ex) {
  const ResourceSettings s = resolveSettings(in.policy, r);
  const auto raw = rawLevel(in, r, s.percentile, ex);
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
  AdmissionSizing admissionSizing() const override { return AdmissionSizing::kRecommendation; }
  ContainerStatePtr newContainerState() const override {
    return std::make_unique<AdaptiveContainerState>();
  }
  Recommendation recommend(const StrategyInput& in) const override {
    return recommendEach(in,
                         [&](Resource r, Explainer& ex) { return recommendAdaptive(in, r, ex); });
  }
};

}  // namespace

StrategyPtr makeAdaptiveStrategy() { return std::make_unique<AdaptiveStrategy>(); }

}  // namespace attune::recommend
