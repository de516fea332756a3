#include "sim/cluster/pod_eviction.h"

#include <algorithm>
#include <string>

namespace attune::sim {
namespace {

// Pods the handler deletes without looking at budgets: they are no longer (or not yet) serving.
bool canIgnoreBudgets(const api::Pod& pod) {
  const std::string& phase = pod.status.phase;
  return phase == "Succeeded" || phase == "Failed" || phase == "Pending" ||
         pod.metadata.deletionTimestamp.has_value();
}

Result<void> checkPreconditions(const api::Pod& pod, const api::Eviction& eviction) {
  if (!eviction.deleteOptions) return {};
  const api::DeleteOptions& options = *eviction.deleteOptions;
  if (!options.preconditionUid.empty() && options.preconditionUid != pod.metadata.uid) {
    return fail(ErrorCode::kConflict,
                "Precondition failed: UID in precondition: " + options.preconditionUid +
                    ", UID in object meta: " + pod.metadata.uid);
  }
  return checkResourceVersion(pod.metadata, options.preconditionResourceVersion, "pods");
}

// A pod that is not Ready may go without using the budget: always under AlwaysAllow; under
// IfHealthyBudget (or unset) while the application is as healthy as the budget asks.
bool unhealthyPodMayGo(const api::PodDisruptionBudget& pdb) {
  if (pdb.spec.unhealthyPodEvictionPolicy == api::kAlwaysAllow) return true;
  return pdb.status.currentHealthy >= pdb.status.desiredHealthy && pdb.status.desiredHealthy > 0;
}

// checkAndDecrement: the refusal, or the budget with one disruption taken for `pod`.
Result<api::PdbStatus> takeDisruption(const api::PodDisruptionBudget& pdb, const std::string& pod,
                                      Time now) {
  if (pdb.status.observedGeneration < pdb.metadata.generation) {
    return std::unexpected(api::disruptionBudgetRefusal(
        "The disruption budget " + pdb.metadata.name + " is still being processed by the server."));
  }
  if (pdb.status.disruptionsAllowed < 0) {
    return fail(ErrorCode::kForbidden, "poddisruptionbudgets.policy \"" + pdb.metadata.name +
                                           "\" is forbidden: pdb disruptions allowed is negative");
  }
  if (pdb.status.disruptionsAllowed == 0) {
    return std::unexpected(api::disruptionBudgetRefusal(
        "The disruption budget " + pdb.metadata.name + " needs " +
        std::to_string(pdb.status.desiredHealthy) + " healthy pods and has " +
        std::to_string(pdb.status.currentHealthy) + " currently"));
  }
  api::PdbStatus status = pdb.status;
  --status.disruptionsAllowed;
  auto& disrupted = status.disruptedPods;
  auto it = std::ranges::lower_bound(disrupted, pod, {}, &api::DisruptedPod::name);
  if (it != disrupted.end() && it->name == pod) {
    it->at = now;
  } else {
    disrupted.insert(it, api::DisruptedPod{pod, now});
  }
  return status;
}

}  // namespace

std::vector<const api::PodDisruptionBudget*> budgetsOfEvictedPod(const ClusterState& state,
                                                                 const api::Pod& pod) {
  std::vector<const api::PodDisruptionBudget*> out;
  state.pdbs.forEachInNamespace(pod.metadata.namespace_, [&](const api::PodDisruptionBudget& pdb) {
    const auto& selector = pdb.spec.selector;
    if (!selector || *selector == api::LabelSelector{}) return;
    if (api::selectorMatches(*selector, pod.metadata.labels)) out.push_back(&pdb);
  });
  return out;
}

Result<void> evictThroughBudgets(ClusterState& state, const api::Eviction& eviction) {
  const api::ObjectMeta& target = eviction.metadata;
  auto pod = state.pods.get(target.namespace_, target.name);
  if (!pod) return std::unexpected(pod.error());
  if (auto ok = checkPreconditions(*pod, eviction); !ok) return ok;
  const bool dryRun = eviction.deleteOptions && !eviction.deleteOptions->dryRun.empty();
  if (!canIgnoreBudgets(*pod)) {
    const auto budgets = budgetsOfEvictedPod(state, *pod);
    if (budgets.size() > 1) {
      return fail(ErrorCode::kInternal,
                  "This pod has more than one PodDisruptionBudget, which the eviction "
                  "subresource does not support.");
    }
    const bool spare = !budgets.empty() && !api::isPodReady(*pod) && unhealthyPodMayGo(*budgets[0]);
    if (!budgets.empty() && !spare) {
      const api::PodDisruptionBudget& pdb = *budgets[0];
      auto status = takeDisruption(pdb, pod->metadata.name, state.clock().now());
      if (!status) return std::unexpected(status.error());
      if (!dryRun) {
        auto written = state.pdbs.modify(pdb.metadata.namespace_, pdb.metadata.name, "",
                                         [&](api::PodDisruptionBudget& stored) -> Result<Change> {
                                           stored.status = std::move(*status);
                                           return Change::kMetadata;
                                         });
        if (!written) return std::unexpected(written.error());
      }
    }
  }
  if (dryRun) return {};
  return state.evictPod(target.namespace_, target.name);
}

}  // namespace attune::sim
