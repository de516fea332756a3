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
  // boundary (in code units), so the codes are exactly those std::log gives.
  Codes encode(double v) const;
  FineCode fine(double v) const { return encode(v).fine; }
  // The value of a fine code (code != kNoValue).
  double fineValue(FineCode code) const;
  // The representative value of a sketch bucket (0 for kZeroBucket).
  double bucketValue(int bucket) const;

 private:
  double minValue_;
  double logMin_;
};

}  // namespace attune::stats
