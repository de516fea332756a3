#include "sim/control/stateful_set_controller.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

std::string ordinalName(const api::StatefulSet& sts, std::int32_t ordinal) {
  return sts.metadata.name + "-" + std::to_string(ordinal);
}

// Deletes the highest-ordinal pod not of `revision` and returns its name, if any.
std::optional<std::string> rollOnePod(ClusterState& state, const api::StatefulSet& sts,
                                      std::int32_t replicas, const std::string& revision) {
  for (std::int32_t i = replicas - 1; i >= 0; --i) {
    const api::Pod* pod = state.pods.find(sts.metadata.namespace_, ordinalName(sts, i));
    if (pod != nullptr && labelOf(*pod, kRevisionHashLabel) != revision) {
      (void)state.pods.erase(sts.metadata.namespace_, ordinalName(sts, i));
      return ordinalName(sts, i);
    }
  }
  return std::nullopt;
}

void reconcile(ClusterState& state, const api::StatefulSet& sts) {
  const std::int32_t replicas = std::max(0, sts.spec.replicas.value_or(1));
  const api::PodTemplateSpec podTemplate = withRevisionLabel(sts.metadata, sts.spec.template_);
  const std::string revision = revisionOf(sts.metadata, sts.spec.template_);
  std::set<std::string> present;
  for (const api::Pod* pod : controlledPodRefs(state, sts.metadata.namespace_, sts.metadata.uid)) {
    present.insert(pod->metadata.name);
  }
  std::set<std::string> wanted;
  for (std::int32_t i = 0; i < replicas; ++i) wanted.insert(ordinalName(sts, i));
  for (const auto& name : present) {
    if (!wanted.contains(name)) (void)state.pods.erase(sts.metadata.namespace_, name);
  }
  const bool complete = std::includes(present.begin(), present.end(), wanted.begin(), wanted.end());
  if (complete && sts.spec.strategyType != "OnDelete") {
    if (auto rolled = rollOnePod(state, sts, replicas, revision)) present.erase(*rolled);
  }
  const Owner owner{"apps/v1", "StatefulSet", sts.metadata};
  for (const auto& name : wanted) {
    if (!present.contains(name)) (void)state.createPod(podFromTemplate(owner, podTemplate, name));
  }
  api::WorkloadStatus status = sts.status;
  status.observedGeneration = sts.metadata.generation;
  status.replicas = status.updatedReplicas = status.readyReplicas = 0;
  for (const api::Pod* pod : controlledPodRefs(state, sts.metadata.namespace_, sts.metadata.uid)) {
    if (!isPodActive(*pod)) continue;
    ++status.replicas;
    if (labelOf(*pod, kRevisionHashLabel) == revision) ++status.updatedReplicas;
    if (isPodReady(*pod)) ++status.readyReplicas;
  }
  status.availableReplicas = status.readyReplicas;
  status.currentReplicas = status.updatedReplicas == status.replicas
                               ? status.replicas
                               : status.replicas - status.updatedReplicas;
  writeStatus(state.statefulSets, sts, status);
}

}  // namespace

void StatefulSetController::tick(ClusterState& state, Time /*now*/) const {
  for (const auto& sts : state.statefulSets.list({})) reconcile(state, sts);
}

}  // namespace attune::sim
