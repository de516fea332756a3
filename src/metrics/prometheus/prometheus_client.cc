#include "metrics/prometheus/prometheus_client.h"

#include <algorithm>
#include <charconv>
#include <cstdio>

namespace attune::metrics {
namespace {

bool retryable(long status) { return status == 429 || status >= 500; }

ErrorCode codeForStatus(long status) {
  if (retryable(status)) return ErrorCode::kUnavailable;
  if (status == 400 || status == 422) return ErrorCode::kInvalidArgument;
  return ErrorCode::kInternal;
}

// "Retry-After: <seconds>" (the HTTP-date form is ignored).
std::optional<Duration> retryAfter(const HttpResponse& response) {
  auto value = response.header("Retry-After");
  if (!value) return std::nullopt;
  long seconds = 0;
  auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), seconds);
  if (ec != std::errc() || end != value->data() + value->size() || seconds < 0) {
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

// What went wrong with a response that is not a success, from its decoded body when it is a
// Prometheus error envelope, else from the start of the body.
std::string describeFailure(long status, const Result<QueryResponse>& decoded,
                            std::string_view head) {
  std::string what = "HTTP " + std::to_string(status);
  if (decoded && !decoded->success && !decoded->error.empty()) {
    return what + ", " + decoded->errorType + ": " + decoded->error;
  }
  if (!decoded && status / 100 == 2) return what + ", " + decoded.error().message;
  constexpr size_t kMaxBody = 200;
  if (!head.empty()) what += ": " + std::string(head.substr(0, kMaxBody));
  return what;
}

// Milliseconds as decimal seconds: 1700000000250 → "1700000000.250".
std::string formatSeconds(std::chrono::milliseconds ms) {
  const long long total = ms.count();
  const long long seconds = total >= 0 ? total / 1000 : -((-total + 999) / 1000);
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%lld.%03lld", seconds, total - seconds * 1000);
  return buffer;
}

std::unexpected<Error> queryError(ErrorCode code, std::string_view promql,
                                  const std::string& reason) {
  return fail(code, "prometheus query failed (" + reason + "); query: " + std::string(promql));
}

}  // namespace

PrometheusClient::PrometheusClient(PrometheusClientOptions options, HttpTransport& transport,
                                   Clock& clock)
    : options_(std::move(options)), transport_(transport), clock_(clock) {
  while (options_.address.ends_with('/')) options_.address.pop_back();
  for (const auto& [key, value] : options_.queryParameters) {
    urlSuffix_ += urlSuffix_.empty() ? '?' : '&';
    urlSuffix_ += http::percentEncode(key) + "=" + http::percentEncode(value);
  }
}

std::string PrometheusClient::formatTimestamp(Time t) {
  return formatSeconds(std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch()));
}

Result<QueryResponse> PrometheusClient::query(std::string_view promql, Time at) {
  return instant(promql, at, ScalarResults::kRejected);
}

Result<QueryResponse> PrometheusClient::queryValue(std::string_view promql, Time at) {
  return instant(promql, at, ScalarResults::kAccepted);
}

Result<QueryResponse> PrometheusClient::instant(std::string_view promql, Time at,
                                                ScalarResults scalars) {
  return post("/api/v1/query", promql,
              {{"query", std::string(promql)}, {"time", formatTimestamp(at)}}, scalars);
}

Result<QueryResponse> PrometheusClient::queryRange(std::string_view promql, const Range& range) {
  const auto step = std::max(std::chrono::ceil<std::chrono::milliseconds>(range.step),
                             std::chrono::milliseconds(1));
  return post("/api/v1/query_range", promql,
              {{"query", std::string(promql)},
               {"start", formatTimestamp(range.start)},
               {"end", formatTimestamp(range.end)},
               {"step", formatSeconds(step)}},
              ScalarResults::kRejected);
}

Result<QueryResponse> PrometheusClient::post(
    std::string_view endpoint, std::string_view promql,
    const std::vector<std::pair<std::string, std::string>>& form, ScalarResults scalars) {
  HttpRequest request;
  request.method = HttpRequest::Method::kPost;
  request.url = options_.address + std::string(endpoint) + urlSuffix_;
  request.contentType = "application/x-www-form-urlencoded";
  request.body = formEncode(form);

  ExponentialBackoff backoff(options_.backoff);
  for (int attempt = 0;; ++attempt) {
    const bool lastAttempt = attempt >= std::max(options_.retries, 0);
    // A 2xx body is decoded as it arrives (QueryResponseStream), not held whole.
    QueryResponseStream stream(scalars);
    auto response = transport_.receive(
        request, [&stream](std::string_view bytes) { return stream.feed(bytes); });
    std::optional<Duration> serverWait;
    if (!response) {
      if (lastAttempt) return queryError(response.error().code, promql, response.error().message);
    } else if (retryable(response->status) && !lastAttempt) {
      serverWait = retryAfter(*response);
    } else if (response->status / 100 != 2) {
      // Decoded before it is quoted: the decode pads the body, which may move it.
      const auto decoded = decodeQueryResponse(response->body);
      return queryError(codeForStatus(response->status), promql,
                        describeFailure(response->status, decoded, response->body));
    } else {
      auto decoded = stream.finish();
      if (!decoded || !decoded->success) {
        return queryError(ErrorCode::kInvalidArgument, promql,
                          describeFailure(response->status, decoded, stream.head()));
      }
      if (options_.onWarning) {
        for (const auto& warning : decoded->warnings) options_.onWarning(promql, warning);
      }
      return decoded;
    }
    Duration wait = backoff.failure(clock_.now());
    if (serverWait) wait = std::min(std::max(wait, *serverWait), options_.backoff.cap);
    clock_.sleepFor(wait);
  }
}

}  // namespace attune::metrics
