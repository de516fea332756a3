// The simulated ReplicaSet controller: keeps spec.replicas active pods per ReplicaSet.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Per ReplicaSet, in (namespace, name) order: creates pods from the template (generateName
// "<rs>-", so a replaced pod always has a new name) until spec.replicas (default 1) active
// controlled pods exist, or deletes the surplus, unscheduled then not-ready then last-named
// first. Pods are found by controller reference (no adoption by selector). Then writes status
// replicas, readyReplicas, availableReplicas (= ready; minReadySeconds is not modelled) and
// observedGeneration. Stateless.
class ReplicaSetController {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
