// The simulated Deployment controller: one ReplicaSet per pod-template hash, rolled one pod
// per tick.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

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
// WorkloadControllers). Keeps nothing but caches: each Deployment's template hash (by uid,
// valid while its resourceVersion stays the same: every write advances it) and the ReplicaSets
// by owner (valid while the ReplicaSet store takes no write).
class DeploymentController {
 public:
  // What the Deployment controller needs of one of its ReplicaSets, copied out of the store.
  struct OwnedSet {
    std::string name;
    std::string uid;
    std::int32_t replicas = 1;
  };
  // Every ReplicaSet with a controller, by its controller's uid, in (namespace, name) order.
  using SetsByOwner = std::unordered_map<std::string, std::vector<OwnedSet>>;

  void scale(ClusterState& state, Time now) const;
  void updateStatus(ClusterState& state, Time now) const;

 private:
  // The ReplicaSets of `state` by owner, indexed again only after a write to its ReplicaSets.
  // The reference is valid until the next call.
  const SetsByOwner& replicaSetsByOwner(const ClusterState& state) const;

  struct IndexedSets {
    const ClusterState* state = nullptr;
    std::uint64_t writes = 0;
    SetsByOwner sets;
  };
  mutable IndexedSets sets_;

  // "<name>-<templateHash>" of `d`'s template, computed again only when `d` was written.
  const std::string& replicaSetName(const api::Deployment& d) const;

  struct NamedTemplate {
    std::string resourceVersion;
    std::string replicaSetName;
  };
  mutable std::unordered_map<std::string, NamedTemplate> names_;  // by Deployment uid
};

}  // namespace attune::sim
