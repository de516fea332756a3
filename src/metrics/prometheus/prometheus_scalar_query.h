// ScalarQuery over the Prometheus HTTP API v1 instant-query endpoint (/api/v1/query), with the
// client's retries, TLS and authentication.
#pragma once

#include "core/clock.h"
#include "metrics/prometheus/prometheus_client.h"
#include "metrics/prometheus/prometheus_source.h"
#include "metrics/scalar_query.h"

namespace attune::metrics {

// Not thread-safe: one caller drives one query source. `clock` must outlive it.
class PrometheusScalarQuery final : public ScalarQuery {
 public:
  // Talks HTTP(S) through libcurl, with options.client and options.http (the rate windows of
  // PrometheusOptions are not used).
  PrometheusScalarQuery(const PrometheusOptions& options, Clock& clock);
  // Talks through `transport` (tests inject a fake).
  PrometheusScalarQuery(PrometheusClientOptions options, HttpTransportPtr transport, Clock& clock);

  Result<double> evaluate(std::string_view promql, Time at) override;

 private:
  HttpTransportPtr transport_;
  PrometheusClient client_;
};

}  // namespace attune::metrics
