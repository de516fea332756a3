// The operator's own metrics. Names and labels follow the public operator's metrics reference
// where it has the metric (docs/parity.md lists each one):
//   attune_resize_total{namespace,workload,resource,result}   result: success, failed, reverted
//   attune_reverts_total{namespace,workload,reason}           reason: oomkill, restart, throttle,
//                                                              notready
//   attune_reconcile_duration_seconds{controller,namespace,policy} (histogram)
//   attune_recommendation_cpu_cores{namespace,workload,container}
//   attune_recommendation_memory_bytes{namespace,workload,container}
//   attune_confidence{namespace,workload,container}
//   attune_savings_cpu_cores_total{namespace}       (gauge: requests the recommendations free)
//   attune_savings_memory_bytes_total{namespace}    (gauge)
//   attune_reclaimed_request_cpu_cores{namespace,policy}
//   attune_reclaimed_request_memory_bytes{namespace,policy}
//   attune_eviction_total{namespace,workload,result,cause}  result: success, denied, failed;
//                                                            cause is ours
// and ours, without a public counterpart:
//   attune_resize_skipped_total{namespace,workload,reason}
//   attune_hpa_retunes_total{namespace,hpa,result}
//   attune_admission_webhook_bypassed_pods_total{namespace,workload}
//   attune_status_heartbeat_writes_total{result}   result: written, dropped
//   attune_status_heartbeats_held
// and the HPA guard's:
//   attune_hpa_guard_min_replicas{namespace,hpa}
//   attune_hpa_guard_changes_total{namespace,hpa}
//   attune_hpa_guard_query_failures_total{namespace,hpa}
#pragma once

#include <array>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "metrics/exposition/registry.h"

namespace attune::controller {

// The `controller` label of attune_reconcile_duration_seconds.
inline constexpr std::string_view kPolicyControllerName = "attunepolicy";

struct OperatorMetrics {
  explicit OperatorMetrics(metrics::Registry& registry);

  // attune_savings_{cpu_cores,memory_bytes}_total of the workload's namespace, summed over its
  // workloads: `cpuCores` and `memoryBytes` are what the recommendations would free for the
  // workload (all replicas). Not thread-safe: called from the controller's passes only.
  void setWorkloadSavings(const std::string& ns, const std::string& workload, double cpuCores,
                          double memoryBytes);
  // The same in two steps, for a pass over many workloads: record each workload's savings, then
  // publish the sums of each namespace recorded in once. The gauges end as they would after one
  // setWorkloadSavings per workload. A namespace whose workloads' savings are unchanged since its
  // sums were last published is not summed again.
  void recordWorkloadSavings(const std::string& ns, const std::string& workload, double cpuCores,
                             double memoryBytes);
  void publishSavings(const std::string& ns);
  // What one policy's pass published: the workloads whose savings it recorded, and the
  // (namespace, workload, container) whose recommendation gauges it set.
  struct Published {
    std::vector<std::pair<std::string, std::string>> workloads;
    std::vector<std::array<std::string, 3>> containers;
    bool operator==(const Published&) const = default;
  };
  // Ends a policy's pass (`policy`: "namespace/name"): what it published in its previous pass and
  // not in this one (a workload deleted or no longer targeted, a container gone) is withdrawn,
  // the gauges removed and the workload's savings taken out of its namespace's sums; not what
  // another policy published since (a workload that moved to it).
  void published(const std::string& policy, Published now);
  // Withdraws everything the policy published, and its reclaimed-request gauges (a policy
  // deleted, one that recommends nothing now, or one whose configuration is invalid).
  void forgetPolicy(const std::string& ns, const std::string& name);
  // True the first time it is asked about the workload: its attune_resize_total series are then
  // to be created at 0. Counter series are never removed, so later passes need not again.
  bool firstResizeSeries(const std::string& ns, const std::string& workload);

  metrics::MetricFamily& resizes;
  metrics::MetricFamily& resizeSkips;
  metrics::MetricFamily& reverts;
  metrics::MetricFamily& reconcileDuration;
  metrics::MetricFamily& recommendationCpu;
  metrics::MetricFamily& recommendationMemory;
  metrics::MetricFamily& confidence;
  metrics::MetricFamily& savingsCpu;
  metrics::MetricFamily& savingsMemory;
  metrics::MetricFamily& reclaimedCpu;
  metrics::MetricFamily& reclaimedMemory;
  metrics::MetricFamily& hpaRetunes;
  metrics::MetricFamily& evictions;
  metrics::MetricFamily& admissionBypasses;
  // attune_startup_boost_total{namespace,workload,action}: applied, expired, failed.
  metrics::MetricFamily& startupBoosts;
  // Status heartbeats written between passes (written, dropped), and those held meanwhile.
  metrics::MetricFamily& heartbeatWrites;
  metrics::MetricFamily& heartbeatsHeld;
  // Events written between passes (written, failed), and those held meanwhile.
  metrics::MetricFamily& heldEventWrites;
  metrics::MetricFamily& eventsHeld;
  // Resizes deferred to a later call by ControllerOptions::resizesPerCall.
  metrics::MetricFamily& resizesDeferred;

 private:
  // (namespace, workload) -> (cores, bytes) behind the namespace sums.
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> workloadSavings_;
  // Namespaces with a workload's savings recorded or changed since their sums were last
  // published: publishSavings sums only these (every policy of a namespace publishes it).
  std::set<std::string, std::less<>> changedSavings_;
  // By policy key: what its last pass published (published()).
  std::map<std::string, Published, std::less<>> published_;
  // (namespace, workload) -> the policy that last began publishing it: only that policy's
  // withdrawal removes the workload's series.
  std::map<std::pair<std::string, std::string>, std::string> publisher_;
  // (namespace, workload) whose attune_resize_total series exist.
  std::set<std::pair<std::string, std::string>, std::less<>> resizeSeries_;
};

struct HpaGuardMetrics {
  explicit HpaGuardMetrics(metrics::Registry& registry);

  metrics::MetricFamily& minReplicas;
  metrics::MetricFamily& changes;
  metrics::MetricFamily& queryFailures;
};

}  // namespace attune::controller
