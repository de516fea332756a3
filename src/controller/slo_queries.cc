#include "controller/slo_queries.h"

#include "metrics/prometheus/prometheus_scalar_query.h"

namespace attune::controller {

PolicySloQueries::PolicySloQueries(PolicyMetricsSources& sources,
                                   const metrics::PrometheusPool& pool,
                                   metrics::ScalarQuery& fallback, Clock& clock)
    : sources_(sources), pool_(pool), fallback_(fallback), clock_(clock) {}

Result<metrics::ScalarQuery*> PolicySloQueries::queryFor(const api::AttunePolicy& policy) {
  if (!policy.spec.metricsSource.prometheus) return &fallback_;
  auto endpoint = sources_.endpointOf(policy);
  if (!endpoint) return std::unexpected(endpoint.error());
  auto& query = queries_[*endpoint];
  if (!query) {
    query = std::make_unique<metrics::PrometheusScalarQuery>(pool_.optionsFor(*endpoint), clock_);
  }
  return query.get();
}

}  // namespace attune::controller
