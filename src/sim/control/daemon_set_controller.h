// The simulated DaemonSet controller: one pod per eligible node.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Per DaemonSet, in (namespace, name) order. A node is eligible when it matches the template's
// nodeSelector and the template's spec.tolerations tolerate its NoSchedule
// and NoExecute taints; readiness and spec.unschedulable do not matter (the real controller
// adds tolerations for them). Deletes active controlled pods on ineligible or vanished nodes
// and duplicates on a node, and creates a pod (generateName "<ds>-") bound directly through
// spec.nodeName, as the controller did before it used the default scheduler, on each eligible
// node without one. Unless the strategy is OnDelete, a tick that starts with a pod on every
// eligible node first replaces the first (by node name) pod of an older
// controller-revision-hash (deleted and recreated in the same tick): one pod per tick. Status:
// desiredNumberScheduled, currentNumberScheduled, updatedNumberScheduled, numberReady,
// numberAvailable (= ready), observedGeneration. Stateless.
class DaemonSetController {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
