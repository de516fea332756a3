// Workload identity, one vocabulary for every module: which workload owns a pod (metrics,
// recommend, report, cli, sim, controller) and which workload kinds Attune patches (rollout).
#pragma once

#include <compare>
#include <optional>
#include <string>
#include <string_view>

namespace attune::api {

// The workload kinds whose metadata Attune patches (per-workload cooldown state).
enum class WorkloadKind { kDeployment, kStatefulSet, kDaemonSet, kReplicaSet, kJob, kCronJob };

// "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob".
std::string_view kindName(WorkloadKind kind);
// The WorkloadKind named `name` exactly as kindName spells it; nullopt for any other name.
std::optional<WorkloadKind> workloadKindNamed(std::string_view name);

// A workload: the top-level owner of a pod — Deployment, StatefulSet, DaemonSet, CronJob, Job,
// ReplicaSet (no Deployment above it) — or the pod itself when it has no owner (kind "Pod").
//
// The kind is the Kubernetes kind name as the API server and ownerReferences spell it, not a
// WorkloadKind: a trace file or a Prometheus owner label may name a kind Attune does not patch
// ("Pod", "Rollout", a custom resource), and such a workload keeps its name unchanged through
// grouping, reports and status. `workloadKind()` gives the enum for the kinds Attune patches.
struct WorkloadRef {
  std::string ns;
  std::string kind;
  std::string name;

  // The kind as a WorkloadKind; nullopt for "Pod" and any kind Attune does not patch.
  std::optional<WorkloadKind> workloadKind() const { return workloadKindNamed(kind); }
  auto operator<=>(const WorkloadRef&) const = default;
};

// The reference to a workload of a kind Attune patches.
WorkloadRef workloadRef(WorkloadKind kind, std::string ns, std::string name);

// "ns/Kind/name", for messages and table keys.
std::string toString(const WorkloadRef& ref);

}  // namespace attune::api
