// Logarithmic encodings of non-negative values, the basis of every compact structure here.
//
// Fine codes (16 bit, ratio kFineGamma = 1.0005): a value is rounded UP to the next code, so a
// decoded value v' satisfies v <= v' <= v * 1.0005 for minValue <= v <= minValue * 1.7e14.
// Used for hourly maxima and hourly quantiles (peak, 7-day max, hour-of-day percentiles).
//
// Sketch buckets (ratio kSketchGamma = 1.02, DDSketch-style): bucket b >= 0 holds values in
// (minValue * γ^(b-1), minValue * γ^b]; its representative value 2 * minValue * γ^b / (γ + 1)
// is within kSketchRelativeError (0.990%) of every value in the bucket.
//
// Values below minValue are "zero": fine code kZeroCode, bucket kZeroBucket, decoded as 0.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace attune::stats {

inline constexpr double kFineGamma = 1.0005;
inline constexpr double kSketchGamma = 1.02;
// Relative error bound of every sketch quantile: (γ - 1) / (γ + 1).
inline constexpr double kSketchRelativeError = (kSketchGamma - 1) / (kSketchGamma + 1);

using FineCode = std::uint16_t;
inline constexpr FineCode kNoValue = 0;   // an empty slot; never produced by fine()
inline constexpr FineCode kZeroCode = 1;  // a value below minValue
inline constexpr int kZeroBucket = -1;
inline constexpr int kMaxBucket = 1 << 14;

class LogScale {
 public:
  // Requires minValue > 0 and finite.
  explicit LogScale(double minValue);

  struct Codes {
    FineCode fine;
    int bucket;
  };
  // Both encodings of `v` (finite, >= 0) from one logarithm: a table-driven one from the
  // IEEE-754 exponent and mantissa bits, or std::log when `v` lies within 1e-6 of a code
  // boundary (in code units), so the codes are exactly those std::log gives. Inline: it is on
  // the ingest path twice per sample.
  Codes encode(double v) const;
  FineCode fine(double v) const { return encode(v).fine; }
  // The value of a fine code (code != kNoValue).
  double fineValue(FineCode code) const;
  // The representative value of a sketch bucket (0 for kZeroBucket).
  double bucketValue(int bucket) const;

 private:
  // The exact path: std::log (also for values below minValue, subnormals and infinities).
  Codes encodeExact(double v) const;

  double minValue_;
  double logMin_;
};

namespace detail {

// ln(m0) and 1/m0 for m0 = 1 + i/256 (the mantissa's top 8 bits), and the constants of the
// fast logarithm (log_scale.cc).
inline constexpr int kLogTableBits = 8;
struct LogTable {
  std::array<double, 1 << kLogTableBits> ln;
  std::array<double, 1 << kLogTableBits> inv;
  double ln2;
  double invLogFine;    // 1 / ln(kFineGamma)
  double invLogSketch;  // 1 / ln(kSketchGamma)
};
extern const LogTable kLogTable;

// How close (in code units) a fast-path code position may come to a code boundary before the
// exact path decides. The fast logarithm below is within 6e-11 of std::log (1.2e-7 fine-code
// units, 3e-9 bucket units), so both paths round the same way outside this margin.
inline constexpr double kBoundaryMargin = 1e-6;

}  // namespace detail

inline LogScale::Codes LogScale::encode(double v) const {
  const auto bits = std::bit_cast<std::uint64_t>(v);
  const auto exponentBits = static_cast<int>(bits >> 52);              // v > 0 here: no sign bit
  if (v >= minValue_ && exponentBits != 0 && exponentBits != 0x7ff) {  // normal: fast path
    const detail::LogTable& t = detail::kLogTable;
    // ln(v) = e ln 2 + ln(m0) + ln(1 + r) with m0 the top 8 mantissa bits, r = (m - m0) / m0 in
    // [0, 2^-8) (m - m0 is exact); ln(1 + r) by a degree-3 series (truncation < r^4/4 < 6e-11).
    const auto i = static_cast<std::size_t>((bits >> (52 - detail::kLogTableBits)) &
                                            ((1u << detail::kLogTableBits) - 1));
    constexpr std::uint64_t kOne = 0x3ff0000000000000ULL;
    const double m = std::bit_cast<double>((bits & 0x000fffffffffffffULL) | kOne);
    const double m0 = std::bit_cast<double>((bits & 0x000ff00000000000ULL) | kOne);
    const double r = (m - m0) * t.inv[i];
    const double p = r * (1 - r * (0.5 - r * (1.0 / 3)));
    const double l = ((exponentBits - 1023) * t.ln2 - logMin_ + t.ln[i]) + p;
    const double fineX = l * t.invLogFine;
    const double bucketX = l * t.invLogSketch;  // < fineX
    if (fineX > detail::kBoundaryMargin && fineX < 65536) {
      const auto fineI = static_cast<int>(fineX);
      const auto bucketI = static_cast<int>(bucketX);
      const double fineF = fineX - fineI;
      const double bucketF = bucketX - bucketI;
      // Both fractions in (margin, 1 - margin): |f - 0.5| < 0.5 - margin.
      constexpr double kHalfWidth = 0.5 - detail::kBoundaryMargin;
      if (std::max(std::abs(fineF - 0.5), std::abs(bucketF - 0.5)) < kHalfWidth) {
        // ceil(x) = trunc(x) + 1 for non-integral x > 0.
        return {static_cast<FineCode>(std::min(fineI + 3, 65535)),
                std::min(bucketI + 1, kMaxBucket)};
      }
    }
  }
  return encodeExact(v);
}

}  // namespace attune::stats
