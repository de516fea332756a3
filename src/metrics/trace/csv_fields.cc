#include "metrics/trace/csv_fields.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace attune::metrics {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

bool isDigits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::vector<std::string_view> splitFields(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = line.find(separator, start);
    fields.push_back(trim(line.substr(start, end - start)));
    if (end == std::string_view::npos) return fields;
    start = end + 1;
  }
}

Result<double> parseMeasurement(std::string_view field) {
  double value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (field.empty() || ec != std::errc() || end != field.data() + field.size()) {
    return fail(ErrorCode::kInvalidArgument, "not a number: " + quoted(field));
  }
  if (value < 0) return fail(ErrorCode::kInvalidArgument, "negative value " + quoted(field));
  return value;
}

Result<std::int64_t> parseCount(std::string_view field) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (!isDigits(field) || ec != std::errc() || end != field.data() + field.size()) {
    return fail(ErrorCode::kInvalidArgument, "not a non-negative integer: " + quoted(field));
  }
  return value;
}

Result<Time> parseTimestamp(std::string_view field) {
  const std::string_view whole = field.substr(0, field.find('.'));
  const std::string_view fraction =
      whole.size() < field.size() ? field.substr(whole.size() + 1) : std::string_view();
  const bool unixSeconds = isDigits(whole) && (whole.size() == field.size() || isDigits(fraction));
  if (!unixSeconds) {
    auto t = parseRfc3339(field);
    if (!t) {
      return fail(ErrorCode::kInvalidArgument,
                  "invalid timestamp " + quoted(field) + ": want RFC 3339 or Unix seconds");
    }
    return t;
  }
  // Time counts nanoseconds in 64 bits: Unix seconds up to 9223372035 (April 2262).
  constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
  std::int64_t seconds = 0;
  const auto parsed = std::from_chars(whole.data(), whole.data() + whole.size(), seconds);
  if (parsed.ec != std::errc() || seconds > kMaxSeconds || fraction.size() > 9) {
    return fail(ErrorCode::kOutOfRange, "timestamp out of range: " + quoted(field));
  }
  std::int64_t nanos = 0;
  std::from_chars(fraction.data(), fraction.data() + fraction.size(), nanos);
  for (std::size_t i = fraction.size(); i < 9; ++i) nanos *= 10;
  return Time(std::chrono::seconds(seconds) + std::chrono::nanoseconds(nanos));
}

}  // namespace attune::metrics
