#include "kube/rest_client.h"

#include <gtest/gtest.h>

#include <deque>

#include "api/k8s/pdb.h"
#include "kube/rate_limiter.h"

namespace attune::kube {
namespace {

using namespace std::chrono_literals;
using Method = http::HttpRequest::Method;

const Time kStart = Time{} + std::chrono::hours(24 * 365 * 50);

// Answers from a queue; records the clock's time of every attempt.
class ScriptedTransport final : public http::HttpTransport {
 public:
  ScriptedTransport(std::deque<Result<http::HttpResponse>> script, Clock& clock,
                    std::vector<Time>& at)
      : script_(std::move(script)), clock_(clock), at_(at) {}
  Result<http::HttpResponse> send(const http::HttpRequest&) override {
    at_.push_back(clock_.now());
    auto next = script_.front();
    if (script_.size() > 1) script_.pop_front();
    return next;
  }

 private:
  std::deque<Result<http::HttpResponse>> script_;
  Clock& clock_;
  std::vector<Time>& at_;
};

http::HttpResponse status(long code, std::string body = "{}",
                          std::vector<http::HttpHeader> headers = {}) {
  return http::HttpResponse{code, std::move(body), std::move(headers)};
}

TEST(StatusError, MapsEveryStatusWithTheServersMessage) {
  const std::string conflict =
      R"({"kind":"Status","status":"Failure","message":"Operation cannot be fulfilled on pods \"web\": the object has been modified","reason":"Conflict","code":409})";
  auto e = statusError(409, conflict, "PATCH /x");
  EXPECT_EQ(e.code, ErrorCode::kConflict);
  EXPECT_NE(e.message.find("the object has been modified"), std::string::npos);

  const std::string invalid =
      R"({"kind":"Status","message":"Pod \"web\" is invalid","reason":"Invalid","code":422,
          "details":{"name":"web","kind":"Pod","causes":[{"reason":"FieldValueInvalid",
          "message":"Invalid value","field":"spec.containers[0].resources.requests.cpu"}]}})";
  e = statusError(422, invalid, "PATCH /x");
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(e.field, "spec.containers[0].resources.requests.cpu");
  EXPECT_EQ(e.message, "Pod \"web\" is invalid");

  EXPECT_EQ(statusError(404, R"({"message":"pods \"a\" not found"})", "").message,
            "pods \"a\" not found");
  EXPECT_EQ(statusError(404, "", "GET /p").code, ErrorCode::kNotFound);
  EXPECT_EQ(statusError(404, "not json", "GET /p").message, "GET /p: HTTP 404");
  EXPECT_EQ(statusError(403, "{}", "").code, ErrorCode::kForbidden);
  EXPECT_EQ(statusError(401, "{}", "").code, ErrorCode::kForbidden);
  EXPECT_EQ(statusError(400, "{}", "").code, ErrorCode::kInvalidArgument);
  EXPECT_EQ(statusError(429, "{}", "").code, ErrorCode::kUnavailable);
  EXPECT_EQ(statusError(500, "{}", "").code, ErrorCode::kUnavailable);
  EXPECT_EQ(statusError(503, "{}", "").code, ErrorCode::kUnavailable);
  EXPECT_EQ(statusError(415, "{}", "").code, ErrorCode::kUnsupported);
  EXPECT_EQ(statusError(302, "{}", "").code, ErrorCode::kInternal);
  const auto gone = statusError(410, R"j({"message":"too old resource version: 1 (5)"})j", "");
  EXPECT_EQ(gone.code, ErrorCode::kConflict);
  EXPECT_EQ(gone.field, "resourceVersion");
  EXPECT_NE(gone.message.find("too old resource version"), std::string::npos);
}

TEST(RestClient, RetriesA500ThenSucceeds) {
  SimulatedClock clock(kStart);
  std::vector<Time> at;
  RestClient rest(
      "http://x",
      std::make_unique<ScriptedTransport>(
          std::deque<Result<http::HttpResponse>>{status(500), status(200, "done")}, clock, at),
      clock);
  auto r = rest.call(Method::kGet, "/api/v1/pods");
  ASSERT_TRUE(r.has_value()) << r.error().toString();
  EXPECT_EQ(*r, "done");
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[1] - at[0], 250ms);  // the backoff's first delay
}

TEST(RestClient, HonoursRetryAfterOn429) {
  SimulatedClock clock(kStart);
  std::vector<Time> at;
  RestClient rest("http://x",
                  std::make_unique<ScriptedTransport>(
                      std::deque<Result<http::HttpResponse>>{
                          status(429, "{}", {{"Retry-After", "7"}}), status(200, "ok")},
                      clock, at),
                  clock);
  ASSERT_TRUE(rest.call(Method::kPost, "/e", "{}", "application/json").has_value());
  ASSERT_EQ(at.size(), 2u);
  EXPECT_EQ(at[1] - at[0], 7s);
}

TEST(RestClient, RetriesTransportErrorsWithGrowingBackoffThenGivesUp) {
  SimulatedClock clock(kStart);
  std::vector<Time> at;
  RestClient rest(
      "http://x",
      std::make_unique<ScriptedTransport>(std::deque<Result<http::HttpResponse>>{fail(
                                              ErrorCode::kUnavailable, "connection refused")},
                                          clock, at),
      clock, RestOptions{.maxRetries = 3});
  auto r = rest.call(Method::kGet, "/api");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(r.error().message.find("after 4 attempts"), std::string::npos);
  ASSERT_EQ(at.size(), 4u);
  EXPECT_EQ(at[1] - at[0], 250ms);
  EXPECT_EQ(at[2] - at[1], 500ms);
  EXPECT_EQ(at[3] - at[2], 1000ms);
}

// The eviction subresource's answer when a PodDisruptionBudget allows no disruption.
constexpr const char* kBudgetRefusal =
    R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
    R"("message":"Cannot evict pod as it would violate the pod's disruption budget.",)"
    R"("reason":"TooManyRequests","details":{"causes":[{"reason":"DisruptionBudget",)"
    R"("message":"The disruption budget web needs 3 healthy pods and has 3 currently"}]},)"
    R"("code":429})";

TEST(StatusError, ABudgetsRefusalIsDisruptionBudgetWithItsCause) {
  const Error e = statusError(429, kBudgetRefusal, "POST /x");
  EXPECT_EQ(e.code, ErrorCode::kDisruptionBudget);
  EXPECT_EQ(api::disruptionBudgetCause(e),
            "The disruption budget web needs 3 healthy pods and has 3 currently");
  EXPECT_EQ(statusError(429, R"({"message":"slow down"})", "").code, ErrorCode::kUnavailable);
}

TEST(RestClient, NeverRetriesABudgetsRefusal) {
  SimulatedClock clock(kStart);
  std::vector<Time> at;
  RestClient client(
      "https://h",
      std::make_unique<ScriptedTransport>(
          std::deque<Result<http::HttpResponse>>{status(429, kBudgetRefusal), status(201, "{}")},
          clock, at),
      clock);
  auto r = client.call(Method::kPost, "/api/v1/namespaces/a/pods/b/eviction", "{}");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kDisruptionBudget);
  EXPECT_EQ(at.size(), 1u);
}

TEST(RestClient, NeverRetriesConflictsInvalidOrNotFound) {
  for (long code : {404L, 409L, 410L, 422L, 403L}) {
    SimulatedClock clock(kStart);
    std::vector<Time> at;
    RestClient rest(
        "http://x",
        std::make_unique<ScriptedTransport>(
            std::deque<Result<http::HttpResponse>>{status(code), status(200)}, clock, at),
        clock);
    EXPECT_FALSE(rest.call(Method::kPut, "/x", "{}").has_value()) << code;
    EXPECT_EQ(at.size(), 1u) << code;
    EXPECT_EQ(clock.now(), kStart) << code;
  }
}

TEST(TokenBucket, AllowsABurstThenPacesAtQps) {
  SimulatedClock clock(kStart);
  TokenBucket bucket({.qps = 20, .burst = 30}, clock);
  for (int i = 0; i < 30; ++i) EXPECT_EQ(bucket.acquire(), Duration::zero()) << i;
  EXPECT_EQ(clock.now(), kStart);
  EXPECT_EQ(bucket.acquire(), 50ms);
  EXPECT_EQ(bucket.acquire(), 50ms);
  EXPECT_EQ(clock.now(), kStart + 100ms);
  EXPECT_FALSE(bucket.tryAcquire());
  clock.advance(1s);  // refills 20 tokens
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(bucket.tryAcquire()) << i;
  EXPECT_FALSE(bucket.tryAcquire());
}

TEST(TokenBucket, EveryRequestAttemptTakesAToken) {
  SimulatedClock clock(kStart);
  std::vector<Time> at;
  RestClient rest("http://x",
                  std::make_unique<ScriptedTransport>(
                      std::deque<Result<http::HttpResponse>>{status(200)}, clock, at),
                  clock, RestOptions{.rateLimit = {.qps = 10, .burst = 2}});
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(rest.call(Method::kGet, "/x").has_value());
  ASSERT_EQ(at.size(), 4u);
  EXPECT_EQ(at[1], kStart);
  EXPECT_EQ(at[2], kStart + 100ms);
  EXPECT_EQ(at[3], kStart + 200ms);
}

}  // namespace
}  // namespace attune::kube
