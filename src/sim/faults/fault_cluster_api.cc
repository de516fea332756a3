#include "sim/faults/fault_cluster_api.h"

#include <utility>

namespace attune::sim {

FaultClusterApi::FaultClusterApi(api::ClusterApi& inner, FaultOptions options)
    : ForwardingClusterApi(inner), injector_(std::move(options)) {}

std::size_t FaultClusterApi::appliedWrites(std::string_view method, std::string_view ns,
                                           std::string_view name) const {
  std::size_t n = 0;
  for (const FaultWriteRecord& w : writes_) {
    if (w.appliedByInner && w.method == method && w.namespace_ == ns && w.name == name) ++n;
  }
  return n;
}

Error FaultClusterApi::errorFor(FaultKind fault, std::string_view method) const {
  const auto unavailable = [&](std::string_view what) {
    return Error{ErrorCode::kUnavailable,
                 std::string(method) + ": injected fault: " + std::string(what), ""};
  };
  switch (fault) {
    case FaultKind::kConflict:
      return Error{ErrorCode::kConflict,
                   std::string(method) +
                       ": injected fault: 409 Conflict: the object has been modified; please "
                       "apply your changes to the latest version and try again",
                   ""};
    case FaultKind::kTimeout:
      return unavailable("the request timed out");
    case FaultKind::kThrottled:
      return unavailable("429 Too Many Requests (retry after " +
                         formatDuration(injector_.options().retryAfter) + ")");
    case FaultKind::kServerError:
      return unavailable("500 Internal Server Error");
    case FaultKind::kWatchDropped:
      return unavailable("the watch stream closed");
    case FaultKind::kWatchGone:
      return Error{ErrorCode::kConflict,
                   std::string(method) + ": injected fault: 410 Gone: too old resource version",
                   "resourceVersion"};
    case FaultKind::kResponseLost:
      return unavailable("the connection closed before the response arrived");
    case FaultKind::kNone:
      break;
  }
  return Error{ErrorCode::kInternal, "no fault", ""};
}

std::optional<Error> FaultClusterApi::admit(const api::ForwardedCall& call) {
  using Kind = api::ForwardedCall::Kind;
  switch (call.kind) {
    case Kind::kRead:
    case Kind::kWatch: {
      const FaultKind fault =
          injector_.next(call.kind == Kind::kRead ? RequestKind::kRead : RequestKind::kWatch);
      if (fault == FaultKind::kNone) return std::nullopt;
      return errorFor(fault, call.method);
    }
    case Kind::kWrite:
      break;
  }
  const FaultKind fault =
      injector_.next(call.preconditioned ? RequestKind::kConditionalWrite : RequestKind::kWrite);
  if (fault != FaultKind::kNone && fault != FaultKind::kResponseLost) {
    logWrite(call, fault, false, false);
    return errorFor(fault, call.method);
  }
  forwardedWriteFault_ = fault;
  return std::nullopt;
}

std::optional<Error> FaultClusterApi::completed(const api::ForwardedCall& call, bool succeeded) {
  if (call.kind != api::ForwardedCall::Kind::kWrite) return std::nullopt;
  const FaultKind fault = std::exchange(forwardedWriteFault_, FaultKind::kNone);
  logWrite(call, fault, true, succeeded);
  if (fault == FaultKind::kResponseLost) return errorFor(fault, call.method);
  return std::nullopt;
}

void FaultClusterApi::logWrite(const api::ForwardedCall& call, FaultKind fault, bool reachedInner,
                               bool appliedByInner) {
  FaultWriteRecord record{.method = std::string(call.method),
                          .namespace_ = std::string(call.namespace_),
                          .name = std::string(call.name),
                          .fault = fault,
                          .reachedInner = reachedInner,
                          .appliedByInner = appliedByInner,
                          .resize = {call.resize.begin(), call.resize.end()}};
  if (call.annotations != nullptr) record.annotations = *call.annotations;
  writes_.push_back(std::move(record));
}

}  // namespace attune::sim
