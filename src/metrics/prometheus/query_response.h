// Decoding of the Prometheus HTTP API v1 query envelope:
//   {"status":"success"|"error", "data":{"resultType":"vector"|"matrix","result":[...]},
//    "errorType":"...", "error":"...", "warnings":["..."]}
// with result[] = {"metric":{labels}, "value":[t,"v"]} (vector) or {..., "values":[[t,"v"],...]}
// (matrix), t in Unix seconds (float) and v a decimal string.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "metrics/metrics_source.h"

namespace attune::metrics {

using Labels = std::map<std::string, std::string, std::less<>>;

// One series of a query result; a vector result has at most one point per series.
struct PromSeries {
  Labels labels;
  std::vector<Point> points;

  // The label's value, or "" when absent.
  std::string_view label(std::string_view name) const;
};

struct QueryResponse {
  bool success = false;   // status == "success"
  std::string errorType;  // set when !success
  std::string error;
  std::string resultType;  // "vector" or "matrix" when success
  std::vector<PromSeries> series;
  std::vector<std::string> warnings;
  std::size_t bytes = 0;  // the size of the response body (set by PrometheusClient)
};

// Which resultTypes a decode accepts besides vector and matrix.
enum class ScalarResults {
  kRejected,
  // A "scalar" result ("result":[t,"v"], after "resultType") becomes one series without labels
  // (none when the value is NaN or ±Inf).
  kAccepted,
};

// Decodes a response body with simdjson On Demand, in one pass and without a DOM. Samples
// whose value is NaN or ±Inf are dropped; a series left without points is dropped. `body` may be
// reallocated to add the padding simdjson needs. Fails with kInvalidArgument on malformed JSON,
// a response without "status", an unknown resultType (string; scalar unless accepted) or a
// sample that is not a number. A response whose status is not "success" has no series, even
// when it carries data.
Result<QueryResponse> decodeQueryResponse(std::string& body,
                                          ScalarResults scalars = ScalarResults::kRejected);

// Parses a Prometheus sample value ("1.5", "1e3", "NaN", "+Inf", "-Inf"). Returns nullopt for
// NaN and infinities, and an error for text that is not a number.
Result<std::optional<double>> parseSampleValue(std::string_view text);

}  // namespace attune::metrics
