#include "stats/series.h"

#include <gtest/gtest.h>

#include <random>

#include "stats_testing.h"

namespace attune::stats {
namespace {

using testing::at;
using testing::exactInterpolatedQuantile;
using testing::exactLowerQuantile;
using testing::relativeError;

struct Point {
  std::int64_t s;  // seconds after t0
  double v;
};

// `days` of samples every `step` seconds: a diurnal CPU-like pattern with lognormal noise and
// occasional spikes.
std::vector<Point> cpuLike(int days, int step, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0.0, 0.4);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<Point> out;
  for (std::int64_t s = 0; s < std::int64_t{days} * 86400; s += step) {
    const double diurnal = 1.0 + 0.6 * std::sin(2 * M_PI * static_cast<double>(s) / 86400);
    double v = 0.3 * diurnal * noise(rng);
    if (u(rng) < 0.002) v *= 20;
    out.push_back({s, v});
  }
  return out;
}

class SeriesTest : public ::testing::Test {
 protected:
  SeriesConfig config_{.minValue = 1e-6, .recentWindow = std::chrono::minutes(10)};

  // Values of `points` whose time t (seconds after t0) satisfies pred(t).
  template <typename Pred>
  static std::vector<double> select(const std::vector<Point>& points, Pred pred) {
    std::vector<double> out;
    for (const Point& p : points) {
      if (pred(p.s)) out.push_back(p.v);
    }
    return out;
  }

  static std::int64_t hourOf(std::int64_t s) { return s / 3600; }

  // Checks every query at `now` (seconds after t0) against references computed from `points`.
  void expectMatchesReference(const Series& series, const std::vector<Point>& points,
                              std::int64_t now) {
    const Time tn = at(now);
    // Steady state: exact P75 over (now - 10 min, now] of float-stored values.
    auto recent = select(points, [&](std::int64_t s) { return s <= now && s > now - 600; });
    for (double& v : recent) v = static_cast<float>(v);
    ASSERT_FALSE(recent.empty());
    EXPECT_NEAR(*series.recentQuantile(tn), exactInterpolatedQuantile(recent, 0.75), 1e-12);

    // Peak: this hour of the week, this week and last.
    const std::int64_t h = hourOf(now);
    const auto peak = select(points, [&](std::int64_t s) {
      return s <= now && (hourOf(s) == h || hourOf(s) == h - 168);
    });
    const double wantPeak = *std::max_element(peak.begin(), peak.end());
    EXPECT_GE(*series.peak(tn), wantPeak * (1 - 1e-12));
    EXPECT_LE(*series.peak(tn), wantPeak * kFineGamma * (1 + 1e-12));

    // 7-day max: hours h - 168 .. h.
    const auto week =
        select(points, [&](std::int64_t s) { return s <= now && hourOf(s) >= h - 168; });
    const double wantMax = *std::max_element(week.begin(), week.end());
    EXPECT_GE(*series.weekMax(tn), wantMax * (1 - 1e-12));
    EXPECT_LE(*series.weekMax(tn), wantMax * kFineGamma * (1 + 1e-12));

    // Long horizon: whole days dayNow - 6 .. dayNow.
    const std::int64_t day = now / 86400;
    const auto history =
        select(points, [&](std::int64_t s) { return s <= now && s / 86400 > day - 7; });
    EXPECT_EQ(series.count(tn), history.size());
    for (double q : {0.5, 0.75, 0.9, 0.95, 0.99, 1.0}) {
      EXPECT_LE(relativeError(*series.quantile(tn, q), exactLowerQuantile(history, q)), 0.01)
          << "q=" << q;
    }

    // Hour of day: the largest per-hour P95 among that hour's occurrences in the last 168 h.
    for (int hod = 0; hod < 24; ++hod) {
      double want = -1;
      for (std::int64_t hh = h - 168; hh <= h; ++hh) {
        if (hh < 0 || hh % 24 != hod) continue;
        const auto hour =
            select(points, [&](std::int64_t s) { return s <= now && hourOf(s) == hh; });
        if (!hour.empty()) want = std::max(want, exactLowerQuantile(hour, 0.95));
      }
      const auto got = series.hourOfDayQuantile(tn, hod);
      ASSERT_EQ(got.has_value(), want >= 0) << hod;
      if (!got) continue;
      EXPECT_GE(*got, want * (1 - 1e-12)) << hod;
      EXPECT_LE(*got, want * kFineGamma * (1 + 1e-12)) << hod;
    }
  }
};

TEST_F(SeriesTest, EmptySeriesAnswersNothing) {
  Series s(config_);
  EXPECT_FALSE(s.recentQuantile(at(0)));
  EXPECT_FALSE(s.peak(at(0)));
  EXPECT_FALSE(s.weekMax(at(0)));
  EXPECT_FALSE(s.quantile(at(0), 0.5));
  EXPECT_FALSE(s.maxHourOfDayQuantile(at(0)));
  EXPECT_EQ(s.count(at(0)), 0u);
}

TEST_F(SeriesTest, EveryStatisticMatchesTheExactReferenceAtOneMinuteSteps) {
  const auto points = cpuLike(10, 60, 7);
  Series s(config_);
  for (const Point& p : points)
    s.add(static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1) + p.s),
          p.v);
  const std::int64_t last = points.back().s;
  expectMatchesReference(s, points, last);
  expectMatchesReference(s, points, last + 7 * 60);  // a little after the latest sample
}

TEST_F(SeriesTest, TenSecondStepsAndSlightlyOutOfOrderSamples) {
  auto points = cpuLike(8, 10, 9);
  // Shuffle within aligned 5-minute blocks (late, never crossing an hour).
  std::mt19937_64 rng(3);
  for (std::size_t i = 0; i + 30 <= points.size(); i += 30) {
    std::shuffle(points.begin() + static_cast<std::ptrdiff_t>(i),
                 points.begin() + static_cast<std::ptrdiff_t>(i + 30), rng);
  }
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  for (const Point& p : points) s.add(base + static_cast<Seconds>(p.s), p.v);
  expectMatchesReference(s, points, 8 * 86400 - 1);
}

// The busiest hour of the day is the largest of the 24 hour-of-day percentiles, at any time: in
// the open hour, a little after the latest sample, and once the oldest hours have left the week.
TEST_F(SeriesTest, MaxHourOfDayQuantileIsTheLargestOfTheTwentyFourHours) {
  const auto points = cpuLike(9, 60, 11);
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  for (const Point& p : points) s.add(base + static_cast<Seconds>(p.s), p.v);
  const std::int64_t last = points.back().s;
  for (const std::int64_t when : {last, last + 7 * 60, last + 20 * 3600, last + 200 * 3600}) {
    std::optional<double> best;
    for (int h = 0; h < 24; ++h) {
      if (const auto v = s.hourOfDayQuantile(at(when), h); v && (!best || *v > *best)) best = v;
    }
    EXPECT_EQ(s.maxHourOfDayQuantile(at(when)), best) << when;
  }
  EXPECT_FALSE(s.maxHourOfDayQuantile(at(last + 200 * 3600)).has_value());
}

TEST_F(SeriesTest, PeakIsTheSameHourOfTheWeekOnly) {
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  s.add(base + 10 * 3600 + 60, 5.0);             // Monday 10:01, last week
  s.add(base + 11 * 3600, 9.0);                  // Monday 11:00, last week: another hour
  s.add(base + 7 * 86400 + 10 * 3600 + 5, 1.0);  // Monday 10:00:05, this week
  const Time now = at(7 * 86400 + 10 * 3600 + 30 * 60);
  EXPECT_NEAR(*s.peak(now), 5.0, 5.0 * 5e-4);
  EXPECT_NEAR(*s.weekMax(now), 9.0, 9.0 * 5e-4);
  // An hour later the Monday-11 slot of last week has left the window; only this week counts.
  s.add(base + 7 * 86400 + 11 * 3600 + 5, 2.0);
  EXPECT_NEAR(*s.peak(at(7 * 86400 + 11 * 3600 + 10)), 9.0, 9.0 * 5e-4);
  // Monday 12:00 has no sample, this week or last.
  EXPECT_FALSE(s.peak(at(7 * 86400 + 12 * 3600 + 10)).has_value());
  // ... and last Monday 11:00 is now more than 168 hours back.
  EXPECT_NEAR(*s.weekMax(at(7 * 86400 + 12 * 3600 + 10)), 2.0, 2.0 * 5e-4);
}

TEST_F(SeriesTest, DataOlderThanTheHistoryStopsCounting) {
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  for (Seconds m = 0; m < 3 * 1440; ++m) s.add(base + m * 60, 100.0);       // days 0-2
  for (Seconds m = 3 * 1440; m < 9 * 1440; ++m) s.add(base + m * 60, 1.0);  // days 3-8
  // As of day 8 the window is days 2-8: day 2 (the 100s) still counts.
  const Time day8 = at(8 * 86400 + 86399);
  EXPECT_EQ(s.count(day8), 7u * 1440);
  EXPECT_LE(relativeError(*s.quantile(day8, 1.0), 100.0), 0.01);
  for (Seconds m = 9 * 1440; m < 10 * 1440; ++m) s.add(base + m * 60, 1.0);  // day 9
  const Time day9 = at(9 * 86400 + 86399);
  EXPECT_EQ(s.count(day9), 7u * 1440);
  EXPECT_LE(relativeError(*s.quantile(day9, 1.0), 1.0), 0.01);
  EXPECT_NEAR(*s.weekMax(day9), 100.0, 0.05);         // hours from day 2, 23:00 on
  EXPECT_LE(*s.weekMax(at(10 * 86400 + 60)), 1.001);  // hours from day 3 on: no 100s
  // Two weeks of silence later nothing is left.
  EXPECT_FALSE(s.quantile(at(30 * 86400), 0.5).has_value());
  EXPECT_FALSE(s.weekMax(at(30 * 86400)).has_value());
  EXPECT_FALSE(s.recentQuantile(at(30 * 86400)).has_value());
}

TEST_F(SeriesTest, LateSampleForAnEarlierDayIsCounted) {
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  s.add(base, 1.0);
  s.add(base + 2 * 86400, 1.0);
  s.add(base + 86400 + 5, 50.0);  // late, day 1
  EXPECT_EQ(s.count(at(2 * 86400)), 3u);
  EXPECT_LE(relativeError(*s.quantile(at(2 * 86400), 1.0), 50.0), 0.01);
}

TEST_F(SeriesTest, ZerosAreExact) {
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  for (Seconds i = 0; i < 100; ++i) s.add(base + i * 60, 0.0);
  EXPECT_EQ(*s.quantile(at(99 * 60), 0.99), 0.0);
  EXPECT_EQ(*s.peak(at(99 * 60)), 0.0);
  EXPECT_EQ(*s.recentQuantile(at(99 * 60)), 0.0);
}

// Irregular steps, late samples (some already expired) and windows that wrap the recent ring:
// the recent quantile equals the exact one over the accepted samples inside both
// (now - window, now] and the window behind the newest sample, for now at and before the
// newest; a checkpoint restores identical answers.
TEST_F(SeriesTest, RecentWindowMatchesTheReferenceUnderIrregularAndLateSamples) {
  Series s(config_);
  const auto base =
      static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
  std::mt19937_64 rng(11);
  std::vector<Point> accepted;
  std::int64_t newest = 0;
  std::int64_t clock = 0;
  for (int i = 0; i < 4000; ++i) {
    clock += static_cast<std::int64_t>(rng() % 3 == 0 ? rng() % 200 : rng() % 20);
    std::int64_t t = clock;
    if (rng() % 7 == 0)
      t = std::max<std::int64_t>(0, clock - static_cast<std::int64_t>(rng() % 900));
    const double v = static_cast<double>(rng() % 1000) / 7;
    s.add(base + static_cast<Seconds>(t), v);
    if (t + 600 > newest) accepted.push_back({t, v});
    newest = std::max(newest, t);
    if (i % 37 != 0) continue;
    Writer w;
    s.encode(w);
    Series restored(config_);
    Reader r(w.bytes());
    restored.decode(r);
    ASSERT_TRUE(r.ok());
    for (std::int64_t back : {0, 1, 59, 300, 599, 650}) {
      const std::int64_t now = newest - back;
      auto want = select(
          accepted, [&](std::int64_t t) { return t <= now && t > now - 600 && t + 600 > newest; });
      for (double& x : want) x = static_cast<float>(x);
      for (double q : {0.0, 0.5, 0.75, 1.0}) {
        const auto got = s.recentQuantile(at(now), q);
        ASSERT_EQ(got.has_value(), !want.empty()) << i << " " << back;
        ASSERT_EQ(restored.recentQuantile(at(now), q), got) << i << " " << back;
        if (got) {
          EXPECT_NEAR(*got, exactInterpolatedQuantile(want, q), 1e-9) << i << " " << back;
        }
      }
    }
  }
}

// Hours of 1 to 40 samples and several hour-of-day quantiles: the per-hour selection (a
// top-k pass for high quantiles, nth_element otherwise) is the exact lower nearest rank.
TEST_F(SeriesTest, HourOfDayQuantileIsExactForAnyHourSize) {
  for (double q : {0.0, 0.5, 0.8, 0.9, 0.95, 0.99, 1.0}) {
    SeriesConfig config = config_;
    config.hourOfDayQuantile = q;
    Series s(config);
    const auto base =
        static_cast<Seconds>(testing::t0().time_since_epoch() / std::chrono::seconds(1));
    std::mt19937_64 rng(5);
    std::vector<Point> points;
    for (std::int64_t h = 0; h < 48; ++h) {
      const auto n = static_cast<std::int64_t>(1 + rng() % 40);
      for (std::int64_t k = 0; k < n; ++k) {
        const std::int64_t t = h * 3600 + k * (3600 / n);
        const double v = 0.01 + static_cast<double>(rng() % 5000) / 100;  // ties too
        s.add(base + static_cast<Seconds>(t), v);
        points.push_back({t, v});
      }
    }
    const std::int64_t now = 48 * 3600;  // every hour closed
    for (int hod = 0; hod < 24; ++hod) {
      double want = -1;
      for (std::int64_t h = 0; h < 48; ++h) {
        if (h % 24 != hod) continue;
        want = std::max(
            want,
            exactLowerQuantile(select(points, [&](std::int64_t t) { return hourOf(t) == h; }), q));
      }
      const auto got = s.hourOfDayQuantile(at(now), hod);
      ASSERT_TRUE(got.has_value()) << q << " " << hod;
      EXPECT_GE(*got, want * (1 - 1e-12)) << q << " " << hod;
      EXPECT_LE(*got, want * kFineGamma * (1 + 1e-12)) << q << " " << hod;
    }
  }
}

}  // namespace
}  // namespace attune::stats
