// The admission webhook's sizing of a new pod (CruiseKube's Phase 1): each container of a
// workload with statistics starts with requests at the workload's peak, a memory limit of
// 2 × max(7-day max, memory at the last OOM kill), and no CPU limit — so the scheduler places it
// where its peak fits, and the continuous optimisation later shares headroom in place. Pure.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/patch.h"
#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "core/units.h"

namespace attune::webhook {

// What one container of a new pod gets. Unset amounts are left as the pod has them (a resource
// the policy does not control, or one without statistics).
struct ContainerSizing {
  std::string container;
  std::optional<Millicores> cpuRequest;  // the workload's peak CPU for this container
  std::optional<Bytes> memoryRequest;    // its peak memory
  std::optional<Bytes> memoryLimit;      // 2 × max(7-day max, memory at the last OOM kill)
  bool removeCpuLimit = false;           // CruiseKube sets no CPU limit
};

// The workload a pod being created belongs to, from its controller owner reference: a
// ReplicaSet whose name is "<deployment>-<pod-template-hash>" (the pod carries the hash as its
// pod-template-hash label) is its Deployment's; StatefulSet, DaemonSet, Job and a ReplicaSet
// without the hash are themselves. nullopt for a pod without a controller (a bare pod). `ns`
// is the request's namespace (a new pod's metadata.namespace may be empty).
std::optional<api::WorkloadRef> workloadOfNewPod(const api::Pod& pod, std::string_view ns);

// The JSON Patch operations that give `pod` its sizing: for each regular container named in
// `sizing` whose resources change, one "add" of /spec/containers/<i>/resources with the whole
// new requirements (other resources, such as ephemeral-storage, kept). A memory request above
// the new memory limit is lowered to it. Containers not named, or already sized so, get no
// operation; an empty result means the pod is admitted unchanged.
std::vector<api::JsonPatchOp> podSizingPatch(const api::Pod& pod,
                                             std::span<const ContainerSizing> sizing);

}  // namespace attune::webhook
