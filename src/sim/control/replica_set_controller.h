// The simulated ReplicaSet controller: keeps spec.replicas active pods per ReplicaSet.
#pragma once

#include <cstdint>

#include "core/time.h"
#include "sim/cluster/cluster_state.h"
#include "sim/control/owned_pods.h"

namespace attune::sim {

// Per ReplicaSet, in (namespace, name) order: creates pods from the template (generateName
// "<rs>-", so a replaced pod always has a new name) until spec.replicas (default 1) active
// controlled pods exist, or deletes the surplus, unscheduled then not-ready then last-named
// first. Pods are found by controller reference (no adoption by selector). Then writes status
// replicas, readyReplicas, availableReplicas (= ready; minReadySeconds is not modelled) and
// observedGeneration. Keeps nothing but a cache: the pods by controller, valid while the pod
// store takes no write.
class ReplicaSetController {
 public:
  void tick(ClusterState& state, Time now) const;

 private:
  // podsByController(state), indexed again only after a write to its pods; valid until the
  // next call.
  const PodsByController& podsByOwner(const ClusterState& state) const;

  struct IndexedPods {
    const ClusterState* state = nullptr;
    std::uint64_t writes = 0;
    PodsByController pods;
  };
  mutable IndexedPods pods_;
};

}  // namespace attune::sim
