// The simulated kube-scheduler: binds pending pods to nodes once per tick.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Binds every pending pod (no spec.nodeName, not terminal or deleting, schedulerName empty or
// "default-scheduler"), in (namespace, name) order, to the node that fits it (see unfitReasons:
// schedulable, Ready, nodeSelector, NoSchedule/NoExecute taints tolerated, requests within
// allocatable minus the requests of non-terminal pods already bound there, including pods bound
// earlier in the same tick) and is least allocated afterwards (mean free fraction of cpu and
// memory), ties broken by node name. Binding sets spec.nodeName and PodScheduled=True as the
// binding subresource does: it bypasses the pod update strategy, so metadata.generation does
// not advance (Change::kMetadata). A pod that fits nowhere gets PodScheduled=False, reason
// Unschedulable, message "0/N nodes are available: <count> <reason>, ...." (reasons sorted as
// kube-scheduler sorts them); an unchanged condition is not rewritten. Stateless.
class Scheduler {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
