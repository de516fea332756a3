// Internal to sim/serve: building responses (JSON bodies, plain text, metav1.Status errors).
#pragma once

#include <string>

#include "api/k8s/encode_objects.h"
#include "core/error.h"
#include "http/server_message.h"
#include "sim/serve/object_handlers.h"

namespace attune::sim::serve {

// The HTTP server's vocabulary (src/http), used unqualified throughout sim/serve.
using http::server::ChunkSink;
using http::server::HttpRequest;
using http::server::HttpResponse;

// A JSON response.
HttpResponse json(int status, std::string body);
// A text/plain response.
HttpResponse text(int status, std::string body);
// A metav1.Status failure with `code`; `reason` defaults to the code's usual reason
// (NotFound, Conflict, Invalid...).
HttpResponse status(int code, std::string message, api::StatusDetails details = {},
                    std::string reason = {});
// The Status response of `error` about request `r` (nullptr when not about a resource):
// kNotFound 404, kConflict 409 (AlreadyExists or Conflict), kForbidden 403, kUnsupported 405,
// kInvalidArgument/kOutOfRange 422 with a cause naming the field (400 without a field),
// kUnavailable 503, kDisruptionBudget 429 (disruptionBudgetResponse), kInternal 500.
HttpResponse errorResponse(const Error& error, const ResourceRequest* r);
// The 429 TooManyRequests of an eviction a PodDisruptionBudget refuses (kDisruptionBudget):
// message api::kEvictionRefusedMessage, details.causes[0] of type DisruptionBudget with the
// error's cause.
HttpResponse disruptionBudgetResponse(const Error& error);

}  // namespace attune::sim::serve
