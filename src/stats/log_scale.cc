#include "stats/log_scale.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

namespace attune::stats {
namespace {

const double kLogFine = std::log(kFineGamma);
const double kLogSketch = std::log(kSketchGamma);
const double kInvLogFine = 1 / kLogFine;
const double kInvLogSketch = 1 / kLogSketch;
const double kLn2 = std::log(2.0);

// ln(m0) and 1/m0 for m0 = 1 + i/256, the mantissa's top 8 bits.
constexpr int kTableBits = 8;
struct LogTable {
  std::array<double, 1 << kTableBits> ln;
  std::array<double, 1 << kTableBits> inv;
};
const LogTable kTable = [] {
  LogTable t;
  for (int i = 0; i < (1 << kTableBits); ++i) {
    const double m0 = 1 + i / static_cast<double>(1 << kTableBits);
    t.ln[static_cast<std::size_t>(i)] = std::log(m0);
    t.inv[static_cast<std::size_t>(i)] = 1 / m0;
  }
  return t;
}();

// How close (in code units) a fast-path code position may come to a code boundary before the
// exact path decides; the fast logarithm is within ~1e-12 of std::log, so both paths round the
// same way outside this margin.
constexpr double kBoundaryMargin = 1e-6;

// ln(v) for a positive normal v from its exponent and mantissa bits: a table for the top 8
// mantissa bits and a degree-5 series for the rest (|r| < 2^-8, truncation < 1e-15).
double fastLog(std::uint64_t bits) {
  const auto exponent = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
  const auto i = static_cast<std::size_t>((bits >> (52 - kTableBits)) & ((1 << kTableBits) - 1));
  const double m = std::bit_cast<double>((bits & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
  const double m0 = 1 + static_cast<double>(i) / (1 << kTableBits);
  const double r = (m - m0) * kTable.inv[i];  // m - m0 is exact
  const double p = r * (1 - r * (0.5 - r * (1.0 / 3 - r * (0.25 - r * 0.2))));
  return exponent * kLn2 + kTable.ln[i] + p;
}

}  // namespace

LogScale::LogScale(double minValue) : minValue_(minValue), logMin_(std::log(minValue)) {}

LogScale::Codes LogScale::encode(double v) const {
  if (!(v >= minValue_)) return {kZeroCode, kZeroBucket};
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const auto exponentBits = (bits >> 52) & 0x7ff;
  if (exponentBits != 0 && exponentBits != 0x7ff) {  // normal: try the fast path
    const double l = fastLog(bits) - logMin_;
    const double fineX = l * kInvLogFine;
    const double bucketX = l * kInvLogSketch;  // < fineX
    if (fineX > kBoundaryMargin && fineX < 65536) {
      const auto fineI = static_cast<int>(fineX);
      const auto bucketI = static_cast<int>(bucketX);
      const double fineF = fineX - fineI;
      const double bucketF = bucketX - bucketI;
      if (fineF > kBoundaryMargin && fineF < 1 - kBoundaryMargin && bucketF > kBoundaryMargin &&
          bucketF < 1 - kBoundaryMargin) {
        // ceil(x) = trunc(x) + 1 for non-integral x > 0.
        return {static_cast<FineCode>(std::min(fineI + 3, 65535)),
                std::min(bucketI + 1, kMaxBucket)};
      }
    }
  }
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
