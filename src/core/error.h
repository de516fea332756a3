// Error values and Result<T>, the return type of every operation that outside input can fail.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <utility>

namespace attune {

// What kind of failure an Error reports. Callers branch on the code, people read the message.
enum class ErrorCode {
  kInvalidArgument,   // malformed input: a bad quantity, duration, document or field value
  kOutOfRange,        // well-formed input whose value is too large, too small or overflows
  kNotFound,          // the named object or file does not exist
  kConflict,          // stale resourceVersion or concurrent modification (HTTP 409)
  kForbidden,         // refused by policy: RBAC, quota or LimitRange admission (HTTP 403)
  kUnavailable,       // a peer could not be reached or asked us to back off (connection, 429, 5xx)
  kDisruptionBudget,  // an eviction a PodDisruptionBudget refuses for now (HTTP 429, cause
                      // DisruptionBudget): the pod stays; retry later, not at once
  kUnsupported,       // valid input that this build does not implement
  kInternal,          // a failure that is not the caller's fault
};

std::string_view errorCodeName(ErrorCode code);

// An error with a code, a human-readable message and, when the error is about one field of a
// document, that field's path (e.g. "spec.updateStrategy.cooldown").
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string message;
  std::string field;  // empty when the error is not about one field

  // "field: message", or just the message when no field is set.
  std::string toString() const;

  // Returns a copy whose field path is `prefix` joined with the current path; used when a
  // nested decoder reports an error relative to its own root.
  Error under(std::string_view prefix) const;

  bool operator==(const Error&) const = default;
};

template <typename T>
using Result = std::expected<T, Error>;

// Builds the unexpected value to return from a function yielding Result<T>.
inline std::unexpected<Error> fail(ErrorCode code, std::string message, std::string field = {}) {
  return std::unexpected<Error>(Error{code, std::move(message), std::move(field)});
}

// Joins two field paths: joinPath("spec", "cpu") == "spec.cpu", joinPath("a", "[2]") == "a[2]".
std::string joinPath(std::string_view prefix, std::string_view rest);

}  // namespace attune
