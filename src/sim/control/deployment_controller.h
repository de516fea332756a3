// The simulated Deployment controller: one ReplicaSet per pod-template hash, rolled one pod
// per tick.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Per Deployment, in (namespace, name) order, with desired = spec.replicas (default 1):
//  - scale(): makes sure the ReplicaSet "<deployment>-<templateHash>" exists (owned by the
//    Deployment with controller: true; template and selector carry pod-template-hash). With no
//    pods left in older ReplicaSets, or with strategy Recreate, the new ReplicaSet gets
//    `desired` and older ones 0. Otherwise a RollingUpdate moves one replica per tick: the new
//    ReplicaSet grows by one (up to desired) and older ones, first by name, shrink so that the
//    total stays at most desired — maxSurge 0, maxUnavailable 1, readiness not awaited.
//    spec.paused freezes scaling.
//  - updateStatus(): replicas (active pods of every owned ReplicaSet), updatedReplicas (those of
//    the current template), readyReplicas, availableReplicas (= ready) and observedGeneration.
// Run scale(), then the ReplicaSetController, then updateStatus() in one tick (see
// WorkloadControllers). Stateless.
class DeploymentController {
 public:
  void scale(ClusterState& state, Time now) const;
  void updateStatus(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
