#include "recommend/vpa_histogram.h"

#include <algorithm>

#include <cmath>

namespace attune::recommend {

VpaHistogramOptions vpaCpuHistogramOptions() {
  return {.firstBucketSize = 0.01, .maxValue = 1000.0};
}

VpaHistogramOptions vpaMemoryHistogramOptions() {
  return {.firstBucketSize = 1e7, .maxValue = 1e12};
}

VpaHistogram::VpaHistogram(const VpaHistogramOptions& options) : options_(options) {
  const double n =
      std::ceil(std::log(options.maxValue * (options.ratio - 1) / options.firstBucketSize + 1) /
                std::log(options.ratio));
  weights_.assign(static_cast<std::size_t>(n) + 1, 0.0);
}

int VpaHistogram::bucketOf(double value) const {
  if (value < options_.firstBucketSize) return 0;
  const double b = std::log(value * (options_.ratio - 1) / options_.firstBucketSize + 1) /
                   std::log(options_.ratio);
  return b >= numBuckets() - 1 ? numBuckets() - 1 : static_cast<int>(b);
}

double VpaHistogram::bucketStart(int bucket) const {
  return options_.firstBucketSize * (std::pow(options_.ratio, bucket) - 1) / (options_.ratio - 1);
}

void VpaHistogram::shiftReference(Time t) {
  const auto halfLife = options_.halfLife;
  const auto sinceEpoch = t.time_since_epoch();
  const Time rounded(halfLife * ((sinceEpoch + halfLife / 2) / halfLife));
  if (reference_) {
    const double exponent =
        std::round(std::chrono::duration<double>(*reference_ - rounded) / halfLife);
    const double scale = std::exp2(exponent);
    for (double& w : weights_) w *= scale;
    total_ *= scale;
  }
  reference_ = rounded;
}

double VpaHistogram::decayFactor(Time t) {
  if (!reference_ || t > *reference_ + options_.halfLife * static_cast<int>(kMaxDecayExponent)) {
    shiftReference(t);
  }
  return std::exp2(std::chrono::duration<double>(t - *reference_) / options_.halfLife);
}

void VpaHistogram::add(double value, double weight, Time t) {
  if (!(value >= 0) || !std::isfinite(value) || !(weight > 0) || !std::isfinite(weight)) return;
  const double decay = decayFactor(t);
  weights_[static_cast<std::size_t>(bucketOf(value))] += weight * decay;
  total_ += weight * decay;
}

void VpaHistogram::subtract(double value, double weight, Time t) {
  if (!(value >= 0) || !std::isfinite(value) || !(weight > 0) || !std::isfinite(weight)) return;
  double& bucket = weights_[static_cast<std::size_t>(bucketOf(value))];
  const double taken = std::min(weight * decayFactor(t), bucket);
  bucket -= taken;
  total_ = std::max(0.0, total_ - taken);
  if (bucket < kEpsilon) {
    total_ = std::max(0.0, total_ - bucket);
    bucket = 0;
  }
}

std::optional<double> VpaHistogram::percentile(double p) const {
  if (empty()) return std::nullopt;
  int first = 0;
  while (weights_[first] <= 0) ++first;
  int last = numBuckets() - 1;
  while (weights_[last] <= 0) --last;
  const double threshold = p * total_;
  double sum = 0;
  int bucket = first;
  for (; bucket < last; ++bucket) {
    sum += weights_[bucket];
    if (sum >= threshold) break;
  }
  return bucket < numBuckets() - 1 ? bucketStart(bucket + 1) : bucketStart(bucket);
}

void VpaHistograms::add(Time t, double cpuCores, double memoryBytes,
                        std::optional<double> cpuRequestCores) {
  constexpr double kMinCpuWeight = 0.1;
  cpu.add(cpuCores, std::max(cpuRequestCores.value_or(kMinCpuWeight), kMinCpuWeight), t);
  addMemory(t, memoryBytes);
}

void VpaHistograms::addMemory(Time t, double memoryBytes) {
  if (!(memoryBytes >= 0) || !std::isfinite(memoryBytes)) return;
  if (lastMemorySample_ && t < *lastMemorySample_) return;
  lastMemorySample_ = t;
  if (!memoryWindowEnd_) memoryWindowEnd_ = t;
  bool addPeak = false;
  if (t < *memoryWindowEnd_) {
    if (memoryPeak_ != 0 && memoryBytes > memoryPeak_) {
      memory.subtract(memoryPeak_, 1.0, *memoryWindowEnd_);
      addPeak = true;
    }
  } else {
    const Duration behind = t - *memoryWindowEnd_;
    *memoryWindowEnd_ += behind / kVpaMemoryAggregationInterval * kVpaMemoryAggregationInterval +
                         kVpaMemoryAggregationInterval;
    memoryPeak_ = 0;
    addPeak = true;
  }
  if (addPeak) {
    memory.add(memoryBytes, 1.0, *memoryWindowEnd_);
    memoryPeak_ = memoryBytes;
  }
}

}  // namespace attune::recommend
