#include "sim/control/deployment_controller.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

using OwnedSet = DeploymentController::OwnedSet;
using SetsByOwner = DeploymentController::SetsByOwner;

// One pass over the store instead of one per Deployment.
SetsByOwner indexReplicaSets(const ClusterState& state) {
  SetsByOwner out;
  state.replicaSets.forEach([&](const api::ReplicaSet& rs) {
    const api::OwnerReference* ref = rs.metadata.controllerRef();
    if (ref != nullptr) {
      out[ref->uid].push_back({rs.metadata.name, rs.metadata.uid, rs.spec.replicas.value_or(1)});
    }
  });
  return out;
}

const std::vector<OwnedSet>& ownedReplicaSets(const SetsByOwner& sets, const api::Deployment& d) {
  static const std::vector<OwnedSet> kNone;
  auto it = sets.find(d.metadata.uid);
  return it == sets.end() ? kNone : it->second;
}

api::ReplicaSet newReplicaSet(const api::Deployment& d, const std::string& name,
                              std::int32_t replicas) {
  const std::string hash = templateHash(d.spec.template_);
  api::ReplicaSet rs;
  rs.metadata.namespace_ = d.metadata.namespace_;
  rs.metadata.name = name;
  rs.metadata.labels = d.spec.template_.metadata.labels;
  rs.metadata.labels[std::string(kPodTemplateHashLabel)] = hash;
  rs.metadata.ownerReferences.push_back(
      api::OwnerReference{"apps/v1", "Deployment", d.metadata.name, d.metadata.uid, true});
  rs.spec.replicas = replicas;
  rs.spec.selector = d.spec.selector;
  rs.spec.selector.matchLabels[std::string(kPodTemplateHashLabel)] = hash;
  rs.spec.template_ = d.spec.template_;
  rs.spec.template_.metadata.labels[std::string(kPodTemplateHashLabel)] = hash;
  return rs;
}

void setReplicas(ClusterState& state, std::string_view ns, const OwnedSet& rs,
                 std::int32_t replicas) {
  if (rs.replicas == replicas) return;  // nothing to write: no copy of the ReplicaSet either
  (void)state.replicaSets.modify(ns, rs.name, "", [&](api::ReplicaSet& r) {
    if (r.spec.replicas == replicas) return Change::kNone;
    r.spec.replicas = replicas;
    return Change::kSpec;
  });
}

// `owned`: the ReplicaSets `d` controls (scaling one Deployment writes only its own);
// `current`: the name of the ReplicaSet of its template.
void scaleOne(ClusterState& state, const api::Deployment& d, const std::vector<OwnedSet>& owned,
              const std::string& current) {
  if (d.spec.paused) return;
  const std::int32_t desired = std::max(0, d.spec.replicas.value_or(1));
  const std::vector<OwnedSet>& sets = owned;
  auto it =
      std::find_if(sets.begin(), sets.end(), [&](const auto& rs) { return rs.name == current; });
  std::int32_t oldTotal = 0;
  for (const auto& rs : sets) {
    if (rs.name != current) oldTotal += rs.replicas;
  }
  const bool rollOneStep = oldTotal > 0 && d.spec.strategyType != "Recreate";
  const std::int32_t had = it == sets.end() ? 0 : it->replicas;
  const std::int32_t target = rollOneStep ? std::min(desired, had + 1) : desired;
  if (it == sets.end()) {
    (void)state.replicaSets.create(newReplicaSet(d, current, target));
  } else {
    setReplicas(state, d.metadata.namespace_, *it, target);
  }
  std::int32_t oldBudget = rollOneStep ? desired - target : 0;
  for (const auto& rs : sets) {
    if (rs.name == current) continue;
    const std::int32_t keep = std::min(rs.replicas, oldBudget);
    oldBudget -= keep;
    setReplicas(state, d.metadata.namespace_, rs, keep);
  }
}

api::WorkloadStatus statusOf(const SetsByOwner& sets, const PodsByController& pods,
                             const api::Deployment& d, const std::string& current) {
  api::WorkloadStatus status = d.status;
  status.observedGeneration = d.metadata.generation;
  status.replicas = status.updatedReplicas = status.readyReplicas = 0;
  for (const auto& rs : ownedReplicaSets(sets, d)) {
    auto owned = pods.find(rs.uid);
    if (owned == pods.end()) continue;
    for (const api::Pod* pod : owned->second) {
      if (!isPodActive(*pod)) continue;
      ++status.replicas;
      if (rs.name == current) ++status.updatedReplicas;
      if (isPodReady(*pod)) ++status.readyReplicas;
    }
  }
  status.availableReplicas = status.readyReplicas;
  return status;
}

}  // namespace

const std::string& DeploymentController::replicaSetName(const api::Deployment& d) const {
  NamedTemplate& named = names_[d.metadata.uid];
  if (named.replicaSetName.empty() || named.resourceVersion != d.metadata.resourceVersion) {
    named.resourceVersion = d.metadata.resourceVersion;
    named.replicaSetName = d.metadata.name + "-" + templateHash(d.spec.template_);
  }
  return named.replicaSetName;
}

const SetsByOwner& DeploymentController::replicaSetsByOwner(const ClusterState& state) const {
  if (sets_.state != &state || sets_.writes != state.replicaSets.writes()) {
    sets_ = {&state, state.replicaSets.writes(), indexReplicaSets(state)};
  }
  return sets_.sets;
}

void DeploymentController::scale(ClusterState& state, Time /*now*/) const {
  // Scaling writes ReplicaSets only, so the Deployments are read in place; each writes only its
  // own ReplicaSets, so they are indexed once.
  const SetsByOwner& sets = replicaSetsByOwner(state);
  state.deployments.forEach([&](const api::Deployment& d) {
    scaleOne(state, d, ownedReplicaSets(sets, d), replicaSetName(d));
  });
}

void DeploymentController::updateStatus(ClusterState& state, Time /*now*/) const {
  // Statuses are computed in place, then the changed ones written.
  std::vector<std::tuple<std::string, std::string, api::WorkloadStatus>> changed;
  const SetsByOwner& sets = replicaSetsByOwner(state);
  const PodsByController pods = podsByController(state);
  state.deployments.forEach([&](const api::Deployment& d) {
    api::WorkloadStatus status = statusOf(sets, pods, d, replicaSetName(d));
    if (!(status == d.status)) {
      changed.emplace_back(d.metadata.namespace_, d.metadata.name, std::move(status));
    }
  });
  for (auto& [ns, name, status] : changed) {
    (void)state.deployments.modify(ns, name, "", [&](api::Deployment& d) {
      d.status = std::move(status);
      return Change::kMetadata;
    });
  }
}

}  // namespace attune::sim
