// The operator's metrics of its Prometheus queries: what the usage reads, the safety checks and
// the backend check cost the metrics backend (docs/prometheus.md#the-operators-query-metrics).
//   attune_prometheus_queries_total{query_type}                  queries sent (after retries)
//   attune_prometheus_query_duration_seconds{query_type}         histogram, retries included
//   attune_prometheus_query_errors_total{namespace,query_type}   failed queries
//   attune_prometheus_response_bytes_total{query_type}           response bodies received
// query_type is the MetricsSource method's: cpu_usage, cpu_pressure, memory_working_set,
// cpu_throttle, oom_kills, restart_counts, resources, pod_owners, node_load, node_capacity;
// namespace is the query's ("" for a query of every namespace).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "core/time.h"
#include "metrics/exposition/registry.h"

namespace attune::metrics {

// One query a PrometheusSource sent.
struct QueryRecord {
  std::string_view queryType;  // as above
  std::string_view ns;         // "" = every namespace
  bool range = false;          // query_range (else an instant query)
  Duration duration{};         // from the first attempt to the answer or the last failure
  std::size_t bytes = 0;       // the response body of a successful query; 0 after a failure
  bool ok = false;
};
using QueryObserverFn = std::function<void(const QueryRecord& query)>;

// Books QueryRecords in a registry. Thread-safe as the registry's families are. `registry` must
// outlive it.
class PrometheusQueryMetrics {
 public:
  explicit PrometheusQueryMetrics(Registry& registry);

  void record(const QueryRecord& query);
  // record() as a PrometheusOptions::onQuery; the object must outlive its use.
  QueryObserverFn observer() {
    return [this](const QueryRecord& query) { record(query); };
  }

 private:
  MetricFamily& queries_;
  MetricFamily& duration_;
  MetricFamily& errors_;
  MetricFamily& bytes_;
};

}  // namespace attune::metrics
