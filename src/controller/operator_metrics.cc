#include "controller/operator_metrics.h"

namespace attune::controller {

OperatorMetrics::OperatorMetrics(metrics::Registry& registry)
    : resizes(registry.counter("attune_resize_total",
                               "In-place resizes by outcome (applied, failed, skipped, reverted).",
                               {"namespace", "workload", "resource", "result"})),
      reverts(registry.counter("attune_reverts_total",
                               "Resizes reverted by the safety monitor, by violation.",
                               {"reason"})),
      reconcileDuration(registry.histogram("attune_reconcile_duration_seconds",
                                           "Duration of one policy reconcile.", {},
                                           metrics::defaultDurationBuckets())),
      recommendationCpu(registry.gauge("attune_recommendation_cpu_cores",
                                       "Recommended CPU request per container, in cores.",
                                       {"namespace", "workload", "container"})),
      recommendationMemory(registry.gauge("attune_recommendation_memory_bytes",
                                          "Recommended memory request per container, in bytes.",
                                          {"namespace", "workload", "container"})),
      savingsCpu(registry.gauge(
          "attune_savings_cpu_cores",
          "CPU requests the recommendations would free per workload (all replicas), in cores.",
          {"namespace", "workload"})),
      savingsMemory(registry.gauge(
          "attune_savings_memory_bytes",
          "Memory requests the recommendations would free per workload (all replicas), in bytes.",
          {"namespace", "workload"})),
      hpaRetunes(registry.counter(
          "attune_hpa_retunes_total",
          "HPA utilization targets written to follow the pods' requests (retuned), put back "
          "to their originals (restored), or failed writes.",
          {"namespace", "hpa", "result"})),
      evictions(registry.counter(
          "attune_evictions_total",
          "Pods evicted through the Eviction API for recreation, by cause (e.g. OOMKilled) and "
          "result (evicted; blocked by a PodDisruptionBudget; failed).",
          {"namespace", "workload", "cause", "result"})),
      admissionBypasses(registry.counter(
          "attune_admission_webhook_bypassed_pods_total",
          "Pods of workloads with admission sizing that were created without the pod admission "
          "webhook (not called or failed; admitted by failurePolicy Ignore).",
          {"namespace", "workload"})) {}

HpaGuardMetrics::HpaGuardMetrics(metrics::Registry& registry)
    : minReplicas(registry.gauge("attune_hpa_guard_min_replicas",
                                 "minReplicas of each HPA the guard looks after.",
                                 {"namespace", "hpa"})),
      changes(registry.counter("attune_hpa_guard_changes_total",
                               "minReplicas changes the HPA guard wrote.", {"namespace", "hpa"})),
      queryFailures(registry.counter(
          "attune_hpa_guard_query_failures_total",
          "HPA guard queries that failed or gave no value (minReplicas left unchanged).",
          {"namespace", "hpa"})) {}

}  // namespace attune::controller
