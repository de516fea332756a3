// PromQL over the simulation's history: the request counters of `service` workloads answer the
// queries users annotate HPAs with, with Prometheus' semantics.
#include "sim/telemetry/recorded_series.h"

#include <gtest/gtest.h>

#include "requests_scenario.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

class RecordedSeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::requestsSimulation();
    ASSERT_NE(sim_, nullptr);
  }

  double value(std::string_view promql) {
    auto query = metrics::query::Query::parse(promql);
    EXPECT_TRUE(query.has_value()) << query.error().toString();
    RecordedSeries series(sim_->recorder());
    auto result = query->evaluate(series, sim_->clock().now());
    EXPECT_TRUE(result.has_value());
    EXPECT_EQ(result->size(), 1u) << promql;
    return result->empty() ? -1 : result->front().value;
  }

  std::unique_ptr<Simulation> sim_;
};

TEST_F(RecordedSeriesTest, RateOfTheRequestCounterIsTheWorkloadsRequestRate) {
  ASSERT_TRUE(sim_->runFor(20min));
  EXPECT_NEAR(value("sum(rate(http_requests_total{namespace=\"shop\",deployment=\"api\"}[5m]))"),
              100, 1.0);
  EXPECT_NEAR(value("sum(rate(http_requests_total{deployment='web'}[5m])) by (deployment)"), 40,
              0.5);
  EXPECT_NEAR(value("sum(rate(http_requests_total[5m]))"), 140, 1.5);
}

TEST_F(RecordedSeriesTest, ARateChangeShowsInTheQueryAfterTheWindow) {
  ASSERT_TRUE(sim_->runFor(38min));
  EXPECT_NEAR(value("sum(rate(http_requests_total{deployment=\"api\"}[5m]))"), 10, 0.5);
  ASSERT_TRUE(sim_->runFor(12min));
  EXPECT_NEAR(value("sum(rate(http_requests_total{deployment=\"api\"}[5m]))"), 100, 1.0);
}

TEST_F(RecordedSeriesTest, ASelectorMatchingNothingIsAnEmptyResult) {
  ASSERT_TRUE(sim_->runFor(10min));
  auto query = metrics::query::Query::parse("sum(rate(http_requests_total{deployment=\"x\"}[5m]))");
  ASSERT_TRUE(query.has_value());
  RecordedSeries series(sim_->recorder());
  auto result = query->evaluate(series, sim_->clock().now());
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->empty());
}

}  // namespace
}  // namespace attune::sim
