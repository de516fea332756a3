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

// The annotation the webhook adds to every pod it reviews with a workload's sizing, whether the
// sizing changed the pod's resources ("sized") or the pod already asked for it ("unchanged"). A
// target pod of a workload with published sizing that lacks it was created without the webhook
// (unreachable, untrusted certificate, timed out: failurePolicy Ignore admits the pod as its
// workload asks); the controller reports such pods (controller/admission_bypass.h).
inline constexpr std::string_view kAdmissionSizedAnnotation = "attune.io/admission-sized";
inline constexpr std::string_view kAdmissionSized = "sized";
inline constexpr std::string_view kAdmissionUnchanged = "unchanged";

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

// The JSON Patch operation that sets kAdmissionSizedAnnotation to `value` on `pod`: an "add" of
// the one annotation, or of the whole annotations map when the pod has none.
api::JsonPatchOp admissionSizedMarker(const api::Pod& pod, std::string_view value);

}  // namespace attune::webhook
