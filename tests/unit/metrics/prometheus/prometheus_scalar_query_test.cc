#include "metrics/prometheus/prometheus_scalar_query.h"

#include <gtest/gtest.h>

#include "fake_transport.h"

namespace attune::metrics {
namespace {

using std::chrono::seconds;
using testing::FakeTransport;
using testing::formFields;
using testing::jsonResponse;

const Time kAt = Time(seconds(1'700'000'000));

// A query source answering every request with `status` and `body`.
struct Fixture {
  Fixture(long status, std::string body)
      : clock(kAt),
        query(
            [&] {
              PrometheusClientOptions o;
              o.address = "http://prom:9090";
              o.retries = 0;
              return o;
            }(),
            std::make_unique<FakeTransport>(
                [status, body](const http::HttpRequest& r) -> Result<http::HttpResponse> {
                  lastForm = formFields(r.body);
                  return jsonResponse(status, body);
                }),
            clock) {}

  SimulatedClock clock;
  PrometheusScalarQuery query;
  static inline std::map<std::string, std::string> lastForm;
};

std::string vector(const std::string& results) {
  return R"({"status":"success","data":{"resultType":"vector","result":[)" + results + "]}}";
}

TEST(PrometheusScalarQuery, ReadsASingleSampleVectorAtTheGivenTime) {
  Fixture f(200, vector(R"({"metric":{"app":"web"},"value":[1700000000,"42.5"]})"));
  auto v = f.query.evaluate("sum(rate(requests_total[5m]))", kAt);
  ASSERT_TRUE(v) << v.error().toString();
  EXPECT_EQ(*v, 42.5);
  EXPECT_EQ(Fixture::lastForm["query"], "sum(rate(requests_total[5m]))");
  EXPECT_EQ(Fixture::lastForm["time"], "1700000000.000");
}

TEST(PrometheusScalarQuery, ReadsAScalar) {
  Fixture f(200,
            R"({"status":"success","data":{"resultType":"scalar","result":[1700000000,"7"]}})");
  auto v = f.query.evaluate("scalar(sum(up))", kAt);
  ASSERT_TRUE(v) << v.error().toString();
  EXPECT_EQ(*v, 7);
}

TEST(PrometheusScalarQuery, EveryWayOfHavingNoNumberIsAnError) {
  struct Case {
    long status;
    std::string body;
    ErrorCode code;
  };
  const std::vector<Case> cases{
      {200, vector(""), ErrorCode::kNotFound},
      {200, vector(R"({"metric":{},"value":[1700000000,"NaN"]})"), ErrorCode::kNotFound},
      {200, vector(R"({"metric":{},"value":[1700000000,"+Inf"]})"), ErrorCode::kNotFound},
      {200, R"({"status":"success","data":{"resultType":"scalar","result":[1700000000,"NaN"]}})",
       ErrorCode::kNotFound},
      {200,
       vector(R"({"metric":{"a":"1"},"value":[1700000000,"1"]},)"
              R"({"metric":{"a":"2"},"value":[1700000000,"2"]})"),
       ErrorCode::kInvalidArgument},
      {400, R"({"status":"error","errorType":"bad_data","error":"parse error"})",
       ErrorCode::kInvalidArgument},
      {503, "unavailable", ErrorCode::kUnavailable},
  };
  for (const Case& c : cases) {
    Fixture f(c.status, c.body);
    auto v = f.query.evaluate("q", kAt);
    ASSERT_FALSE(v) << c.body;
    EXPECT_EQ(v.error().code, c.code) << c.body << ": " << v.error().toString();
  }
}

TEST(PrometheusScalarQuery, TransportFailureIsUnavailable) {
  SimulatedClock clock(kAt);
  PrometheusClientOptions o;
  o.address = "http://prom:9090";
  o.retries = 0;
  PrometheusScalarQuery query(
      o,
      std::make_unique<FakeTransport>([](const http::HttpRequest&) -> Result<http::HttpResponse> {
        return fail(ErrorCode::kUnavailable, "connection refused");
      }),
      clock);
  auto v = query.evaluate("q", kAt);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(v.error().message.find("connection refused"), std::string::npos);
}

}  // namespace
}  // namespace attune::metrics
