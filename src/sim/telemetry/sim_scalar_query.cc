#include "sim/telemetry/sim_scalar_query.h"

#include <cmath>
#include <string>

namespace attune::sim {

Result<double> SimScalarQuery::evaluate(std::string_view promql, Time at) {
  auto known = parsed_.find(promql);
  if (known == parsed_.end()) {
    auto query = metrics::query::Query::parse(promql);
    if (!query) {
      return fail(ErrorCode::kInvalidArgument, "query rejected: " + query.error().message);
    }
    known = parsed_.emplace(std::string(promql), std::move(*query)).first;
  }
  auto result = known->second.evaluate(series_, at);
  if (!result) {
    return fail(ErrorCode::kInvalidArgument, "query rejected: " + result.error().message);
  }
  if (result->empty()) return fail(ErrorCode::kNotFound, "the query returned no sample");
  if (result->size() > 1) {
    return fail(ErrorCode::kInvalidArgument,
                "the query returned " + std::to_string(result->size()) + " series, not one");
  }
  const double value = result->front().value;
  if (!std::isfinite(value)) {
    return fail(ErrorCode::kNotFound, std::isnan(value) ? "the query returned NaN"
                                                        : "the query returned an infinite value");
  }
  return value;
}

}  // namespace attune::sim
