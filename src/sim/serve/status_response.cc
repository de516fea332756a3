#include "sim/serve/status_response.h"

namespace attune::sim::serve {

HttpResponse json(int status, std::string body) {
  HttpResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

HttpResponse text(int status, std::string body) {
  return http::server::textResponse(status, std::move(body));
}

namespace {

std::string_view reasonOf(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 409:
      return "Conflict";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 503:
      return "ServiceUnavailable";
    default:
      return "InternalError";
  }
}

}  // namespace

// The eviction subresource's 429, as the API server writes it: no name or kind in the details,
// one DisruptionBudget cause, and Retry-After 10 while the budget's status is being computed.
HttpResponse disruptionBudgetResponse(const Error& error) {
  api::StatusDetails details;
  const std::string cause(api::disruptionBudgetCause(error));
  if (cause.find("still being processed") != std::string::npos) details.retryAfterSeconds = 10;
  details.causes.push_back({std::string(api::kDisruptionBudgetCause), cause, ""});
  HttpResponse response = status(429, std::string(api::kEvictionRefusedMessage), details);
  if (details.retryAfterSeconds > 0) {
    response.headers.emplace_back("Retry-After", std::to_string(details.retryAfterSeconds));
  }
  return response;
}

HttpResponse status(int code, std::string message, api::StatusDetails details, std::string reason) {
  if (reason.empty()) reason = std::string(reasonOf(code));
  return json(code,
              api::encodeStatusJson(
                  api::ApiStatus{"Failure", std::move(message), std::move(reason), code}, details));
}

// The Status response of `error` about request `r` (nullptr when not about a resource).
HttpResponse errorResponse(const Error& error, const ResourceRequest* r) {
  api::StatusDetails details;
  if (r != nullptr) {
    details.name = r->name;
    details.group = std::string(r->info->group);
    details.kind = std::string(r->info->plural);
  }
  switch (error.code) {
    case ErrorCode::kNotFound:
      return status(404, error.message, details);
    case ErrorCode::kConflict: {
      const bool exists = error.message.find("already exists") != std::string::npos;
      return status(409, error.message, details, exists ? "AlreadyExists" : "Conflict");
    }
    case ErrorCode::kForbidden:
      return status(403, error.message, details);
    case ErrorCode::kUnsupported:
      return status(405, error.message, details);
    case ErrorCode::kInvalidArgument:
    case ErrorCode::kOutOfRange: {
      if (error.field.empty()) return status(400, error.message, details);
      details.causes.push_back(
          {"FieldValueInvalid", "Invalid value: " + error.message, error.field});
      std::string message =
          r == nullptr ? std::string("the request is invalid")
                       : std::string(r->info->kind) +
                             (r->info->group.empty() ? "" : "." + std::string(r->info->group)) +
                             " \"" + r->name + "\" is invalid";
      message += ": " + error.field + ": Invalid value: " + error.message;
      return status(422, std::move(message), details);
    }
    case ErrorCode::kUnavailable:
      return status(503, error.message, details);
    case ErrorCode::kDisruptionBudget:
      return disruptionBudgetResponse(error);
    case ErrorCode::kInternal:
      break;
  }
  return status(500, error.message, details);
}

}  // namespace attune::sim::serve
