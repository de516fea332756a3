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

// What the controller needs of one of its pods, copied out of the store.
struct DaemonPod {
  std::string name;
  std::string revision;  // its kRevisionHashLabel
  bool ready = false;
};

// Active controlled pods by node, after deleting those on ineligible nodes and duplicates.
std::map<std::string, DaemonPod> prunedPodsByNode(ClusterState& state, const api::DaemonSet& ds,
                                                  const std::set<std::string>& eligible) {
  std::map<std::string, DaemonPod> byNode;
  std::vector<std::string> doomed;
  for (const api::Pod* pod : controlledPodRefs(state, ds.metadata.namespace_, ds.metadata.uid)) {
    if (!isPodActive(*pod)) continue;
    if (eligible.contains(pod->spec.nodeName) && !byNode.contains(pod->spec.nodeName)) {
      byNode.emplace(
          pod->spec.nodeName,
          DaemonPod{pod->metadata.name, labelOf(*pod, kRevisionHashLabel), isPodReady(*pod)});
    } else {
      doomed.push_back(pod->metadata.name);
    }
  }
  for (const std::string& name : doomed) (void)state.pods.erase(ds.metadata.namespace_, name);
  return byNode;
}

void reconcile(ClusterState& state, const api::DaemonSet& ds) {
  const std::set<std::string> eligible = eligibleNodes(state, ds);
  std::map<std::string, DaemonPod> byNode = prunedPodsByNode(state, ds, eligible);
  const api::PodTemplateSpec podTemplate = withRevisionLabel(ds.metadata, ds.spec.template_);
  const std::string revision = revisionOf(ds.metadata, ds.spec.template_);
  const Owner owner{"apps/v1", "DaemonSet", ds.metadata};
  const bool complete = std::all_of(eligible.begin(), eligible.end(),
                                    [&](const std::string& node) { return byNode.contains(node); });
  if (complete && ds.spec.strategyType != "OnDelete") {
    auto outdated = std::find_if(byNode.begin(), byNode.end(), [&](const auto& entry) {
      return entry.second.revision != revision;
    });
    if (outdated != byNode.end()) {
      (void)state.pods.erase(ds.metadata.namespace_, outdated->second.name);
      byNode.erase(outdated);
    }
  }
  for (const auto& node : eligible) {
    if (byNode.contains(node)) continue;
    api::Pod pod = podFromTemplate(owner, podTemplate);
    pod.spec.nodeName = node;
    if (auto made = state.createPod(std::move(pod))) {
      byNode.emplace(node, DaemonPod{made->metadata.name, labelOf(*made, kRevisionHashLabel),
                                     isPodReady(*made)});
    }
  }
  api::WorkloadStatus status = ds.status;
  status.observedGeneration = ds.metadata.generation;
  status.desiredNumberScheduled = static_cast<std::int32_t>(eligible.size());
  status.currentNumberScheduled = static_cast<std::int32_t>(byNode.size());
  status.updatedNumberScheduled = status.numberReady = 0;
  for (const auto& [node, pod] : byNode) {
    if (pod.revision == revision) ++status.updatedNumberScheduled;
    if (pod.ready) ++status.numberReady;
  }
  status.numberAvailable = status.numberReady;
  writeStatus(state.daemonSets, ds, status);
}

}  // namespace

void DaemonSetController::tick(ClusterState& state, Time /*now*/) const {
  for (const auto& ds : state.daemonSets.list({})) reconcile(state, ds);
}

}  // namespace attune::sim
