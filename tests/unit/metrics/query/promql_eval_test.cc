#include "metrics/query/promql_eval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attune::metrics::query {
namespace {

using std::chrono::seconds;

const Time kStart = Time{} + std::chrono::hours(24 * 365 * 50);

// Series held in memory; select filters with matches() and the time bounds.
class MemoryStore final : public SeriesStore {
 public:
  void add(Labels labels, std::vector<std::pair<int, double>> samples) {
    Series series{std::move(labels), {}};
    for (auto [at, value] : samples) series.samples.push_back({kStart + seconds(at), value});
    series_.push_back(std::move(series));
  }
  std::vector<Series> select(const Selector& selector, Time from, Time to) const override {
    std::vector<Series> out;
    for (const auto& series : series_) {
      if (!matches(series.labels, selector.matchers)) continue;
      Series kept{series.labels, {}};
      for (const auto& s : series.samples) {
        if (s.at >= from && s.at <= to) kept.samples.push_back(s);
      }
      out.push_back(std::move(kept));
    }
    return out;
  }

 private:
  std::vector<Series> series_;
};

// A counter rising `perSecond` from 0, sampled every 15 s from 0 to `until` seconds.
std::vector<std::pair<int, double>> counter(double perSecond, int until) {
  std::vector<std::pair<int, double>> samples;
  for (int t = 0; t <= until; t += 15) samples.emplace_back(t, perSecond * t);
  return samples;
}

double only(const Query& query, const SeriesStore& store, int at) {
  auto result = query.evaluate(store, kStart + seconds(at));
  EXPECT_TRUE(result.has_value()) << result.error().toString();
  EXPECT_EQ(result->size(), 1u);
  return result->empty() ? std::nan("") : result->front().value;
}

Query parsed(std::string_view text) {
  auto query = Query::parse(text);
  EXPECT_TRUE(query.has_value()) << text << ": " << query.error().toString();
  return std::move(*query);
}

TEST(PromqlEval, RateOfASteadyCounterIsItsSlope) {
  MemoryStore store;
  store.add({{"__name__", "http_requests_total"}, {"app", "web"}}, counter(10, 900));
  EXPECT_NEAR(only(parsed("rate(http_requests_total[5m])"), store, 900), 10.0, 1e-9);
  EXPECT_NEAR(only(parsed("increase(http_requests_total[5m])"), store, 900), 3000.0, 1e-6);
  EXPECT_NEAR(only(parsed("irate(http_requests_total[5m])"), store, 900), 10.0, 1e-9);
}

TEST(PromqlEval, RateExtrapolatesToTheWindowEdgesButNotBelowZero) {
  // Window (0, 60]: samples at 5, 20, 35, 50 of a counter at 1/s starting at 0. The start is
  // extrapolated to where the counter was zero (5 s before the first sample, but the counter
  // was 0 at the first sample: no extrapolation at the start), the end by 10 s.
  MemoryStore store;
  store.add({{"__name__", "c"}}, {{5, 0}, {20, 15}, {35, 30}, {50, 45}});
  EXPECT_NEAR(only(parsed("increase(c[1m])"), store, 60), 55.0, 1e-9);
  EXPECT_NEAR(only(parsed("rate(c[1m])"), store, 60), 55.0 / 60.0, 1e-9);
}

TEST(PromqlEval, RateCorrectsCounterResets) {
  MemoryStore store;
  // 10/s, reset to 0 at t=60 then 10/s again.
  store.add({{"__name__", "c"}},
            {{0, 100}, {15, 250}, {30, 400}, {45, 550}, {60, 0}, {75, 150}, {90, 300}});
  // The window (0, 90] leaves out the sample at 0: from 250 at 15 s, +300 before the reset and
  // +300 after it is 600 over 75 s, extrapolated by 15 s to the window's start: 720.
  EXPECT_NEAR(only(parsed("increase(c[90s])"), store, 90), 720.0, 1e-6);
}

TEST(PromqlEval, SumByAggregatesTheSelectedSeries) {
  MemoryStore store;
  store.add({{"__name__", "http_requests_total"}, {"app", "web"}, {"pod", "a"}}, counter(4, 600));
  store.add({{"__name__", "http_requests_total"}, {"app", "web"}, {"pod", "b"}}, counter(6, 600));
  store.add({{"__name__", "http_requests_total"}, {"app", "api"}, {"pod", "c"}}, counter(50, 600));
  auto query = parsed("sum(rate(http_requests_total{app='web'}[5m])) by (app)");
  auto result = query.evaluate(store, kStart + seconds(600));
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->size(), 1u);
  EXPECT_EQ(result->front().labels, (Labels{{"app", "web"}}));
  EXPECT_NEAR(result->front().value, 10.0, 1e-9);

  auto byApp =
      parsed("sum by (app) (rate(http_requests_total[5m]))").evaluate(store, kStart + seconds(600));
  ASSERT_TRUE(byApp.has_value());
  ASSERT_EQ(byApp->size(), 2u);
  EXPECT_NEAR((*byApp)[0].value, 50.0, 1e-9);  // api sorts first
  EXPECT_NEAR((*byApp)[1].value, 10.0, 1e-9);

  auto without = parsed("max without (pod) (rate(http_requests_total{app=\"web\"}[5m]))")
                     .evaluate(store, kStart + seconds(600));
  ASSERT_TRUE(without.has_value());
  ASSERT_EQ(without->size(), 1u);
  EXPECT_NEAR(without->front().value, 6.0, 1e-9);
  EXPECT_NEAR(only(parsed("count(http_requests_total)"), store, 600), 3.0, 1e-9);
  EXPECT_NEAR(only(parsed("avg(rate(http_requests_total{app!='api'}[5m]))"), store, 600), 5.0,
              1e-9);
}

TEST(PromqlEval, RegexMatchersAreAnchored) {
  MemoryStore store;
  store.add({{"__name__", "up"}, {"job", "web"}}, {{0, 1}});
  store.add({{"__name__", "up"}, {"job", "web-canary"}}, {{0, 1}});
  EXPECT_NEAR(only(parsed("sum(up{job=~'web'})"), store, 10), 1.0, 1e-9);
  EXPECT_NEAR(only(parsed("sum(up{job=~'web.*'})"), store, 10), 2.0, 1e-9);
  EXPECT_NEAR(only(parsed("sum(up{job!~'web'})"), store, 10), 1.0, 1e-9);
  EXPECT_NEAR(only(parsed("sum({__name__=\"up\"})"), store, 10), 2.0, 1e-9);
}

TEST(PromqlEval, InstantSelectorsReadTheLatestSampleWithinTheLookback) {
  MemoryStore store;
  store.add({{"__name__", "g"}}, {{0, 3}, {60, 7}});
  EXPECT_NEAR(only(parsed("g"), store, 100), 7.0, 1e-9);
  auto stale = parsed("g").evaluate(store, kStart + seconds(60 + 301));
  ASSERT_TRUE(stale.has_value());
  EXPECT_TRUE(stale->empty());
  auto missing = parsed("sum(rate(nothing[5m]))").evaluate(store, kStart + seconds(100));
  ASSERT_TRUE(missing.has_value());
  EXPECT_TRUE(missing->empty());
}

TEST(PromqlEval, ArithmeticFollowsPrecedenceAndScalesVectors) {
  MemoryStore store;
  store.add({{"__name__", "c"}, {"app", "web"}}, counter(5, 600));
  EXPECT_NEAR(only(parsed("1 + 2 * 3"), store, 0), 7.0, 1e-12);
  EXPECT_NEAR(only(parsed("(1 + 2) * 3"), store, 0), 9.0, 1e-12);
  EXPECT_NEAR(only(parsed("-2 + 10 / 4"), store, 0), 0.5, 1e-12);
  EXPECT_NEAR(only(parsed("sum(rate(c[5m])) / 2.5"), store, 600), 2.0, 1e-9);
  EXPECT_NEAR(only(parsed("rate(c[5m]) / rate(c[5m])"), store, 600), 1.0, 1e-9);
  EXPECT_NEAR(only(parsed("avg_over_time(c[1m])"), store, 600), 5 * (555 + 570 + 585 + 600) / 4.0,
              1e-9);
  EXPECT_NEAR(only(parsed("max_over_time(c[1m]) - min_over_time(c[1m])"), store, 600), 225, 1e-9);
}

TEST(PromqlEval, ErrorsNameTheColumn) {
  auto unclosed = Query::parse("sum(rate(c[5m])");
  ASSERT_FALSE(unclosed.has_value());
  EXPECT_EQ(unclosed.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(unclosed.error().message, "column 16: ')' expected");

  auto unknown = Query::parse("sum(histogram_quantile(0.9, x))");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().code, ErrorCode::kUnsupported);
  EXPECT_EQ(unknown.error().message, "column 5: function histogram_quantile is not supported");

  auto bareRange = Query::parse("c[5m]");
  ASSERT_FALSE(bareRange.has_value());
  EXPECT_EQ(bareRange.error().code, ErrorCode::kUnsupported);

  EXPECT_FALSE(Query::parse("rate(c[5q])").has_value());
  EXPECT_FALSE(Query::parse("up{job=}").has_value());
  EXPECT_FALSE(Query::parse("up{job=~'('}").has_value());
  EXPECT_FALSE(Query::parse("").has_value());
  EXPECT_FALSE(Query::parse("1 +").has_value());
  EXPECT_FALSE(Query::parse("up extra").has_value());
}

}  // namespace
}  // namespace attune::metrics::query
