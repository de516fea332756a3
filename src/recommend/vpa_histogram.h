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

  VpaHistogramOptions options_;
  std::vector<double> weights_;
  double total_ = 0;
  std::optional<Time> reference_;
};

// One container's CPU (cores) and memory (bytes) histograms, the vpa strategy's per-container
// state fed next to its ContainerStats: CPU samples weighted by the container's CPU request in
// cores (at least 0.1, as VPA does), memory samples with weight 1.
struct VpaHistograms {
  VpaHistogram cpu{vpaCpuHistogramOptions()};
  VpaHistogram memory{vpaMemoryHistogramOptions()};

  // Adds one observation; `cpuRequestCores` unset or below 0.1 weighs 0.1.
  void add(Time t, double cpuCores, double memoryBytes, std::optional<double> cpuRequestCores);
};

}  // namespace attune::recommend
