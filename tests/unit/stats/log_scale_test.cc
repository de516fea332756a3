#include "stats/log_scale.h"

#include <gtest/gtest.h>

#include <random>

#include "stats_testing.h"

namespace attune::stats {
namespace {

TEST(LogScaleTest, FineCodesRoundUpByAtMostTheFineRatio) {
  LogScale scale(1e-6);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> exponent(-6, 8);
  for (int i = 0; i < 100000; ++i) {
    const double v = std::pow(10.0, exponent(rng));
    const double decoded = scale.fineValue(scale.fine(v));
    ASSERT_GE(decoded, v * (1 - 1e-12)) << v;
    ASSERT_LE(decoded, v * kFineGamma * (1 + 1e-12)) << v;
  }
}

TEST(LogScaleTest, BucketValuesAreWithinTheSketchError) {
  LogScale scale(1.0);
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> exponent(0, 14);
  for (int i = 0; i < 100000; ++i) {
    const double v = std::pow(10.0, exponent(rng));
    const double got = scale.bucketValue(scale.encode(v).bucket);
    ASSERT_LE(testing::relativeError(got, v), kSketchRelativeError + 1e-9) << v;
  }
  EXPECT_LT(kSketchRelativeError, 0.01);
}

// The encoding (a table-driven logarithm with an exact fallback near code boundaries) gives
// exactly the codes of the reference definition ceil((ln v - ln minValue) / ln γ).
TEST(LogScaleTest, EncodeMatchesTheExactLogarithm) {
  for (double minValue : {1e-6, 1.0, 3.7e-3}) {
    const LogScale scale(minValue);
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<double> exponent(std::log10(minValue), 12);
    for (int i = 0; i < 200000; ++i) {
      // Random values, and values on (rounded) code boundaries.
      double v = std::pow(10.0, exponent(rng));
      if (i % 4 == 1) v = minValue * std::pow(kFineGamma, static_cast<double>(rng() % 60000));
      if (i % 4 == 2) v = minValue * std::pow(kSketchGamma, static_cast<double>(rng() % 1500));
      if (i % 4 == 3) v = std::nextafter(v, 0.0);
      const double l = std::log(v) - std::log(minValue);
      const double fine = std::max(std::min(std::ceil(l / std::log(kFineGamma)) + 2, 65535.0), 2.0);
      const double bucket =
          std::max(std::min(std::ceil(l / std::log(kSketchGamma)), double{kMaxBucket}), 0.0);
      const LogScale::Codes got = scale.encode(v);
      if (v < minValue) continue;
      ASSERT_EQ(got.fine, static_cast<FineCode>(fine)) << v;
      ASSERT_EQ(got.bucket, static_cast<int>(bucket)) << v;
    }
  }
}

TEST(LogScaleTest, ValuesBelowMinimumAreZero) {
  LogScale scale(1e-6);
  EXPECT_EQ(scale.encode(0).fine, kZeroCode);
  EXPECT_EQ(scale.encode(5e-7).bucket, kZeroBucket);
  EXPECT_EQ(scale.fineValue(kZeroCode), 0);
  EXPECT_EQ(scale.bucketValue(kZeroBucket), 0);
  EXPECT_DOUBLE_EQ(scale.fineValue(scale.fine(1e-6)), 1e-6);
}

TEST(LogScaleTest, HugeValuesClampToTheLargestCode) {
  LogScale scale(1.0);
  EXPECT_EQ(scale.fine(1e300), 65535);
}

}  // namespace
}  // namespace attune::stats
