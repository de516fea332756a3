#include "sim/control/daemon_set_controller.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/control/node_fit.h"
#include "sim/control/owned_pods.h"
#include "sim/control/tolerations.h"

namespace attune::sim {
namespace {

std::set<std::string> eligibleNodes(const ClusterState& state, const api::DaemonSet& ds) {
  const auto& tolerations = ds.spec.template_.spec.tolerations;
  std::set<std::string> out;
  for (const auto& node : state.nodes.list({})) {
    if (nodeSelectorMatches(ds.spec.template_.spec, node) &&
        untoleratedTaint(node, tolerations) == nullptr) {
      out.insert(node.metadata.name);
    }
  }
  return out;
}

// Active controlled pods by node, after deleting those on ineligible nodes and duplicates.
std::map<std::string, api::Pod> prunedPodsByNode(ClusterState& state, const api::DaemonSet& ds,
                                                 const std::set<std::string>& eligible) {
  std::map<std::string, api::Pod> byNode;
  for (auto& pod : controlledPods(state, ds.metadata.namespace_, ds.metadata.uid)) {
    if (!isPodActive(pod)) continue;
    if (eligible.contains(pod.spec.nodeName) && !byNode.contains(pod.spec.nodeName)) {
      byNode.emplace(pod.spec.nodeName, std::move(pod));
    } else {
      (void)state.pods.erase(pod.metadata.namespace_, pod.metadata.name);
    }
  }
  return byNode;
}

void reconcile(ClusterState& state, const api::DaemonSet& ds) {
  const std::set<std::string> eligible = eligibleNodes(state, ds);
  std::map<std::string, api::Pod> byNode = prunedPodsByNode(state, ds, eligible);
  const api::PodTemplateSpec podTemplate = withRevisionLabel(ds.metadata, ds.spec.template_);
  const std::string revision = revisionOf(ds.metadata, ds.spec.template_);
  const Owner owner{"apps/v1", "DaemonSet", ds.metadata};
  const bool complete = std::all_of(eligible.begin(), eligible.end(),
                                    [&](const std::string& node) { return byNode.contains(node); });
  if (complete && ds.spec.strategyType != "OnDelete") {
    auto outdated = std::find_if(byNode.begin(), byNode.end(), [&](const auto& entry) {
      return labelOf(entry.second, kRevisionHashLabel) != revision;
    });
    if (outdated != byNode.end()) {
      (void)state.pods.erase(outdated->second.metadata.namespace_, outdated->second.metadata.name);
      byNode.erase(outdated);
    }
  }
  for (const auto& node : eligible) {
    if (byNode.contains(node)) continue;
    api::Pod pod = podFromTemplate(owner, podTemplate);
    pod.spec.nodeName = node;
    if (auto made = state.createPod(std::move(pod))) byNode.emplace(node, std::move(*made));
  }
  api::WorkloadStatus status = ds.status;
  status.observedGeneration = ds.metadata.generation;
  status.desiredNumberScheduled = static_cast<std::int32_t>(eligible.size());
  status.currentNumberScheduled = static_cast<std::int32_t>(byNode.size());
  status.updatedNumberScheduled = status.numberReady = 0;
  for (const auto& [node, pod] : byNode) {
    if (labelOf(pod, kRevisionHashLabel) == revision) ++status.updatedNumberScheduled;
    if (isPodReady(pod)) ++status.numberReady;
  }
  status.numberAvailable = status.numberReady;
  writeStatus(state.daemonSets, ds, status);
}

}  // namespace

void DaemonSetController::tick(ClusterState& state, Time /*now*/) const {
  for (const auto& ds : state.daemonSets.list({})) reconcile(state, ds);
}

}  // namespace attune::sim
