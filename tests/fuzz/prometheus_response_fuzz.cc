// Fuzzes the decoding of Prometheus HTTP API v1 query responses: decodeQueryResponse with
// scalar results rejected and accepted, and parseSampleValue of the input as a sample value.
// For any input: nothing crashes or throws, and errors have a message. For a decoded response:
//  - a successful one has resultType vector or matrix (or scalar when accepted), a failed one
//    no series (the decoder drops whatever its data said: the operator fails closed);
//  - every series has at least one point, and no point's value is NaN or ±Inf;
//  - a vector (and a scalar) has at most one point per series;
//  - accepting scalars changes nothing for a response that decodes with them rejected;
//  - QueryResponseStream, fed the input in pieces, decodes it to the same value (or fails too);
//    it may also reject an input that is not valid JSON which the whole decode accepted.
// parseSampleValue never returns NaN or ±Inf.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <string>
#include <string_view>

#include <simdjson.h>

#include "fuzz_check.h"
#include "metrics/prometheus/query_response.h"

namespace {

using namespace attune::metrics;

using attune::fuzz::check;

void checkResponse(const QueryResponse& response, ScalarResults scalars) {
  if (!response.success) {
    check(response.series.empty() && response.resultType.empty());
    return;
  }
  const bool vector = response.resultType == "vector";
  const bool scalar = response.resultType == "scalar";
  check(vector || response.resultType == "matrix" ||
        (scalar && scalars == ScalarResults::kAccepted));
  for (const PromSeries& series : response.series) {
    check(!series.points.empty());
    if (vector || scalar) check(series.points.size() == 1);
    for (const auto& point : series.points) check(std::isfinite(point.value));
  }
}

// The input fed to a QueryResponseStream in pieces (cut at a third and two thirds, or at every
// byte for short inputs) against decodeQueryResponse's answer for the whole.
void checkStreamed(const std::string& text, ScalarResults scalars,
                   const attune::Result<QueryResponse>& whole) {
  QueryResponseStream stream(scalars);
  constexpr std::size_t kByteByByte = 64;
  const std::size_t step =
      text.size() <= kByteByByte ? 1 : std::max<std::size_t>(text.size() / 3, 1);
  for (std::size_t from = 0; from < text.size(); from += step) {
    stream.feed(std::string_view(text).substr(from, step));
  }
  auto parts = stream.finish();
  if (!parts && whole) {
    // The stream counts brackets: it rejects a body that does not balance, which the whole
    // decode (reading only what it looks for) may accept. Never a valid JSON body.
    simdjson::dom::parser parser;
    check(parser.parse(text).error() != simdjson::SUCCESS);
    return;
  }
  check(parts.has_value() == whole.has_value());
  if (!parts || !whole) return;
  check(parts->success == whole->success && parts->resultType == whole->resultType &&
        parts->error == whole->error && parts->errorType == whole->errorType &&
        parts->warnings == whole->warnings && parts->series.size() == whole->series.size());
  for (std::size_t i = 0; i < whole->series.size(); ++i) {
    check(parts->series[i].labels == whole->series[i].labels &&
          parts->series[i].points.size() == whole->series[i].points.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);

  std::string rejecting = text;
  auto strict = decodeQueryResponse(rejecting, ScalarResults::kRejected);
  if (strict) {
    checkResponse(*strict, ScalarResults::kRejected);
  } else {
    check(!strict.error().message.empty());
  }

  checkStreamed(text, ScalarResults::kRejected, strict);

  std::string accepting = text;
  auto lenient = decodeQueryResponse(accepting, ScalarResults::kAccepted);
  if (lenient) {
    checkResponse(*lenient, ScalarResults::kAccepted);
  } else {
    check(!lenient.error().message.empty());
  }
  checkStreamed(text, ScalarResults::kAccepted, lenient);
  if (strict) {
    check(lenient.has_value());
    check(lenient->success == strict->success && lenient->resultType == strict->resultType &&
          lenient->series.size() == strict->series.size() &&
          lenient->warnings == strict->warnings && lenient->error == strict->error);
  }

  auto value = parseSampleValue(std::string_view(text));
  if (value) {
    if (*value) check(std::isfinite(**value));
  } else {
    check(!value.error().message.empty());
  }
  return 0;
}
