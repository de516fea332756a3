#include "controller/operator_metrics.h"

#include <set>
#include <vector>

namespace attune::controller {
namespace {

// A pass waits on the API server and the metrics backend: client_golang's default buckets end
// at 10 s, where a histogram_quantile() saturates, so the AttuneReconcileSlow alert (p99 above
// 30 s) could never fire with them.
std::vector<double> reconcileBuckets() {
  std::vector<double> buckets = metrics::defaultDurationBuckets();
  buckets.insert(buckets.end(), {30, 60, 120, 300});
  return buckets;
}

}  // namespace

OperatorMetrics::OperatorMetrics(metrics::Registry& registry)
    : resizes(registry.counter("attune_resize_total",
                               "In-place resizes by result (success, failed, reverted).",
                               {"namespace", "workload", "resource", "result"})),
      resizeSkips(registry.counter(
          "attune_resize_skipped_total",
          "Resizes a pre-check or the cooldown skipped, by reason (Cooldown, NodeCapacity, ...).",
          {"namespace", "workload", "reason"})),
      reverts(registry.counter("attune_reverts_total",
                               "Resizes reverted by the safety monitor, by violation.",
                               {"namespace", "workload", "reason"})),
      reconcileDuration(registry.histogram(
          "attune_reconcile_duration_seconds", "Duration of one policy reconcile.",
          {"controller", "namespace", "policy"}, reconcileBuckets())),
      recommendationCpu(registry.gauge("attune_recommendation_cpu_cores",
                                       "Recommended CPU request per container, in cores.",
                                       {"namespace", "workload", "container"})),
      recommendationMemory(registry.gauge("attune_recommendation_memory_bytes",
                                          "Recommended memory request per container, in bytes.",
                                          {"namespace", "workload", "container"})),
      confidence(registry.gauge("attune_confidence",
                                "Confidence (0-1) of each container's recommendation.",
                                {"namespace", "workload", "container"})),
      savingsCpu(registry.gauge(
          "attune_savings_cpu_cores_total",
          "CPU requests the recommendations would free per namespace (all replicas), in cores.",
          {"namespace"})),
      savingsMemory(registry.gauge(
          "attune_savings_memory_bytes_total",
          "Memory requests the recommendations would free per namespace (all replicas), in bytes.",
          {"namespace"})),
      reclaimedCpu(registry.gauge("attune_reclaimed_request_cpu_cores",
                                  "CPU requests a policy's recommended decreases would free "
                                  "(status.savings.cpuRequestReduction), in cores.",
                                  {"namespace", "policy"})),
      reclaimedMemory(registry.gauge("attune_reclaimed_request_memory_bytes",
                                     "Memory requests a policy's recommended decreases would free "
                                     "(status.savings.memoryRequestReduction), in bytes.",
                                     {"namespace", "policy"})),
      hpaRetunes(registry.counter(
          "attune_hpa_retunes_total",
          "HPA utilization targets written to follow the pods' requests (retuned), put back "
          "to their originals (restored), or failed writes.",
          {"namespace", "hpa", "result"})),
      evictions(registry.counter(
          "attune_eviction_total",
          "Pods evicted through the Eviction API for recreation, by result (success; denied by a "
          "PodDisruptionBudget; failed) and cause (e.g. OOMKilled).",
          {"namespace", "workload", "result", "cause"})),
      admissionBypasses(registry.counter(
          "attune_admission_webhook_bypassed_pods_total",
          "Pods of workloads with admission sizing that were created without the pod admission "
          "webhook (not called or failed; admitted by failurePolicy Ignore).",
          {"namespace", "workload"})),
      startupBoosts(registry.counter(
          "attune_startup_boost_total",
          "Startup boosts applied, expired (CPU returned to the steady recommendation) or failed.",
          {"namespace", "workload", "action"})),
      heartbeatWrites(registry.counter(
          "attune_status_heartbeat_writes_total",
          "Status writes held by passes (heartbeats; new recommendations, savings or skips) and "
          "written between passes (ControllerOptions::heartbeatsPerCall), by result: written, or "
          "dropped (refused as overtaken, or failed; the next pass decides again).",
          {"result"})),
      heartbeatsHeld(registry.gauge(
          "attune_status_heartbeats_held",
          "Status writes held by passes (heartbeats; new recommendations, savings or skips) "
          "and not yet written.",
          {})),
      heldEventWrites(registry.counter(
          "attune_held_event_writes_total",
          "Kubernetes Events written between passes (ControllerOptions::eventsPerCall), by "
          "result: written, or failed (not retried).",
          {"result"})),
      eventsHeld(registry.gauge("attune_events_held",
                                "Kubernetes Events recorded by passes and not yet written.", {})),
      resizesDeferred(registry.counter(
          "attune_resizes_deferred_total",
          "Resizes decided by a pass and left to the policy's next run because the pass or "
          "work-queue run had carried out its limit of resizes (--max-resizes-per-pass).",
          {})) {}

void OperatorMetrics::setWorkloadSavings(const std::string& ns, const std::string& workload,
                                         double cpuCores, double memoryBytes) {
  recordWorkloadSavings(ns, workload, cpuCores, memoryBytes);
  publishSavings(ns);
}

void OperatorMetrics::recordWorkloadSavings(const std::string& ns, const std::string& workload,
                                            double cpuCores, double memoryBytes) {
  auto [it, added] = workloadSavings_.try_emplace({ns, workload}, cpuCores, memoryBytes);
  if (!added && it->second == std::pair{cpuCores, memoryBytes}) return;
  it->second = {cpuCores, memoryBytes};
  changedSavings_.insert(ns);
}

void OperatorMetrics::published(const std::string& policy, Published now) {
  static const Published kNothing;
  auto it = published_.find(policy);
  const Published& before = it == published_.end() ? kNothing : it->second;
  if (before == now) return;
  const std::set<std::pair<std::string, std::string>> workloads(now.workloads.begin(),
                                                                now.workloads.end());
  const std::set<std::array<std::string, 3>> containers(now.containers.begin(),
                                                        now.containers.end());
  const auto publishedBy = [&](const std::string& ns, const std::string& workload) {
    auto owner = publisher_.find({ns, workload});
    return owner != publisher_.end() && owner->second == policy;
  };
  for (const auto& [ns, workload, container] : before.containers) {
    if (containers.contains({ns, workload, container}) || !publishedBy(ns, workload)) continue;
    const std::vector<std::string> labels{ns, workload, container};
    recommendationCpu.remove(labels);
    recommendationMemory.remove(labels);
    confidence.remove(labels);
  }
  std::set<std::string> summed;  // namespaces whose sums lost a workload
  for (const auto& w : before.workloads) {
    if (workloads.contains(w) || !publishedBy(w.first, w.second)) continue;
    if (workloadSavings_.erase(w) > 0) {
      changedSavings_.insert(w.first);
      summed.insert(w.first);
    }
    publisher_.erase(w);
  }
  for (const auto& w : now.workloads) publisher_[w] = policy;
  for (const std::string& ns : summed) publishSavings(ns);
  if (now == kNothing) {
    if (it != published_.end()) published_.erase(it);
  } else if (it == published_.end()) {
    published_.emplace(policy, std::move(now));
  } else {
    it->second = std::move(now);
  }
}

void OperatorMetrics::forgetPolicy(const std::string& ns, const std::string& name) {
  published(ns + "/" + name, {});
  reclaimedCpu.remove({ns, name});
  reclaimedMemory.remove({ns, name});
}

bool OperatorMetrics::firstResizeSeries(const std::string& ns, const std::string& workload) {
  return resizeSeries_.emplace(ns, workload).second;
}

void OperatorMetrics::publishSavings(const std::string& ns) {
  // Unchanged since the namespace's last sums were published: the gauges hold them already.
  if (changedSavings_.erase(ns) == 0) return;
  double cpu = 0;
  double memory = 0;
  for (auto it = workloadSavings_.lower_bound({ns, std::string()});
       it != workloadSavings_.end() && it->first.first == ns; ++it) {
    cpu += it->second.first;
    memory += it->second.second;
  }
  savingsCpu.set({ns}, cpu);
  savingsMemory.set({ns}, memory);
}

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
