// ScalarQuery: one number from a metrics backend, e.g. the request rate the HPA guard sizes a
// floor from. Implemented over the Prometheus HTTP API (metrics/prometheus/) and by fakes in
// tests; a simulated source can implement it the same way.
#pragma once

#include <memory>
#include <string_view>

#include "core/error.h"
#include "core/time.h"

namespace attune::metrics {

class ScalarQuery {
 public:
  virtual ~ScalarQuery() = default;

  // The value of `promql` evaluated at `at`: a scalar, or a vector with exactly one sample.
  // Every way of not having one number is an error, never a default value: transport failures
  // and 429/5xx (kUnavailable), a rejected query or malformed answer (kInvalidArgument), an
  // empty vector or a NaN/±Inf value (kNotFound), several series (kInvalidArgument).
  virtual Result<double> evaluate(std::string_view promql, Time at) = 0;
};
using ScalarQueryPtr = std::unique_ptr<ScalarQuery>;

}  // namespace attune::metrics
