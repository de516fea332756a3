// Where each policy's SLO guardrails (updateStrategy.sloGuardrails) are evaluated: the same
// Prometheus its usage is read from (its own spec.metricsSource.prometheus, else the operator's
// --prometheus-url), through the instant-query endpoint (metrics::ScalarQuery).
#pragma once

#include <map>
#include <memory>
#include <string_view>

#include "api/policy/attune_policy.h"
#include "controller/policy_metrics_sources.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/prometheus/prometheus_pool.h"
#include "metrics/scalar_query.h"

namespace attune::controller {

// The Warning event of a guardrail that could not be evaluated for a pod (a query error, an
// empty result, NaN or Inf, no query endpoint): it fails open, and this says so (ours).
inline constexpr std::string_view kSloGuardrailSkippedReason = "SLOGuardrailSkipped";

// Chooses the ScalarQuery a policy's guardrails are evaluated with
// (ControllerOptions::sloQueries).
class SloQuerySelector {
 public:
  virtual ~SloQuerySelector() = default;
  // The query source of `policy` (as stored), valid until the next call; an error when none can
  // be built (e.g. its bearer token Secret cannot be read): its guardrails then fail open and the
  // error is reported.
  virtual Result<metrics::ScalarQuery*> queryFor(const api::AttunePolicy& policy) = 0;
};

// The same query source for every policy (e.g. a simulation's own history, sim::SimScalarQuery,
// in `attune backtest`). `query` must outlive it.
class SharedSloQuery final : public SloQuerySelector {
 public:
  explicit SharedSloQuery(metrics::ScalarQuery& query) : query_(query) {}
  Result<metrics::ScalarQuery*> queryFor(const api::AttunePolicy&) override { return &query_; }

 private:
  metrics::ScalarQuery& query_;
};

// One PrometheusScalarQuery per distinct endpoint (built with the pool's options for it, so a
// policy's headers, query parameters, token and TLS settings apply), and `fallback` for policies
// without spec.metricsSource.prometheus. Every reference must outlive this object. Not
// thread-safe.
class PolicySloQueries final : public SloQuerySelector {
 public:
  PolicySloQueries(PolicyMetricsSources& sources, const metrics::PrometheusPool& pool,
                   metrics::ScalarQuery& fallback, Clock& clock);

  Result<metrics::ScalarQuery*> queryFor(const api::AttunePolicy& policy) override;

 private:
  PolicyMetricsSources& sources_;
  const metrics::PrometheusPool& pool_;
  metrics::ScalarQuery& fallback_;
  Clock& clock_;
  std::map<metrics::PrometheusEndpoint, std::unique_ptr<metrics::ScalarQuery>> queries_;
};

}  // namespace attune::controller
