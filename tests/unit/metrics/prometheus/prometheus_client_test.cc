#include "metrics/prometheus/prometheus_client.h"

#include <gtest/gtest.h>

#include "fake_transport.h"

namespace attune::metrics {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::FakeTransport;
using testing::formFields;
using testing::jsonResponse;

const Time kStart = Time(seconds(1'700'000'000));
constexpr std::string_view kEmptyVector =
    R"({"status":"success","data":{"resultType":"vector","result":[]}})";

PrometheusClientOptions options() {
  PrometheusClientOptions o;
  o.address = "http://prom:9090/";
  o.retries = 3;
  o.backoff = BackoffPolicy{milliseconds(500), 2.0, seconds(4), Duration::zero()};
  return o;
}

// Answers with each of `statuses` in turn, then with success.
FakeTransport::Handler statuses(std::vector<long> codes, std::vector<HttpHeader> headers = {}) {
  return [codes, headers, i = size_t{0}](const HttpRequest&) mutable -> Result<HttpResponse> {
    if (i < codes.size()) return jsonResponse(codes[i++], "overloaded", headers);
    return jsonResponse(200, std::string(kEmptyVector));
  };
}

TEST(PrometheusClient, PostsInstantQueryAsForm) {
  FakeTransport transport(statuses({}));
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  ASSERT_TRUE(client.query(R"(up{job="a b"})", kStart + milliseconds(250)).has_value());
  ASSERT_EQ(transport.requests.size(), 1u);
  const HttpRequest& r = transport.requests[0];
  EXPECT_EQ(r.method, HttpRequest::Method::kPost);
  EXPECT_EQ(r.url, "http://prom:9090/api/v1/query");
  EXPECT_EQ(r.contentType, "application/x-www-form-urlencoded");
  auto form = formFields(r.body);
  EXPECT_EQ(form["query"], R"(up{job="a b"})");
  EXPECT_EQ(form["time"], "1700000000.250");
}

TEST(PrometheusClient, PostsRangeQueryAsForm) {
  FakeTransport transport([](const HttpRequest&) -> Result<HttpResponse> {
    return jsonResponse(200, R"({"status":"success","data":{"resultType":"matrix","result":[
        {"metric":{"pod":"p"},"values":[[1700000000,"1"]]}]}})");
  });
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  auto r = client.queryRange("up", Range{kStart, kStart + seconds(3600), seconds(60)});
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->series.size(), 1u);
  EXPECT_EQ(transport.requests[0].url, "http://prom:9090/api/v1/query_range");
  auto form = formFields(transport.requests[0].body);
  EXPECT_EQ(form["start"], "1700000000.000");
  EXPECT_EQ(form["end"], "1700003600.000");
  EXPECT_EQ(form["step"], "60.000");
}

TEST(PrometheusClient, FormatsTimestamps) {
  EXPECT_EQ(PrometheusClient::formatTimestamp(Time(milliseconds(1500))), "1.500");
  EXPECT_EQ(PrometheusClient::formatTimestamp(Time(milliseconds(-1500))), "-2.500");
}

TEST(PrometheusClient, RetriesOn429And5xxWithBackoffOnTheClock) {
  FakeTransport transport(statuses({429, 500, 503}));
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  auto r = client.query("up", kStart);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(transport.requests.size(), 4u);
  EXPECT_EQ(clock.now() - kStart, milliseconds(500 + 1000 + 2000));
}

TEST(PrometheusClient, GivesUpAfterTheRetriesWithUnavailable) {
  FakeTransport transport(statuses({500, 502, 503, 504, 500}));
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  auto r = client.query("sum(rate(x[5m]))", kStart);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(transport.requests.size(), 4u);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("HTTP 504"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("sum(rate(x[5m]))"), std::string::npos);
  EXPECT_EQ(clock.now() - kStart, milliseconds(500 + 1000 + 2000));
}

TEST(PrometheusClient, RetryAfterLengthensTheWaitUpToTheCap) {
  FakeTransport transport(statuses({429, 429}, {{"Retry-After", "3"}}));
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  ASSERT_TRUE(client.query("up", kStart).has_value());
  EXPECT_EQ(clock.now() - kStart, seconds(3 + 3));

  FakeTransport capped(statuses({429}, {{"Retry-After", "3600"}}));
  SimulatedClock clock2(kStart);
  PrometheusClient client2(options(), capped, clock2);
  ASSERT_TRUE(client2.query("up", kStart).has_value());
  EXPECT_EQ(clock2.now() - kStart, seconds(4));
}

TEST(PrometheusClient, RetriesTransportErrorsAndKeepsTheReason) {
  FakeTransport transport([](const HttpRequest& r) -> Result<HttpResponse> {
    return fail(ErrorCode::kUnavailable, r.url + ": connection refused");
  });
  SimulatedClock clock(kStart);
  auto o = options();
  o.retries = 2;
  PrometheusClient client(o, transport, clock);
  auto r = client.query("up", kStart);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(transport.requests.size(), 3u);
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("connection refused"), std::string::npos);
}

TEST(PrometheusClient, DoesNotRetryARejectedQuery) {
  FakeTransport transport([](const HttpRequest&) -> Result<HttpResponse> {
    return jsonResponse(400, R"({"status":"error","errorType":"bad_data",
        "error":"1:5: parse error: unexpected end of input"})");
  });
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  auto r = client.query("foo{", kStart);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(transport.requests.size(), 1u);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.error().message,
            "prometheus query failed (HTTP 400, bad_data: 1:5: parse error: unexpected end of "
            "input); query: foo{");
  EXPECT_EQ(clock.now(), kStart);
}

TEST(PrometheusClient, MalformedSuccessBodyIsAnError) {
  FakeTransport transport([](const HttpRequest&) -> Result<HttpResponse> {
    return jsonResponse(200, "<html>proxy</html>");
  });
  SimulatedClock clock(kStart);
  PrometheusClient client(options(), transport, clock);
  auto r = client.query("up", kStart);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidArgument);
  EXPECT_NE(r.error().message.find("HTTP 200"), std::string::npos) << r.error().message;
}

TEST(PrometheusClient, ReportsWarnings) {
  FakeTransport transport([](const HttpRequest&) -> Result<HttpResponse> {
    return jsonResponse(200, R"({"status":"success","warnings":["partial"],
        "data":{"resultType":"vector","result":[]}})");
  });
  SimulatedClock clock(kStart);
  auto o = options();
  std::vector<std::string> seen;
  o.onWarning = [&](std::string_view q, std::string_view w) {
    seen.push_back(std::string(q) + ": " + std::string(w));
  };
  PrometheusClient client(o, transport, clock);
  auto r = client.query("up", kStart);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->warnings, std::vector<std::string>{"partial"});
  EXPECT_EQ(seen, std::vector<std::string>{"up: partial"});
}

}  // namespace
}  // namespace attune::metrics
