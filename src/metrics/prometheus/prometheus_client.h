// PrometheusClient: the HTTP API v1 `query` and `query_range` endpoints, with bounded retries.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/backoff.h"
#include "core/clock.h"
#include "core/error.h"
#include "http/http_client.h"
#include "metrics/metrics_source.h"
#include "metrics/prometheus/query_response.h"

namespace attune::metrics {

// The HTTP client lives in attune::http (src/http); the Prometheus backend and its users keep
// spelling its names unqualified.
using http::BasicAuth;
using http::CurlHttpClient;
using http::formEncode;
using http::HttpClientOptions;
using http::HttpHeader;
using http::HttpRequest;
using http::HttpResponse;
using http::HttpTransport;
using http::HttpTransportPtr;

// Called with the PromQL and each warning of a successful response (e.g. to log it).
using WarningFn = std::function<void(std::string_view promql, std::string_view warning)>;

struct PrometheusClientOptions {
  // Base URL, e.g. "http://prometheus.monitoring:9090" or "https://thanos/prefix"; the client
  // appends "/api/v1/query" and "/api/v1/query_range".
  std::string address;
  // Retries after the first attempt on a transport error (refused, timeout), 429 or 5xx.
  int retries = 3;
  // Delay before each retry; the curve restarts for every call. A 429/503 "Retry-After" in
  // seconds lengthens the wait (never beyond the cap).
  BackoffPolicy backoff{std::chrono::milliseconds(500), 2.0, std::chrono::seconds(10),
                        Duration::zero()};
  WarningFn onWarning;  // optional
  // Appended to every request's URL as "?k=v&..." (percent-encoded, in this order), e.g.
  // {"dedup", "true"} for Thanos. Keys the client sends in the form body ("query", "time",
  // "start", "end", "step") must not appear here: api::kReservedQueryParameters.
  std::vector<std::pair<std::string, std::string>> queryParameters;
};

// Sends queries as POST form bodies (so long PromQL never hits URL length limits) and decodes
// the JSON envelope. Errors carry the PromQL and, when there was a response, the HTTP status:
// kUnavailable for transport errors, 429 and 5xx (after the retries); kInvalidArgument for a
// rejected query (400, 422) or a malformed body; kInternal for other statuses. Waits between
// retries through `clock`. Not thread-safe; `transport` and `clock` must outlive the client.
class PrometheusClient {
 public:
  PrometheusClient(PrometheusClientOptions options, HttpTransport& transport, Clock& clock);

  // Instant query evaluated at `at`; resultType "vector".
  Result<QueryResponse> query(std::string_view promql, Time at);
  // Instant query evaluated at `at` whose result may also be a scalar (one series, no labels).
  Result<QueryResponse> queryValue(std::string_view promql, Time at);
  // Range query over [range.start, range.end] every range.step; resultType "matrix".
  Result<QueryResponse> queryRange(std::string_view promql, const Range& range);

  // Unix seconds with millisecond precision, as the API expects: "1700000000.250".
  static std::string formatTimestamp(Time t);

 private:
  Result<QueryResponse> instant(std::string_view promql, Time at, ScalarResults scalars);
  Result<QueryResponse> post(std::string_view endpoint, std::string_view promql,
                             const std::vector<std::pair<std::string, std::string>>& form,
                             ScalarResults scalars);

  PrometheusClientOptions options_;
  std::string urlSuffix_;  // "?k=v&..." of options_.queryParameters, or ""
  HttpTransport& transport_;
  Clock& clock_;
};

}  // namespace attune::metrics
