#include "sim/control/replica_set_controller.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

// Deletion preference: unscheduled, then not ready, then later names first.
bool deleteBefore(const api::Pod& a, const api::Pod& b) {
  auto rank = [](const api::Pod& p) { return std::tuple(!p.spec.nodeName.empty(), isPodReady(p)); };
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  return a.metadata.name > b.metadata.name;
}

// Makes or deletes `rs`'s pods and returns its new status; writes pods only. `pods`: the pods
// `rs` controls.
api::WorkloadStatus reconcile(ClusterState& state, const api::ReplicaSet& rs,
                              std::vector<const api::Pod*> pods) {
  // Pods are read in place; names are copied out before any write to the pod store.
  std::erase_if(pods, [](const api::Pod* p) { return !isPodActive(*p); });
  const auto desired = static_cast<std::size_t>(std::max(0, rs.spec.replicas.value_or(1)));
  std::size_t replicas = pods.size();
  std::int32_t ready = 0;
  std::vector<std::string> surplus;
  if (pods.size() > desired) {
    std::sort(pods.begin(), pods.end(),
              [](const api::Pod* a, const api::Pod* b) { return deleteBefore(*a, *b); });
    const std::size_t extra = pods.size() - desired;
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (i < extra) {
        surplus.push_back(pods[i]->metadata.name);
      } else if (isPodReady(*pods[i])) {
        ++ready;
      }
    }
    replicas = desired;
  } else {
    ready = static_cast<std::int32_t>(
        std::count_if(pods.begin(), pods.end(), [](const api::Pod* p) { return isPodReady(*p); }));
  }
  pods.clear();  // the pointers are not used past the first write
  for (const std::string& name : surplus) (void)state.pods.erase(rs.metadata.namespace_, name);
  const Owner owner{"apps/v1", "ReplicaSet", rs.metadata};
  for (std::size_t i = replicas; i < desired; ++i) {
    if (state.createPod(podFromTemplate(owner, rs.spec.template_))) ++replicas;
  }
  api::WorkloadStatus status = rs.status;
  status.observedGeneration = rs.metadata.generation;
  status.replicas = static_cast<std::int32_t>(replicas);
  status.readyReplicas = ready;
  status.availableReplicas = status.readyReplicas;
  return status;
}

}  // namespace

const PodsByController& ReplicaSetController::podsByOwner(const ClusterState& state) const {
  if (pods_.state != &state || pods_.writes != state.pods.writes()) {
    pods_ = {&state, state.pods.writes(), podsByController(state)};
  }
  return pods_.pods;
}

void ReplicaSetController::tick(ClusterState& state, Time /*now*/) const {
  // ReplicaSets are read in place (reconcile writes pods only); changed statuses are written
  // after the walk.
  std::vector<std::tuple<std::string, std::string, api::WorkloadStatus>> changed;
  // Pods this walk creates or deletes leave the index as it was before the walk.
  const PodsByController& owned = podsByOwner(state);
  state.replicaSets.forEach([&](const api::ReplicaSet& rs) {
    auto it = owned.find(rs.metadata.uid);
    api::WorkloadStatus status =
        reconcile(state, rs, it == owned.end() ? std::vector<const api::Pod*>{} : it->second);
    if (!(status == rs.status)) {
      changed.emplace_back(rs.metadata.namespace_, rs.metadata.name, std::move(status));
    }
  });
  for (auto& [ns, name, status] : changed) {
    (void)state.replicaSets.modify(ns, name, "", [&](api::ReplicaSet& rs) {
      rs.status = std::move(status);
      return Change::kMetadata;
    });
  }
}

}  // namespace attune::sim
