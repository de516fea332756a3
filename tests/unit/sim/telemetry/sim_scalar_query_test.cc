// SimScalarQuery: one number from the simulation's history, with ScalarQuery's errors for every
// way of not having one.
#include "sim/telemetry/sim_scalar_query.h"

#include <gtest/gtest.h>

#include "requests_scenario.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

// kRequestsScenario: `api` serves 100 requests/s, `web` 40/s.
class SimScalarQueryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    sim_ = testing::requestsSimulation();
    ASSERT_NE(sim_, nullptr);
    ASSERT_TRUE(sim_->runFor(10min));
    query_ = std::make_unique<SimScalarQuery>(sim_->recorder());
  }

  Result<double> evaluate(std::string_view promql) {
    return query_->evaluate(promql, sim_->clock().now());
  }

  std::unique_ptr<Simulation> sim_;
  std::unique_ptr<SimScalarQuery> query_;
};

TEST_F(SimScalarQueryTest, OneSampleIsItsValue) {
  auto rate = evaluate("sum(rate(http_requests_total{namespace=\"shop\",deployment=\"web\"}[5m]))");
  ASSERT_TRUE(rate.has_value()) << rate.error().toString();
  EXPECT_NEAR(*rate, 40, 0.5);
  // A scalar expression is one number too; the same text asked again gives the same answer.
  auto scaled = evaluate("2 * sum(rate(http_requests_total{deployment=\"web\"}[5m])) + 1");
  ASSERT_TRUE(scaled.has_value());
  EXPECT_NEAR(*scaled, 81, 1.0);
  EXPECT_EQ(evaluate("2 * sum(rate(http_requests_total{deployment=\"web\"}[5m])) + 1").value(),
            *scaled);
  EXPECT_EQ(evaluate("3").value(), 3.0);
}

TEST_F(SimScalarQueryTest, EvaluatesAtTheTimeAsked) {
  // Before the first recorded tick there are no samples.
  auto early =
      query_->evaluate("sum(http_requests_total{deployment=\"web\"})", sim_->scenario().start - 1h);
  ASSERT_FALSE(early.has_value());
  EXPECT_EQ(early.error().code, ErrorCode::kNotFound);
}

TEST_F(SimScalarQueryTest, NoSampleIsNotFound) {
  auto empty = evaluate("sum(rate(http_requests_total{deployment=\"x\"}[5m]))");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code, ErrorCode::kNotFound);
}

TEST_F(SimScalarQueryTest, NonFiniteValuesAreNotFound) {
  auto nan = evaluate("sum(rate(http_requests_total{deployment=\"web\"}[5m])) * 0 / 0");
  ASSERT_FALSE(nan.has_value());
  EXPECT_EQ(nan.error().code, ErrorCode::kNotFound);
  auto inf = evaluate("sum(rate(http_requests_total{deployment=\"web\"}[5m])) / 0");
  ASSERT_FALSE(inf.has_value());
  EXPECT_EQ(inf.error().code, ErrorCode::kNotFound);
}

TEST_F(SimScalarQueryTest, SeveralSeriesAreInvalid) {
  auto several = evaluate("sum(rate(http_requests_total[5m])) by (deployment)");  // api, web
  ASSERT_FALSE(several.has_value());
  EXPECT_EQ(several.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(several.error().message.find("2 series"), std::string::npos);
}

TEST_F(SimScalarQueryTest, ARejectedQueryIsInvalid) {
  auto bad = evaluate("sum(rate(http_requests_total[5m]");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
  auto unsupported = evaluate("histogram_quantile(0.9, http_requests_total)");
  ASSERT_FALSE(unsupported.has_value());
  EXPECT_EQ(unsupported.error().code, ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace attune::sim
