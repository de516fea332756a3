// The HPA guard (controller/hpa_guard.h) as `attune hpa-guard` and `attune controller
// --hpa-guard` run it: queries through Prometheus, its own Event recorder and metrics, and a
// log line for every pass that changed or failed something.
#pragma once

#include "api/cluster_api.h"
#include "cli/logging.h"
#include "controller/event_recorder.h"
#include "controller/hpa_guard.h"
#include "controller/operator_metrics.h"
#include "metrics/exposition/registry.h"
#include "metrics/prometheus/prometheus_scalar_query.h"
#include "metrics/prometheus/prometheus_source.h"

namespace attune::cli {

class HpaGuardProcess {
 public:
  // Every reference must outlive the object; `api` should not be a cache (writes carry the
  // listed resourceVersion). Not thread-safe.
  HpaGuardProcess(api::ClusterApi& api, const metrics::PrometheusOptions& prometheus, Clock& clock,
                  metrics::Registry& registry, Logger& log, controller::HpaGuardOptions options);

  // A pass now; its summary logged. Fails when listing the HPAs fails.
  Result<controller::HpaGuardSummary> runPass();
  // A pass when the interval has passed since the previous one; failures are logged.
  void runDue();

 private:
  void report(const Result<controller::HpaGuardSummary>& summary);

  metrics::PrometheusScalarQuery query_;
  controller::EventRecorder events_;
  controller::HpaGuardMetrics metrics_;
  controller::HpaGuard guard_;
  Logger& log_;
};

}  // namespace attune::cli
