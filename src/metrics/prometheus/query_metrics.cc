#include "metrics/prometheus/query_metrics.h"

#include <string>

namespace attune::metrics {

PrometheusQueryMetrics::PrometheusQueryMetrics(Registry& registry)
    : queries_(registry.counter("attune_prometheus_queries_total",
                                "Prometheus queries sent by the operator, by query type",
                                {"query_type"})),
      duration_(registry.histogram("attune_prometheus_query_duration_seconds",
                                   "Duration of each Prometheus query, retries included",
                                   {"query_type"}, defaultDurationBuckets())),
      errors_(registry.counter("attune_prometheus_query_errors_total", "Failed Prometheus queries",
                               {"namespace", "query_type"})),
      bytes_(registry.counter("attune_prometheus_response_bytes_total",
                              "Bytes of the Prometheus query responses received", {"query_type"})) {
}

void PrometheusQueryMetrics::record(const QueryRecord& query) {
  const std::string type(query.queryType);
  queries_.inc({type});
  duration_.observe({type}, std::chrono::duration<double>(query.duration).count());
  bytes_.inc({type}, static_cast<double>(query.bytes));
  if (!query.ok) errors_.inc({std::string(query.ns), type});
}

}  // namespace attune::metrics
