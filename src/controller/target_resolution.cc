#include "controller/target_resolution.h"

#include <algorithm>
#include <string>

namespace attune::controller {
bool targetRefSelects(const api::TargetRef& ref, const api::ObjectMeta& meta) {
  if (!ref.name.empty() && ref.name != meta.name) return false;
  if (!ref.selector) return true;
  return api::selectorMatches(*ref.selector, meta.labels);
}

std::vector<TargetWorkload> resolveTargets(const ClusterSnapshot& snapshot,
                                           const api::AttunePolicy& policy) {
  std::vector<TargetWorkload> out;
  const api::TargetRef& ref = policy.spec.targetRef;
  if (!ref.kind) return out;
  const std::string& ns = policy.metadata.namespace_;
  const std::string kindName(api::toString(*ref.kind));
  const auto add = [&](const api::ObjectMeta& meta, const api::LabelSelector* podSelector,
                       std::int32_t replicas, std::int32_t updatedReplicas) {
    if (meta.namespace_ != ns || !targetRefSelects(ref, meta)) return;
    TargetWorkload t{.ref = {ns, kindName, meta.name},
                     .metadata = &meta,
                     .podSelector = podSelector,
                     .replicas = replicas,
                     .updatedReplicas = updatedReplicas,
                     .pods = {}};
    for (const api::Pod* pod : snapshot.podsOf(t.ref)) {
      if (pod->status.phase == "Running" && !pod->spec.nodeName.empty() &&
          !pod->metadata.deletionTimestamp) {
        t.pods.push_back(pod);
      }
    }
    out.push_back(std::move(t));
  };
  const auto addApps = [&](const auto& workloads, bool daemonSet) {
    for (const auto& item : workloads) {
      const auto& w = objectOf(item);
      const std::int32_t desired =
          daemonSet ? w.status.desiredNumberScheduled : w.spec.replicas.value_or(1);
      const std::int32_t updated =
          daemonSet ? w.status.updatedNumberScheduled : w.status.updatedReplicas;
      // A workload whose controller has not observed its latest spec is rolling out too.
      const bool stale = w.status.observedGeneration < w.metadata.generation;
      add(w.metadata, &w.spec.selector, desired, stale ? std::min(updated, desired - 1) : updated);
    }
  };
  switch (*ref.kind) {
    case api::TargetKind::kDeployment:
      addApps(snapshot.inNamespace(snapshot.deployments(), ns), false);
      break;
    case api::TargetKind::kStatefulSet:
      addApps(snapshot.inNamespace(snapshot.statefulSets(), ns), false);
      break;
    case api::TargetKind::kDaemonSet:
      addApps(snapshot.inNamespace(snapshot.daemonSets(), ns), true);
      break;
    case api::TargetKind::kReplicaSet:
      addApps(snapshot.inNamespace(snapshot.replicaSets(), ns), false);
      break;
    case api::TargetKind::kJob:
      for (const auto& j : snapshot.inNamespace(snapshot.jobs(), ns))
        add(j.metadata, &j.spec.selector, 0, 0);
      break;
    case api::TargetKind::kCronJob:
      for (const auto& c : snapshot.inNamespace(snapshot.cronJobs(), ns))
        add(c.metadata, nullptr, 0, 0);
      break;
  }
  return out;
}

}  // namespace attune::controller
