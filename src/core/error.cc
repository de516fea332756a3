#include "core/error.h"

namespace attune {

std::string_view errorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument:
      return "InvalidArgument";
    case ErrorCode::kOutOfRange:
      return "OutOfRange";
    case ErrorCode::kNotFound:
      return "NotFound";
    case ErrorCode::kConflict:
      return "Conflict";
    case ErrorCode::kForbidden:
      return "Forbidden";
    case ErrorCode::kUnavailable:
      return "Unavailable";
    case ErrorCode::kDisruptionBudget:
      return "DisruptionBudget";
    case ErrorCode::kUnsupported:
      return "Unsupported";
    case ErrorCode::kInternal:
      return "Internal";
  }
  return "Unknown";
}

std::string Error::toString() const {
  if (field.empty()) return message;
  return field + ": " + message;
}

std::string joinPath(std::string_view prefix, std::string_view rest) {
  if (prefix.empty()) return std::string(rest);
  if (rest.empty()) return std::string(prefix);
  std::string out(prefix);
  if (rest.front() != '[') out += '.';
  out += rest;
  return out;
}

Error Error::under(std::string_view prefix) const {
  Error copy = *this;
  copy.field = joinPath(prefix, field);
  return copy;
}

}  // namespace attune
