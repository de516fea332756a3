// Decoding of the Prometheus HTTP API v1 query envelope:
//   {"status":"success"|"error", "data":{"resultType":"vector"|"matrix","result":[...]},
//    "errorType":"...", "error":"...", "warnings":["..."]}
// with result[] = {"metric":{labels}, "value":[t,"v"]} (vector) or {..., "values":[[t,"v"],...]}
// (matrix), t in Unix seconds (float) and v a decimal string.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
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

// Decodes a response body as it arrives, in pieces, to what decodeQueryResponse would return
// for the whole body (the same value, or an error), without holding the body or a parse of it:
// each series of data.result is decoded as soon as its last byte arrives, once data.resultType
// has said "matrix" or "vector" (Prometheus sends it first), and only the rest of the body (the
// envelope, status, errors, warnings; a result in any other form) is kept and decoded at the
// end. What it holds is one series' text and the series decoded so far.
//
// A series that fails to decode ends the decode: later feed() calls return false and finish()
// returns the error. A response whose status is not "success" has no series.
class QueryResponseStream {
 public:
  explicit QueryResponseStream(ScalarResults scalars = ScalarResults::kRejected);
  ~QueryResponseStream();
  QueryResponseStream(const QueryResponseStream&) = delete;
  QueryResponseStream& operator=(const QueryResponseStream&) = delete;

  // The next bytes of the body. False once the decode has failed (nothing more is needed).
  bool feed(std::string_view bytes);
  // The response, once every byte was fed (bytes set to the body's size). Call once.
  Result<QueryResponse> finish();
  // The first bytes of the body (up to 200), to describe a response that is not a success.
  const std::string& head() const { return head_; }
  std::size_t bytes() const { return bytes_; }
  // The body's text it holds (capacity): the envelope's and one series'.
  std::size_t textHeld() const { return skeleton_.capacity() + element_.capacity(); }

 private:
  struct Scanner;
  // A series of data.result, complete in element_: decoded into series_; false (error_ set)
  // when it does not decode.
  bool decodeElement();

  ScalarResults scalars_;
  std::unique_ptr<Scanner> scanner_;
  std::string skeleton_;  // the body without the series decoded as they came
  std::string element_;   // the series being received
  std::vector<PromSeries> series_;
  std::optional<Error> error_;
  std::string head_;
  std::size_t bytes_ = 0;
};

// Parses a Prometheus sample value ("1.5", "1e3", "NaN", "+Inf", "-Inf"). Returns nullopt for
// NaN and infinities, and an error for text that is not a number.
Result<std::optional<double>> parseSampleValue(std::string_view text);

}  // namespace attune::metrics
