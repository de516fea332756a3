// The vpa strategy: the Vertical Pod Autoscaler recommender's formulas
// (vertical-pod-autoscaler/pkg/recommender/logic). Target p90, lower bound p50, upper bound p95
// of usage; +15% safety margin on all three; confidence multipliers for short history; a
// per-pod minimum (25m CPU, 250Mi memory) split evenly across the pod's containers; an OOM kill
// raises memory to max(OOM memory + 100Mi, OOM memory × 1.2). docs/strategies.md has details.
#pragma once

#include <optional>

#include "recommend/recommendation.h"
#include "recommend/strategy.h"
#include "recommend/vpa_histogram.h"
#include "stats/container_stats.h"

namespace attune::recommend {

inline constexpr double kVpaTargetPercentile = 0.90;
inline constexpr double kVpaLowerBoundPercentile = 0.50;
inline constexpr double kVpaUpperBoundPercentile = 0.95;
inline constexpr double kVpaSafetyMargin = 0.15;
inline constexpr double kVpaPodMinCpuMillicores = 25;
inline constexpr double kVpaPodMinMemoryBytes = 250.0 * 1024 * 1024;
inline constexpr double kVpaOomMinBumpBytes = 100.0 * 1024 * 1024;
inline constexpr double kVpaOomBumpRatio = 1.2;

// Raw usage percentiles of one resource, in units (millicores or bytes).
struct VpaPercentiles {
  double lowerBound = 0;  // p50
  double target = 0;      // p90
  double upperBound = 0;  // p95
};

// The recommended range of one resource, in units. upperBound is +infinity at confidence 0.
struct VpaEstimate {
  double lowerBound = 0;
  double target = 0;
  double upperBound = 0;
};

// VPA's confidence: min(days between the first and last sample, samples / 1440) — the number
// of days of history, counting 1 sample per minute as a full day's worth at 1440 samples.
double vpaConfidence(const stats::ContainerStats& s);

// The percentiles of a VpaHistogram (value unit converted: cores × 1000 for CPU); nullopt if
// the histogram is empty.
std::optional<VpaPercentiles> vpaPercentiles(const VpaHistogram& h, Resource r);

// VPA's post-processing of raw percentiles, in order: memory target and upper bound raised to
// the OOM bump (max(oom + 100Mi, oom × 1.2)) when `oomMemory` is set; × (1 + 15%); upper bound ×
// (1 + 1/confidence); lower bound × (1 + 0.001/confidence)^-2; each at least the per-pod
// minimum / containersInPod.
VpaEstimate vpaEstimate(Resource r, const VpaPercentiles& raw, double confidence,
                        int containersInPod, std::optional<double> oomMemory);

// Reads its percentiles from VPA's decaying histograms (half-life 24h), which it keeps as its
// per-container state (newContainerState; every CPU sample weighs the same); without that state
// it uses ContainerStats' long-horizon percentiles (for memory VPA uses a histogram of per-day
// peaks; the stats keep none, so memory percentiles are of all samples). Recommends the target
// and keeps the current limit/request ratio (VPA's default RequestsAndLimits). The policy's
// bounds and change rules are not applied.
StrategyPtr makeVpaStrategy();

}  // namespace attune::recommend
