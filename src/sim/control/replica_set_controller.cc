#include "sim/control/replica_set_controller.h"

#include <algorithm>
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

void reconcile(ClusterState& state, const api::ReplicaSet& rs) {
  std::vector<api::Pod> pods = controlledPods(state, rs.metadata.namespace_, rs.metadata.uid);
  std::erase_if(pods, [](const api::Pod& p) { return !isPodActive(p); });
  const auto desired = static_cast<std::size_t>(std::max(0, rs.spec.replicas.value_or(1)));
  const Owner owner{"apps/v1", "ReplicaSet", rs.metadata};
  for (std::size_t i = pods.size(); i < desired; ++i) {
    if (auto pod = state.createPod(podFromTemplate(owner, rs.spec.template_))) pods.push_back(*pod);
  }
  if (pods.size() > desired) {
    std::sort(pods.begin(), pods.end(), deleteBefore);
    for (std::size_t i = 0; i < pods.size() - desired; ++i) {
      (void)state.pods.erase(pods[i].metadata.namespace_, pods[i].metadata.name);
    }
    pods.erase(pods.begin(), pods.begin() + static_cast<std::ptrdiff_t>(pods.size() - desired));
  }
  api::WorkloadStatus status = rs.status;
  status.observedGeneration = rs.metadata.generation;
  status.replicas = static_cast<std::int32_t>(pods.size());
  status.readyReplicas =
      static_cast<std::int32_t>(std::count_if(pods.begin(), pods.end(), isPodReady));
  status.availableReplicas = status.readyReplicas;
  writeStatus(state.replicaSets, rs, status);
}

}  // namespace

void ReplicaSetController::tick(ClusterState& state, Time /*now*/) const {
  for (const auto& rs : state.replicaSets.list({})) reconcile(state, rs);
}

}  // namespace attune::sim
