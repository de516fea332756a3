// SimScalarQuery: metrics::ScalarQuery answered from a simulation's own history — the PromQL of
// an HPA guard annotation (sum(rate(http_requests_total{...}[5m]))) parsed and evaluated in
// process (metrics/query/promql_eval.h) over RecordedSeries, so the guard runs against a
// simulated cluster without a Prometheus server.
//
// Errors, as ScalarQuery's contract names them:
//   - a query that does not parse or that the evaluator does not support, or an evaluation
//     error: kInvalidArgument (what Prometheus rejects with 400);
//   - an empty vector, or a NaN/±Inf value: kNotFound;
//   - several samples: kInvalidArgument.
// Parsed queries are kept by their text, so a query asked every interval is parsed once.
// Holds a reference to the recorder, which must outlive it. Not thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "metrics/query/promql_eval.h"
#include "metrics/scalar_query.h"
#include "sim/telemetry/recorded_series.h"
#include "sim/telemetry/recorder.h"

namespace attune::sim {

class SimScalarQuery final : public metrics::ScalarQuery {
 public:
  explicit SimScalarQuery(const Recorder& recorder) : series_(recorder) {}

  Result<double> evaluate(std::string_view promql, Time at) override;

 private:
  RecordedSeries series_;
  std::map<std::string, metrics::query::Query, std::less<>> parsed_;
};

}  // namespace attune::sim
