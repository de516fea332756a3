#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "stats/day_histograms.h"
#include "stats_testing.h"

namespace attune::stats {
namespace {

using testing::exactLowerQuantile;
using testing::relativeError;

struct Distribution {
  const char* name;
  std::function<double(std::mt19937_64&)> draw;
};

std::vector<Distribution> distributions() {
  return {
      {"uniform", [](std::mt19937_64& g) { return std::uniform_real_distribution(0.1, 4.0)(g); }},
      {"lognormal", [](std::mt19937_64& g) { return std::lognormal_distribution(0.0, 1.5)(g); }},
      {"pareto",  // heavy-tailed, alpha = 1.1
       [](std::mt19937_64& g) {
         return 0.01 / std::pow(1 - std::uniform_real_distribution(0.0, 1.0)(g), 1 / 1.1);
       }},
      {"constant", [](std::mt19937_64&) { return 0.25; }},
      {"bimodal-with-zeros",
       [](std::mt19937_64& g) {
         const double u = std::uniform_real_distribution(0.0, 1.0)(g);
         return u < 0.3 ? 0.0 : (u < 0.8 ? 0.05 : 3.0 + u);
       }},
  };
}

TEST(HistogramTest, QuantilesAreWithinOnePercentOfExact) {
  const LogScale scale(1e-6);
  for (const Distribution& d : distributions()) {
    std::mt19937_64 rng(42);
    std::vector<double> values;
    Histogram h;
    for (int i = 0; i < 20000; ++i) {
      values.push_back(d.draw(rng));
      h.add(scale.encode(values.back()).bucket);
    }
    for (double q : {0.0, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1.0}) {
      const double want = exactLowerQuantile(values, q);
      const double got = *h.quantile(q, scale);
      EXPECT_LE(relativeError(got, want), 0.01) << d.name << " q=" << q;
    }
  }
}

TEST(HistogramTest, EncodingRoundTripsAndMerges) {
  Histogram h;
  for (int b : {-1, 5, 5, 9, 400, 401, 1000}) h.add(b);
  Writer w;
  h.encode(w);
  h.encode(w);
  Reader r(w.bytes());
  Histogram back;
  back.mergeEncoded(r);
  back.mergeEncoded(r);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.remaining(), 0u);
  Histogram twice = h;
  twice.merge(h);
  EXPECT_EQ(back.total(), twice.total());
  const LogScale scale(1.0);
  for (double q : {0.0, 0.3, 0.6, 1.0})
    EXPECT_EQ(back.quantile(q, scale), twice.quantile(q, scale));
}

TEST(HistogramTest, EmptyHistogramHasNoQuantile) {
  EXPECT_FALSE(Histogram().quantile(0.5, LogScale(1.0)).has_value());
}

TEST(HistogramTest, CorruptZeroRunFails) {
  Writer w;
  w.varint(0);  // zero
  w.varint(3);  // first bucket
  w.varint(2);  // two buckets
  w.varint(0);  // a zero run ...
  w.varint(5);  // ... longer than what is left
  Reader r(w.bytes());
  Histogram h;
  h.mergeEncoded(r);
  EXPECT_FALSE(r.ok());
}

// DayHistograms::total counts what window() merges, for every window over days that are
// packed (small and large counts, zero runs, zero values), the current day (counts past 255
// kept in the overflow list) and a late sample that re-encodes the packed days.
TEST(HistogramTest, DayTotalsAreTheWindowsTotals) {
  DayHistograms days;
  EXPECT_EQ(days.total(10, 7), 0u);
  constexpr int kKept = 5;
  std::mt19937_64 g(7);
  for (std::uint32_t day = 100; day < 109; ++day) {
    const int samples = 200 + static_cast<int>(day % 3) * 900;  // some buckets past 255
    for (int i = 0; i < samples; ++i) {
      const int bucket = std::uniform_int_distribution(-1, 60)(g) * (day % 2 == 0 ? 1 : 3);
      days.add(day, i % 4 == 0 ? 17 : bucket, kKept);  // bucket 17: one very full bucket
    }
    if (day == 105) days.add(103, 40, kKept);  // late: the packed days are encoded again
    for (std::uint32_t now = 95; now < 112; ++now) {
      for (int window : {1, 2, kKept, 30}) {
        EXPECT_EQ(days.total(now, window), days.window(now, window).total())
            << "day " << day << ", at " << now << ", window " << window;
      }
    }
  }
  EXPECT_GT(days.total(108, kKept), 3000u);
}

}  // namespace
}  // namespace attune::stats
