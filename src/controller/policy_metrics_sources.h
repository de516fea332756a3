// Each policy's metrics source: spec.metricsSource.prometheus when set (address, headers,
// query parameters, tls.insecureSkipVerify, and the bearer token read from the Secret that
// bearerTokenSecret names, in the policy's namespace), through a PrometheusPool; otherwise the
// operator's own source (--prometheus-url). A policy whose Secret cannot be read gets a source
// that fails every read with the reason, so its pass fails closed (Ready=False,
// PrometheusUnavailable) while the other policies go on (docs/prometheus.md).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "metrics/metrics_source.h"
#include "metrics/prometheus/prometheus_pool.h"
#include "metrics/unavailable_source.h"

namespace attune::controller {

// Chooses the MetricsSource a policy's pass reads (ControllerOptions::metricsSources).
class MetricsSourceSelector {
 public:
  virtual ~MetricsSourceSelector() = default;
  // The source for `policy` (as stored). Valid until the next call of sourceFor or of the
  // implementation's own clean-up.
  virtual metrics::MetricsSource& sourceFor(const api::AttunePolicy& policy) = 0;
};

class PolicyMetricsSources final : public MetricsSourceSelector {
 public:
  // Called with every credential read (a token, an Authorization header's value), e.g. to mask
  // it in logs.
  using SecretFn = std::function<void(std::string_view secret)>;

  // Secrets are read through `api` at every call (so a rotated token is used from the next
  // pass on). Every reference must outlive this object. Not thread-safe.
  PolicyMetricsSources(api::ClusterApi& api, metrics::MetricsSource& fallback,
                       metrics::PrometheusPool& pool, SecretFn onSecret = {});

  metrics::MetricsSource& sourceFor(const api::AttunePolicy& policy) override;

  // The pooled endpoint of `policy`'s spec.metricsSource.prometheus (which must be set), or the
  // error saying why it cannot be built (the Secret or its key cannot be read; the error's
  // field is the spec path).
  Result<metrics::PrometheusEndpoint> endpointOf(const api::AttunePolicy& policy);

  // Drops the pooled clients no policy used since the last call; call it after a pass over
  // every policy. Returns how many were dropped.
  std::size_t dropUnused();

 private:
  api::ClusterApi& api_;
  metrics::MetricsSource& fallback_;
  metrics::PrometheusPool& pool_;
  SecretFn onSecret_;
  // The failing source of each policy ("namespace/name") whose endpoint could not be built.
  std::map<std::string, std::unique_ptr<metrics::UnavailableSource>, std::less<>> failures_;
};

}  // namespace attune::controller
