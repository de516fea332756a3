// The operator's own metrics (issue-facing names are part of the public interface):
//   attune_resize_total{namespace,workload,resource,result}
//   attune_reverts_total{reason}
//   attune_reconcile_duration_seconds (histogram)
//   attune_recommendation_cpu_cores{namespace,workload,container}
//   attune_recommendation_memory_bytes{namespace,workload,container}
//   attune_savings_cpu_cores{namespace,workload}
//   attune_savings_memory_bytes{namespace,workload}
//   attune_hpa_retunes_total{namespace,hpa,result}
//   attune_evictions_total{namespace,workload,cause,result}
//   attune_admission_webhook_bypassed_pods_total{namespace,workload}
// and the HPA guard's:
//   attune_hpa_guard_min_replicas{namespace,hpa}
//   attune_hpa_guard_changes_total{namespace,hpa}
//   attune_hpa_guard_query_failures_total{namespace,hpa}
#pragma once

#include "metrics/exposition/registry.h"

namespace attune::controller {

struct OperatorMetrics {
  explicit OperatorMetrics(metrics::Registry& registry);

  metrics::MetricFamily& resizes;
  metrics::MetricFamily& reverts;
  metrics::MetricFamily& reconcileDuration;
  metrics::MetricFamily& recommendationCpu;
  metrics::MetricFamily& recommendationMemory;
  metrics::MetricFamily& savingsCpu;
  metrics::MetricFamily& savingsMemory;
  metrics::MetricFamily& hpaRetunes;
  metrics::MetricFamily& evictions;
  metrics::MetricFamily& admissionBypasses;
};

struct HpaGuardMetrics {
  explicit HpaGuardMetrics(metrics::Registry& registry);

  metrics::MetricFamily& minReplicas;
  metrics::MetricFamily& changes;
  metrics::MetricFamily& queryFailures;
};

}  // namespace attune::controller
