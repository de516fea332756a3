#include "stats/log_scale.h"

#include <algorithm>
#include <cmath>

namespace attune::stats {
namespace {

const double kLogFine = std::log(kFineGamma);
const double kLogSketch = std::log(kSketchGamma);

}  // namespace

namespace detail {

const LogTable kLogTable = [] {
  LogTable t;
  for (int i = 0; i < (1 << kLogTableBits); ++i) {
    const double m0 = 1 + i / static_cast<double>(1 << kLogTableBits);
    t.ln[static_cast<std::size_t>(i)] = std::log(m0);
    t.inv[static_cast<std::size_t>(i)] = 1 / m0;
  }
  t.ln2 = std::log(2.0);
  t.invLogFine = 1 / kLogFine;
  t.invLogSketch = 1 / kLogSketch;
  return t;
}();

}  // namespace detail

LogScale::LogScale(double minValue) : minValue_(minValue), logMin_(std::log(minValue)) {}

LogScale::Codes LogScale::encodeExact(double v) const {
  if (!(v >= minValue_)) return {kZeroCode, kZeroBucket};
  const double l = std::log(v) - logMin_;  // >= 0 up to rounding
  const double fine = std::min(std::ceil(l / kLogFine) + 2, 65535.0);
  const double bucket = std::min(std::ceil(l / kLogSketch), static_cast<double>(kMaxBucket));
  return {static_cast<FineCode>(std::max(fine, 2.0)), static_cast<int>(std::max(bucket, 0.0))};
}

double LogScale::fineValue(FineCode code) const {
  if (code <= kZeroCode) return 0;
  return std::exp(logMin_ + (code - 2) * kLogFine);
}

double LogScale::bucketValue(int bucket) const {
  if (bucket < 0) return 0;
  return std::exp(logMin_ + bucket * kLogSketch) * 2 / (kSketchGamma + 1);
}

}  // namespace attune::stats
