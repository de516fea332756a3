// The eviction subresource of the simulated API server: ClusterApi::evictPod's contract
// (api/cluster_api.h), PodDisruptionBudgets included, as the API server's eviction REST handler
// applies them (pkg/registry/core/pod/storage/eviction.go).
#pragma once

#include <vector>

#include "api/k8s/eviction.h"
#include "api/k8s/pdb.h"
#include "api/k8s/pod.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// The budgets of `pod`'s namespace whose selector is set, not empty, and matches the pod's
// labels (an empty selector matches nothing here, as in the eviction handler). In name order.
std::vector<const api::PodDisruptionBudget*> budgetsOfEvictedPod(const ClusterState& state,
                                                                 const api::Pod& pod);

// Evicts the pod `eviction` names through the budgets that cover it: on success the budget (if
// any) has one disruption fewer and the pod in status.disruptedPods at clock().now(), and the
// pod is deleted with ClusterState::evictPod. Errors, the pod left in place: kNotFound,
// kConflict (preconditions), kInternal (more than one budget), kDisruptionBudget (refused).
// A dry run changes nothing.
Result<void> evictThroughBudgets(ClusterState& state, const api::Eviction& eviction);

}  // namespace attune::sim
