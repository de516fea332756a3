// Fuzzes the decoding of Prometheus HTTP API v1 query responses: decodeQueryResponse with
// scalar results rejected and accepted, and parseSampleValue of the input as a sample value.
// For any input: nothing crashes or throws, and errors have a message. For a decoded response:
//  - a successful one has resultType vector or matrix (or scalar when accepted), a failed one
//    no series (the decoder drops whatever its data said: the operator fails closed);
//  - every series has at least one point, and no point's value is NaN or ±Inf;
//  - a vector (and a scalar) has at most one point per series;
//  - accepting scalars changes nothing for a response that decodes with them rejected.
// parseSampleValue never returns NaN or ±Inf.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <string>
#include <string_view>

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

  std::string accepting = text;
  auto lenient = decodeQueryResponse(accepting, ScalarResults::kAccepted);
  if (lenient) {
    checkResponse(*lenient, ScalarResults::kAccepted);
  } else {
    check(!lenient.error().message.empty());
  }
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
