// The simulated StatefulSet controller: pods with stable ordinal names.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Per StatefulSet, in (namespace, name) order, with n = spec.replicas (default 1): deletes
// controlled pods that are not "<name>-0".."<name>-(n-1)", and creates every missing ordinal in
// the same tick (podManagementPolicy Parallel; readiness not awaited). Pods carry the label
// controller-revision-hash = "<name>-<templateHash>". Unless the strategy is OnDelete, a tick
// that starts with every ordinal present first replaces the highest-ordinal pod of an older
// revision (deleted and recreated in the same tick): a RollingUpdate of one pod per tick. Status:
// replicas, updatedReplicas (pods of the current revision), currentReplicas (pods of the old
// revision while rolling, all once done), readyReplicas, availableReplicas (= ready),
// observedGeneration. Stateless.
class StatefulSetController {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
