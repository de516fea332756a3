#include "kube/rest_client.h"

#include <algorithm>
#include <charconv>
#include <nlohmann/json.hpp>

#include "api/k8s/pdb.h"

namespace attune::kube {
namespace {

std::string stringAt(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

ErrorCode codeFor(long status) {
  switch (status) {
    case 400:
    case 422:
      return ErrorCode::kInvalidArgument;
    case 401:
    case 403:
      return ErrorCode::kForbidden;
    case 404:
      return ErrorCode::kNotFound;
    case 409:
    case 410:
      return ErrorCode::kConflict;
    case 405:
    case 406:
    case 415:
      return ErrorCode::kUnsupported;
    case 429:
      return ErrorCode::kUnavailable;
    default:
      return status >= 500 && status < 600 ? ErrorCode::kUnavailable : ErrorCode::kInternal;
  }
}

bool retryable(long status) { return status == 429 || (status >= 500 && status < 600); }

}  // namespace

Error statusError(long status, std::string_view body, std::string_view what) {
  std::string message;
  std::string field;
  const auto json = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (json.is_object()) {
    message = stringAt(json, "message");
    const auto details = json.find("details");
    if (details != json.end() && details->is_object()) {
      const auto causes = details->find("causes");
      if (causes != details->end() && causes->is_array() && !causes->empty() &&
          (*causes)[0].is_object()) {
        field = stringAt((*causes)[0], "field");
      }
      for (const auto& cause :
           causes != details->end() && causes->is_array() ? *causes : nlohmann::json::array()) {
        if (status == 429 && cause.is_object() &&
            stringAt(cause, "reason") == api::kDisruptionBudgetCause) {
          return api::disruptionBudgetRefusal(stringAt(cause, "message"));
        }
      }
    }
  }
  return statusError(status, std::move(message), std::move(field), what);
}

Error statusError(long status, std::string message, std::string field, std::string_view what) {
  if (message.empty()) message = std::string(what) + ": HTTP " + std::to_string(status);
  if (status == 410) {
    field = "resourceVersion";
    message += " (410 Gone: the resourceVersion is too old; list again)";
  } else if (status == 429 || status >= 500) {
    message += " (HTTP " + std::to_string(status) + ")";
  }
  return Error{codeFor(status), std::move(message), std::move(field)};
}

std::optional<Duration> retryAfter(const http::HttpResponse& response) {
  const auto value = response.header("Retry-After");
  if (!value) return std::nullopt;
  long seconds = 0;
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), seconds);
  if (ec != std::errc() || end != value->data() + value->size() || seconds < 0) {
    return std::nullopt;
  }
  return std::chrono::seconds(seconds);
}

RestClient::RestClient(std::string server, http::HttpTransportPtr transport, Clock& clock,
                       RestOptions options, TokenBucket* sharedLimiter)
    : server_(std::move(server)),
      transport_(std::move(transport)),
      clock_(clock),
      options_(options),
      ownLimiter_(options.rateLimit, clock),
      limiter_(sharedLimiter != nullptr ? *sharedLimiter : ownLimiter_) {}

Result<std::string> RestClient::call(http::HttpRequest::Method method,
                                     std::string_view pathAndQuery, std::string body,
                                     std::string contentType) {
  http::HttpRequest request;
  request.method = method;
  request.url = server_ + std::string(pathAndQuery);
  request.body = std::move(body);
  request.contentType = std::move(contentType);
  request.headers = {{"Accept", "application/json"}, {"User-Agent", "attune"}};
  const std::string what = std::string(http::methodName(method)) + " " + std::string(pathAndQuery);

  ExponentialBackoff backoff(options_.backoff);
  for (int attempt = 1;; ++attempt) {
    limiter_.acquire();
    ++attempts_;
    auto response = transport_->send(request);
    Error error;
    std::optional<Duration> wait;
    if (!response) {
      error = response.error();
      if (error.code != ErrorCode::kUnavailable) return std::unexpected(error);
    } else if (response->status >= 200 && response->status < 300) {
      return std::move(response->body);
    } else {
      error = statusError(response->status, response->body, what);
      if (!retryable(response->status) || error.code == ErrorCode::kDisruptionBudget) {
        return std::unexpected(error);
      }
      wait = retryAfter(*response);
    }
    if (attempt > options_.maxRetries) {
      if (attempt > 1) error.message += " (after " + std::to_string(attempt) + " attempts)";
      return std::unexpected(error);
    }
    const Duration delay = backoff.failure(clock_.now());
    clock_.sleepFor(wait ? std::min(*wait, options_.maxRetryAfter) : delay);
  }
}

}  // namespace attune::kube
