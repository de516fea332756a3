// The status step of a pass: what a policy's `.status` says after it (recommendations, the
// Ready, Degraded and ResizeBlocked conditions, the consecutive-revert count) and its write.
// The history entries are the recorder's (action_recorder.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/operator_metrics.h"
#include "controller/workload_recommendations.h"
#include "core/time.h"

namespace attune::controller {

// status.recommendations and status.savings from `recommended` (neither under Observe), and the
// recommendation and savings gauges. `replicas` gives the running pods of each advised workload.
void publishRecommendations(const std::vector<RecommendedWorkload>& recommended,
                            const std::map<api::WorkloadRef, std::size_t>& replicas,
                            const api::AttunePolicy& policy, Time now, OperatorMetrics& metrics,
                            api::AttunePolicyStatus& status);

// status.savings: the request totals of `recommended` over its running pods (`replicas`), and
// how much the recommendations would take off or add.
api::SavingsStatus summarizeSavings(const std::vector<RecommendedWorkload>& recommended,
                                    const std::map<api::WorkloadRef, std::size_t>& replicas);

// status.workloads: `targets` discovered; those with a recommendation (none under Observe); of
// these, resized (the latest resize of the workload in the history applied) or pending; the
// most data points of any container and the minimum required.
api::PolicyWorkloadCounts summarizeWorkloads(const api::AttunePolicyStatus& status,
                                             const api::AttunePolicy& policy,
                                             const std::vector<RecommendedWorkload>& recommended,
                                             std::size_t targets);

struct PassOutcome {
  std::optional<std::string> metricsError;      // the usage read failed
  std::size_t targets = 0;                      // workloads the policy resolved to
  std::optional<api::Condition> resizeBlocked;  // nullopt: the condition is removed
};

// The conditions and counters a pass leaves: Ready (MetricsUnavailable, NoTargets,
// CollectingData or Reconciled), Degraded, ResizeBlocked, observedGeneration, workloads,
// lastReconcileTime and consecutiveReverts.
void settleStatus(api::AttunePolicyStatus& status, const api::AttunePolicy& stored,
                  const api::AttunePolicy& policy,
                  const std::vector<RecommendedWorkload>& recommended, const PassOutcome& outcome,
                  Time now);

// Writes `status` when it differs from the stored one; on a conflict, over the latest version
// (the status is the controller's alone).
void writeStatus(api::ClusterApi& api, const api::AttunePolicy& stored,
                 const api::AttunePolicyStatus& status);

}  // namespace attune::controller
