// The simulated disruption controller (kube-controller-manager's pkg/controller/disruption):
// keeps every PodDisruptionBudget's status, which the eviction subresource
// (sim/cluster/pod_eviction.h) checks and decrements.
#pragma once

#include <cstdint>
#include <functional>

#include "api/k8s/pdb.h"
#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// How long an entry of status.disruptedPods keeps its pod out of currentHealthy while the pod
// is not yet gone (upstream's DeletionTimeout).
inline constexpr Duration kDisruptionDeletionTimeout = std::chrono::minutes(2);

// expectedPods and desiredHealthy of a budget.
struct HealthTarget {
  std::int32_t expectedPods = 0;
  std::int32_t desiredHealthy = 0;

  bool operator==(const HealthTarget&) const = default;
};

// getExpectedPodCount. `matchingPods` is the number of pods the budget selects;
// `controllersScale` the sum of the scales of their controllers, asked only when needed:
// - maxUnavailable (int or percent): expected = scale, desired = max(0, expected −
//   maxUnavailable scaled on expected, percent rounded up);
// - minAvailable as an integer: expected = matchingPods, desired = minAvailable;
// - minAvailable as a percent: expected = scale, desired = the percent of it, rounded up;
// - neither: both 0.
// Errors (a bad percent, a pod whose controller has no scale) are returned. Pure.
Result<HealthTarget> healthTarget(const api::PdbSpec& spec, std::int32_t matchingPods,
                                  const std::function<Result<std::int32_t>()>& controllersScale);

// max(0, currentHealthy − desiredHealthy), and 0 while expectedPods <= 0. Pure.
std::int32_t disruptionsAllowed(std::int32_t currentHealthy, const HealthTarget& target);

// Per budget, in (namespace, name) order: the pods it selects (none without a selector, every
// pod of the namespace with an empty one); the sum of the scales of their controllers, each
// counted once (a Deployment's spec.replicas for the pods of its ReplicaSets, a ReplicaSet's or
// StatefulSet's own; pods without a controller are left out; a pod whose controller has no
// scale — a DaemonSet's, a Job's — is an error); status.disruptedPods without the pods that
// are gone, deleting, or were disrupted kDisruptionDeletionTimeout ago or more; currentHealthy
// = the Ready pods that are not deleting nor in disruptedPods; disruptionsAllowed; the
// DisruptionAllowed condition (True SufficientPods when disruptions are allowed, else False
// InsufficientPods); observedGeneration = metadata.generation. A budget whose computation
// fails gets disruptionsAllowed 0 and DisruptionAllowed False SyncFailed with the error, its
// observedGeneration unchanged. Status is written only when it changes. Stateless.
class DisruptionController {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
