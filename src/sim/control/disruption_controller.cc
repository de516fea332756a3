#include "sim/control/disruption_controller.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/control/conditions.h"
#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

// The pods the budget selects: none without a selector, every pod of the namespace with {}.
std::vector<const api::Pod*> podsOfBudget(const ClusterState& state,
                                          const api::PodDisruptionBudget& pdb) {
  std::vector<const api::Pod*> out;
  if (!pdb.spec.selector) return out;
  state.pods.forEachInNamespace(pdb.metadata.namespace_, [&](const api::Pod& pod) {
    if (api::selectorMatches(*pdb.spec.selector, pod.metadata.labels)) out.push_back(&pod);
  });
  return out;
}

// The controller that scales `ref` in `ns`, as (uid, scale), or nullopt when it has no scale.
template <typename Workload>
std::optional<std::pair<std::string, std::int32_t>> scaleOf(const ObjectStore<Workload>& store,
                                                            std::string_view ns,
                                                            const api::OwnerReference& ref) {
  const Workload* w = store.find(ns, ref.name);
  if (w == nullptr || w->metadata.uid != ref.uid) return std::nullopt;
  return std::pair{w->metadata.uid, w->spec.replicas.value_or(1)};
}

// The finders of upstream's getExpectedScale: a ReplicaSet's Deployment, a ReplicaSet that no
// Deployment controls, a StatefulSet.
std::optional<std::pair<std::string, std::int32_t>> controllerScale(
    const ClusterState& state, std::string_view ns, const api::OwnerReference& ref) {
  if (ref.kind == "StatefulSet") return scaleOf(state.statefulSets, ns, ref);
  if (ref.kind != "ReplicaSet") return std::nullopt;
  const api::ReplicaSet* rs = state.replicaSets.find(ns, ref.name);
  if (rs == nullptr || rs->metadata.uid != ref.uid) return std::nullopt;
  const api::OwnerReference* owner = rs->metadata.controllerRef();
  if (owner != nullptr && owner->kind == "Deployment") {
    return scaleOf(state.deployments, ns, *owner);
  }
  return std::pair{rs->metadata.uid, rs->spec.replicas.value_or(1)};
}

Result<std::int32_t> expectedScale(const ClusterState& state, std::string_view ns,
                                   const std::vector<const api::Pod*>& pods) {
  std::map<std::string, std::int32_t> scales;  // by controller uid
  for (const api::Pod* pod : pods) {
    const api::OwnerReference* ref = pod->metadata.controllerRef();
    if (ref == nullptr) continue;  // unmanaged: upstream warns and leaves it out
    auto scale = controllerScale(state, ns, *ref);
    if (!scale) {
      return fail(ErrorCode::kNotFound,
                  "found no controllers for pod \"" + pod->metadata.name + "\"");
    }
    scales.insert(*scale);
  }
  std::int32_t total = 0;
  for (const auto& [uid, scale] : scales) total += scale;
  return total;
}

bool recentlyDisrupted(const api::DisruptedPod& entry, Time now) {
  return entry.at + kDisruptionDeletionTimeout > now;
}

// buildDisruptedPodMap: the entries of pods still there, not deleting, within the timeout.
std::vector<api::DisruptedPod> pendingDisruptions(const api::PodDisruptionBudget& pdb,
                                                  const std::vector<const api::Pod*>& pods,
                                                  Time now) {
  std::vector<api::DisruptedPod> out;
  for (const api::DisruptedPod& entry : pdb.status.disruptedPods) {
    const bool present = std::ranges::any_of(pods, [&](const api::Pod* p) {
      return p->metadata.name == entry.name && !p->metadata.deletionTimestamp;
    });
    if (present && recentlyDisrupted(entry, now)) out.push_back(entry);
  }
  return out;
}

std::int32_t countHealthy(const std::vector<const api::Pod*>& pods,
                          const std::vector<api::DisruptedPod>& disrupted) {
  std::int32_t healthy = 0;
  for (const api::Pod* pod : pods) {
    if (pod->metadata.deletionTimestamp) continue;
    const bool pending = std::ranges::any_of(
        disrupted, [&](const api::DisruptedPod& d) { return d.name == pod->metadata.name; });
    if (!pending && isPodReady(*pod)) ++healthy;
  }
  return healthy;
}

api::Condition allowedCondition(const api::PdbStatus& status) {
  const bool allowed = status.disruptionsAllowed > 0;
  return api::Condition{
      std::string(api::kDisruptionAllowedCondition),
      allowed ? "True" : "False",
      std::string(allowed ? api::kSufficientPodsReason : api::kInsufficientPodsReason),
      "",
      {},
      status.observedGeneration};
}

// The budget's next status, or the error of its computation.
Result<api::PdbStatus> nextStatus(const ClusterState& state, const api::PodDisruptionBudget& pdb,
                                  Time now) {
  const auto pods = podsOfBudget(state, pdb);
  auto target = healthTarget(pdb.spec, static_cast<std::int32_t>(pods.size()),
                             [&] { return expectedScale(state, pdb.metadata.namespace_, pods); });
  if (!target) return std::unexpected(target.error());
  api::PdbStatus status = pdb.status;
  status.disruptedPods = pendingDisruptions(pdb, pods, now);
  status.currentHealthy = countHealthy(pods, status.disruptedPods);
  status.desiredHealthy = target->desiredHealthy;
  status.expectedPods = target->expectedPods;
  status.disruptionsAllowed = disruptionsAllowed(status.currentHealthy, *target);
  status.observedGeneration = pdb.metadata.generation;
  setCondition(status.conditions, allowedCondition(status), now);
  return status;
}

// failSafe: no disruptions until the budget can be computed again.
api::PdbStatus failedStatus(const api::PodDisruptionBudget& pdb, const Error& error, Time now) {
  api::PdbStatus status = pdb.status;
  status.disruptionsAllowed = 0;
  setCondition(status.conditions,
               api::Condition{std::string(api::kDisruptionAllowedCondition),
                              "False",
                              std::string(api::kSyncFailedReason),
                              error.message,
                              {},
                              status.observedGeneration},
               now);
  return status;
}

}  // namespace

Result<HealthTarget> healthTarget(const api::PdbSpec& spec, std::int32_t matchingPods,
                                  const std::function<Result<std::int32_t>()>& controllersScale) {
  if (spec.maxUnavailable) {
    auto expected = controllersScale();
    if (!expected) return std::unexpected(expected.error());
    auto maxUnavailable = api::scaledValue(*spec.maxUnavailable, *expected, true);
    if (!maxUnavailable) return std::unexpected(maxUnavailable.error());
    return HealthTarget{*expected, std::max(0, *expected - *maxUnavailable)};
  }
  if (!spec.minAvailable) return HealthTarget{};
  if (!spec.minAvailable->isString) return HealthTarget{matchingPods, spec.minAvailable->intValue};
  auto expected = controllersScale();
  if (!expected) return std::unexpected(expected.error());
  auto minAvailable = api::scaledValue(*spec.minAvailable, *expected, true);
  if (!minAvailable) return std::unexpected(minAvailable.error());
  return HealthTarget{*expected, *minAvailable};
}

std::int32_t disruptionsAllowed(std::int32_t currentHealthy, const HealthTarget& target) {
  const std::int32_t allowed = currentHealthy - target.desiredHealthy;
  return target.expectedPods <= 0 || allowed <= 0 ? 0 : allowed;
}

void DisruptionController::tick(ClusterState& state, Time now) const {
  std::vector<std::pair<api::PodDisruptionBudget, api::PdbStatus>> updates;
  state.pdbs.forEach([&](const api::PodDisruptionBudget& pdb) {
    auto status = nextStatus(state, pdb, now);
    api::PdbStatus next = status ? std::move(*status) : failedStatus(pdb, status.error(), now);
    if (!(next == pdb.status)) updates.emplace_back(pdb, std::move(next));
  });
  for (const auto& [pdb, status] : updates) writeStatus(state.pdbs, pdb, status);
}

}  // namespace attune::sim
