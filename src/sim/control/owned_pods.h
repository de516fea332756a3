// What the simulated workload controllers share: pods made from a template and owned by a
// controller, template hashes, pod liveness and readiness, and status writes.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "api/k8s/pod.h"
#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// The label ReplicaSets and their pods carry: the hash of the Deployment's pod template.
inline constexpr std::string_view kPodTemplateHashLabel = "pod-template-hash";
// The label StatefulSet and DaemonSet pods carry: "<owner>-<template hash>".
inline constexpr std::string_view kRevisionHashLabel = "controller-revision-hash";

// The owner written into pods' ownerReferences (controller: true).
struct Owner {
  std::string apiVersion;  // "apps/v1", "batch/v1"
  std::string kind;        // "ReplicaSet", "StatefulSet", "DaemonSet", "Job"
  const api::ObjectMeta& meta;
};

// A deterministic, content-based hash of `podTemplate` (labels, annotations, containers,
// init containers, node selector, policies), rendered as 10 characters of the alphabet
// Kubernetes uses for hashes in names. Pure.
std::string templateHash(const api::PodTemplateSpec& podTemplate);

// "<owner>-<templateHash>": the kRevisionHashLabel value for pods of `podTemplate`. Pure.
std::string revisionOf(const api::ObjectMeta& owner, const api::PodTemplateSpec& podTemplate);
// The pod template with the kRevisionHashLabel label added. Pure.
api::PodTemplateSpec withRevisionLabel(const api::ObjectMeta& owner,
                                       api::PodTemplateSpec podTemplate);

// A new pod from `podTemplate` in the owner's namespace: the template's labels and
// annotations, its spec, an ownerReference to `owner` with controller: true. With an empty
// `name` it gets generateName "<owner>-", so the API server names it with a fresh suffix.
api::Pod podFromTemplate(const Owner& owner, const api::PodTemplateSpec& podTemplate,
                         std::string name = {});

// Every pod with a controller, by its controller's uid, in (namespace, name) order, read in
// place: the pointers are valid until the pod store is written; a controller that erases or
// creates only its own pods keeps the others' valid (std::map nodes). The keys are copies, so
// they outlive the pods they were read from.
using PodsByController = std::unordered_map<std::string, std::vector<const api::Pod*>>;
PodsByController podsByController(const ClusterState& state);

// The pods in `ns` whose controller reference has uid `uid`, in name order.
std::vector<api::Pod> controlledPods(const ClusterState& state, std::string_view ns,
                                     std::string_view uid);
// The same pods, read in place: the pointers are valid until the next write to state.pods.
std::vector<const api::Pod*> controlledPodRefs(const ClusterState& state, std::string_view ns,
                                               std::string_view uid);
// True when the controller still counts the pod: not Succeeded/Failed and not deleting.
bool isPodActive(const api::Pod& pod);
// True when the pod's Ready condition is True.
using api::isPodReady;
// The pod's label `key`, or "" when absent.
std::string labelOf(const api::Pod& pod, std::string_view key);

// The kubelet's report that every container of the pod exited 0: phase Succeeded, Ready
// False (a status write: generation unchanged). For scenarios and tests.
Result<api::Pod> markPodSucceeded(ClusterState& state, std::string_view ns, std::string_view name,
                                  Time now);

// Writes `status` as `object`'s status (a status write: generation unchanged) unless it is
// already that. Errors (the object vanished) are ignored: the next tick sees the new state.
template <typename T, typename Status>
void writeStatus(ObjectStore<T>& store, const T& object, const Status& status) {
  (void)store.modify(object.metadata.namespace_, object.metadata.name, "", [&](T& o) {
    if (o.status == status) return Change::kNone;
    o.status = status;
    return Change::kMetadata;
  });
}

}  // namespace attune::sim
