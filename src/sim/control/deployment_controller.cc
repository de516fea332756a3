#include "sim/control/deployment_controller.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

std::vector<api::ReplicaSet> ownedReplicaSets(const ClusterState& state, const api::Deployment& d) {
  api::ListOptions options;
  options.namespace_ = d.metadata.namespace_;
  std::vector<api::ReplicaSet> out = state.replicaSets.list(options);
  std::erase_if(out, [&](const api::ReplicaSet& rs) {
    const api::OwnerReference* ref = rs.metadata.controllerRef();
    return ref == nullptr || ref->uid != d.metadata.uid;
  });
  return out;
}

std::string replicaSetName(const api::Deployment& d) {
  return d.metadata.name + "-" + templateHash(d.spec.template_);
}

api::ReplicaSet newReplicaSet(const api::Deployment& d, std::int32_t replicas) {
  const std::string hash = templateHash(d.spec.template_);
  api::ReplicaSet rs;
  rs.metadata.namespace_ = d.metadata.namespace_;
  rs.metadata.name = replicaSetName(d);
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

void setReplicas(ClusterState& state, const api::ReplicaSet& rs, std::int32_t replicas) {
  (void)state.replicaSets.modify(rs.metadata.namespace_, rs.metadata.name, "",
                                 [&](api::ReplicaSet& r) {
                                   if (r.spec.replicas == replicas) return Change::kNone;
                                   r.spec.replicas = replicas;
                                   return Change::kSpec;
                                 });
}

void scaleOne(ClusterState& state, const api::Deployment& d) {
  if (d.spec.paused) return;
  const std::int32_t desired = std::max(0, d.spec.replicas.value_or(1));
  std::vector<api::ReplicaSet> sets = ownedReplicaSets(state, d);
  const std::string current = replicaSetName(d);
  auto it = std::find_if(sets.begin(), sets.end(),
                         [&](const auto& rs) { return rs.metadata.name == current; });
  std::int32_t oldTotal = 0;
  for (const auto& rs : sets) {
    if (rs.metadata.name != current) oldTotal += rs.spec.replicas.value_or(1);
  }
  const bool rollOneStep = oldTotal > 0 && d.spec.strategyType != "Recreate";
  const std::int32_t had = it == sets.end() ? 0 : it->spec.replicas.value_or(1);
  const std::int32_t target = rollOneStep ? std::min(desired, had + 1) : desired;
  if (it == sets.end()) {
    (void)state.replicaSets.create(newReplicaSet(d, target));
  } else {
    setReplicas(state, *it, target);
  }
  std::int32_t oldBudget = rollOneStep ? desired - target : 0;
  for (const auto& rs : sets) {
    if (rs.metadata.name == current) continue;
    const std::int32_t keep = std::min(rs.spec.replicas.value_or(1), oldBudget);
    oldBudget -= keep;
    setReplicas(state, rs, keep);
  }
}

void updateStatusOne(ClusterState& state, const api::Deployment& d) {
  api::WorkloadStatus status = d.status;
  status.observedGeneration = d.metadata.generation;
  status.replicas = status.updatedReplicas = status.readyReplicas = 0;
  const std::string current = replicaSetName(d);
  for (const auto& rs : ownedReplicaSets(state, d)) {
    for (const auto& pod : controlledPods(state, rs.metadata.namespace_, rs.metadata.uid)) {
      if (!isPodActive(pod)) continue;
      ++status.replicas;
      if (rs.metadata.name == current) ++status.updatedReplicas;
      if (isPodReady(pod)) ++status.readyReplicas;
    }
  }
  status.availableReplicas = status.readyReplicas;
  writeStatus(state.deployments, d, status);
}

}  // namespace

void DeploymentController::scale(ClusterState& state, Time /*now*/) const {
  for (const auto& d : state.deployments.list({})) scaleOne(state, d);
}

void DeploymentController::updateStatus(ClusterState& state, Time /*now*/) const {
  for (const auto& d : state.deployments.list({})) updateStatusOne(state, d);
}

}  // namespace attune::sim
