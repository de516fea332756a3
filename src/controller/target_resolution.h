// Target resolution: which workloads and pods a policy sizes, spec.targetRef resolved against a
// snapshot. (The resources each pod's containers should get are rollout/pod_targets.h.)
#pragma once

#include <optional>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/cluster_snapshot.h"
#include "metrics/metrics_source.h"

namespace attune::controller {

// One workload a policy targets, viewed through a snapshot (pointers into it).
struct TargetWorkload {
  api::WorkloadRef ref;  // its kind is always one Attune patches (a TargetKind)
  const api::ObjectMeta* metadata = nullptr;
  // The selector of its pods (the workload's spec.selector); nullptr for a CronJob, whose pods
  // belong to Jobs made later.
  const api::LabelSelector* podSelector = nullptr;
  // Desired and updated replicas; a workload with fewer updated replicas than desired is in the
  // middle of a rollout. Jobs and CronJobs never roll out (both 0).
  std::int32_t replicas = 0;
  std::int32_t updatedReplicas = 0;
  // Its pods that are bound to a node and running (phase Running), in name order.
  std::vector<const api::Pod*> pods;

  bool rollingOut() const { return updatedReplicas < replicas; }
  api::WorkloadKind kind() const {
    return ref.workloadKind().value_or(api::WorkloadKind::kDeployment);
  }
};

// Whether `ref` selects the workload with metadata `meta` (its name when set, its selector when
// set); the kind and namespace are the caller's to compare.
bool targetRefSelects(const api::TargetRef& ref, const api::ObjectMeta& meta);

// The workloads in the policy's namespace that spec.targetRef selects: of its kind (required),
// with its name when set and matching its selector when set, in name order. A policy whose
// targetRef has no kind targets nothing.
std::vector<TargetWorkload> resolveTargets(const ClusterSnapshot& snapshot,
                                           const api::AttunePolicy& policy);

}  // namespace attune::controller
