// The Vertical Pod Autoscaler's decaying exponential histogram
// (k8s.io/autoscaler vertical-pod-autoscaler/pkg/recommender/util): bucket n covers
// [first × (ratio^n - 1) / (ratio - 1), first × (ratio^(n+1) - 1) / (ratio - 1)); a sample at
// time t weighs weight × 2^((t - reference) / halfLife), so older samples count half as much per
// half-life. ContainerStats keeps no raw samples, so this aggregator is fed separately.
#pragma once

#include <chrono>
#include <optional>
#include <vector>

#include "core/time.h"

namespace attune::recommend {

struct VpaHistogramOptions {
  double firstBucketSize = 0.01;  // in the value's unit
  double maxValue = 1000;         // values above land in the last bucket
  double ratio = 1.05;            // each bucket 5% wider than the previous
  Duration halfLife = std::chrono::hours(24);
};

// VPA's defaults: CPU in cores from 0.01 core up to 1000 cores; memory in bytes from 10 MB
// (1e7) up to 1 TB (1e12).
VpaHistogramOptions vpaCpuHistogramOptions();
VpaHistogramOptions vpaMemoryHistogramOptions();

// Not thread-safe.
class VpaHistogram {
 public:
  explicit VpaHistogram(const VpaHistogramOptions& options);

  // Adds `value` (>= 0) with `weight` (> 0; VPA weighs CPU samples by the container's request,
  // at least 0.1) observed at `t`. Invalid values or weights are ignored. When t is more than
  // 100 half-lives past the reference time, all weights are rescaled to a new reference (the
  // result is unchanged, as in VPA).
  void add(double value, double weight, Time t);
  // VPA's SubtractSample: takes back min(weight × decay, the bucket's weight) from the bucket of
  // `value` (the inverse of add at the same `t`); a bucket left below epsilon is emptied.
  void subtract(double value, double weight, Time t);

  // VPA's Percentile: the end of the first bucket at which the cumulative weight reaches
  // p × total (the start of the last bucket if it is reached only there); nullopt when empty.
  std::optional<double> percentile(double p) const;
  bool empty() const { return total_ <= kEpsilon; }

  int numBuckets() const { return static_cast<int>(weights_.size()); }
  int bucketOf(double value) const;
  double bucketStart(int bucket) const;

 private:
  static constexpr double kEpsilon = 1e-4;  // VPA: 0.001 × the smallest sample weight (0.1)
  static constexpr double kMaxDecayExponent = 100;

  // Moves the reference to `t` rounded to a whole number of half-lives, rescaling the weights.
  void shiftReference(Time t);
  // 2^((t - reference) / halfLife), moving the reference first when t is too far ahead.
  double decayFactor(Time t);

  VpaHistogramOptions options_;
  std::vector<double> weights_;
  double total_ = 0;
  std::optional<Time> reference_;
};

// VPA's memory aggregation interval: the memory histogram holds one peak per interval.
inline constexpr Duration kVpaMemoryAggregationInterval = std::chrono::hours(24);

// One container's CPU (cores) and memory (bytes) histograms, the vpa strategy's per-container
// state fed next to its ContainerStats: CPU samples weighted by the container's CPU request in
// cores (at least 0.1, as VPA does); memory as VPA's ContainerState.addMemorySample: one peak
// per 24-hour interval with weight 1, at the interval's end. The first sample opens an interval
// ending 24 hours later; a sample at or after the end opens the interval holding it (the end
// moves by whole intervals); a larger sample within the interval replaces its peak (the old
// one subtracted, as VPA; a peak of 0 is never replaced). Samples older than the last one are
// ignored for memory, as in VPA.
struct VpaHistograms {
  VpaHistogram cpu{vpaCpuHistogramOptions()};
  VpaHistogram memory{vpaMemoryHistogramOptions()};

  // Adds one observation; `cpuRequestCores` unset or below 0.1 weighs 0.1.
  void add(Time t, double cpuCores, double memoryBytes, std::optional<double> cpuRequestCores);

 private:
  void addMemory(Time t, double memoryBytes);
  std::optional<Time> lastMemorySample_;
  std::optional<Time> memoryWindowEnd_;
  double memoryPeak_ = 0;
};

}  // namespace attune::recommend
