// The request path of HttpClusterApi: one API server, a client-side rate limit, retries with
// exponential backoff, and the mapping of failed responses to Errors.
#pragma once

#include <string>
#include <string_view>

#include "core/backoff.h"
#include "core/clock.h"
#include "core/error.h"
#include "http/http_client.h"
#include "kube/rate_limiter.h"

namespace attune::kube {

struct RestOptions {
  RateLimit rateLimit;  // every attempt (retries included) takes a token
  // Retries after the first attempt, on transport errors, 429 and 5xx only. 4xx other than 429
  // (404, 409, 410, 422, ...) and a PodDisruptionBudget's 429 are never retried: the caller
  // decides.
  int maxRetries = 4;
  // Delay before each retry; the curve restarts for every call. A Retry-After header (seconds)
  // on a 429 or 5xx replaces the computed delay, capped at maxRetryAfter.
  BackoffPolicy backoff{std::chrono::milliseconds(250), 2.0, std::chrono::seconds(8),
                        Duration::zero()};
  Duration maxRetryAfter = std::chrono::seconds(60);
};

// The Error for a response with a non-2xx status. `body` is usually a metav1.Status; its
// message is used when present (else "<what>: HTTP <status>"), and for 422 its
// details.causes[0].field becomes Error::field. Mapping:
//   400, 422 → kInvalidArgument    401, 403 → kForbidden    404 → kNotFound
//   409 → kConflict                410 (Gone, Expired) → kConflict with field "resourceVersion"
//   405, 406, 415 → kUnsupported   429, 5xx → kUnavailable  anything else → kInternal
// except a 429 with a details.causes[] entry of type DisruptionBudget (the eviction
// subresource's refusal): kDisruptionBudget, as api::disruptionBudgetRefusal(cause message),
// and never retried.
Error statusError(long status, std::string_view body, std::string_view what);
// The same mapping for an already parsed Status (a watch ERROR event).
Error statusError(long status, std::string message, std::string field, std::string_view what);

// A parsed "Retry-After" header in seconds (HTTP dates are not supported: nullopt).
std::optional<Duration> retryAfter(const http::HttpResponse& response);

// Not thread-safe (one owner, like the transport it holds).
class RestClient {
 public:
  // `server` is the base URL without a trailing "/"; `clock` paces the limiter and retries and
  // must outlive the client. With `sharedLimiter` (which must outlive the client) every attempt
  // takes its token there instead of from a bucket of the client's own (options.rateLimit is
  // then unused): several clients, on threads of their own, keep one rate limit together.
  RestClient(std::string server, http::HttpTransportPtr transport, Clock& clock,
             RestOptions options = {}, TokenBucket* sharedLimiter = nullptr);

  // Sends `method` to server + `pathAndQuery` (which starts with "/") with an optional body of
  // `contentType`, retrying as RestOptions says. Returns the body of a 2xx response, or the
  // Error of the last attempt (statusError, or the transport's kUnavailable, with the number
  // of attempts in the message when more than one was made).
  Result<std::string> call(http::HttpRequest::Method method, std::string_view pathAndQuery,
                           std::string body = {}, std::string contentType = {});

  const std::string& server() const { return server_; }
  TokenBucket& limiter() { return limiter_; }
  Clock& clock() { return clock_; }
  // Attempts sent so far (for tests and metrics).
  long attempts() const { return attempts_; }

 private:
  std::string server_;
  http::HttpTransportPtr transport_;
  Clock& clock_;
  RestOptions options_;
  TokenBucket ownLimiter_;
  TokenBucket& limiter_;  // ownLimiter_, or the shared one
  long attempts_ = 0;
};

}  // namespace attune::kube
