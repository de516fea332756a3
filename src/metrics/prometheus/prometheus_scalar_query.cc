#include "metrics/prometheus/prometheus_scalar_query.h"

#include <utility>

namespace attune::metrics {

PrometheusScalarQuery::PrometheusScalarQuery(const PrometheusOptions& options, Clock& clock)
    : PrometheusScalarQuery(options.client, std::make_unique<CurlHttpClient>(options.http), clock) {
}

PrometheusScalarQuery::PrometheusScalarQuery(PrometheusClientOptions options,
                                             HttpTransportPtr transport, Clock& clock)
    : transport_(std::move(transport)), client_(std::move(options), *transport_, clock) {}

Result<double> PrometheusScalarQuery::evaluate(std::string_view promql, Time at) {
  auto response = client_.queryValue(promql, at);
  if (!response) return std::unexpected(response.error());
  // NaN and ±Inf samples were dropped by the decoder, with their series.
  if (response->series.empty()) {
    return fail(ErrorCode::kNotFound,
                "prometheus query returned no finite sample; query: " + std::string(promql));
  }
  if (response->series.size() > 1) {
    return fail(
        ErrorCode::kInvalidArgument,
        "prometheus query returned " + std::to_string(response->series.size()) +
            " series, want one (aggregate it, e.g. with sum()); query: " + std::string(promql));
  }
  return response->series.front().points.back().value;
}

}  // namespace attune::metrics
