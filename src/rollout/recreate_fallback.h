// The recreate fallback of updateStrategy.resizeMethod: InPlaceOrRecreate. A pod whose in-place
// resize (one Attune made: it carries the resize record, and its spec holds the resize) the
// kubelet cannot carry out is evicted through the Eviction API, so that its workload recreates
// it (sized by the pod admission webhook where it runs, else from the workload's template).
// When the kubelet's state calls for it (timeouts as the Vertical Pod Autoscaler's in-place
// updater uses them):
//  - PodResizePending, reason Infeasible: at once (cause "infeasible");
//  - PodResizeInProgress, reason Error: at once (cause "resize-error");
//  - PodResizePending, reason Deferred, for kDeferredResizeTimeout since the condition's
//    lastTransitionTime (cause "deferred-timeout");
//  - PodResizeInProgress otherwise, for kInProgressResizeTimeout (cause "in-progress-timeout").
// Never for a pod without a workload that recreates it (a bare Pod), nor for the only running
// pod of its workload unless the workload is annotated kRecreateSingleReplicaAnnotation: "true";
// such a pod gets an EvictionBlocked Warning instead, and is handled as under InPlaceOnly (an
// Infeasible or Error resize is restored, a slow one waits). The eviction honours
// PodDisruptionBudgets (a refusal is retried next pass). Pure: values in, Plan entries out.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/k8s/meta.h"
#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "core/time.h"
#include "rollout/observation_plan.h"
#include "rollout/plan.h"

namespace attune::rollout {

inline constexpr Duration kDeferredResizeTimeout = std::chrono::minutes(5);
inline constexpr Duration kInProgressResizeTimeout = std::chrono::hours(1);
// Our extension: opts a workload's only running pod into the recreate fallback.
inline constexpr std::string_view kRecreateSingleReplicaAnnotation =
    "attune.io/recreate-single-replica";

// Why `pod`'s outstanding resize calls for recreation at `now` (the eviction's cause), or
// nullopt; `recheckAfter` is set when a Deferred or InProgress resize will reach its timeout.
struct StalledResize {
  std::string cause;  // "infeasible", "resize-error", "deferred-timeout", "in-progress-timeout"
  std::string message;
};
std::optional<StalledResize> stalledResize(const api::Pod& pod, Time now,
                                           std::optional<Duration>* recheckAfter = nullptr);

// A workload of the policy as the fallback needs it.
struct RecreateWorkload {
  api::ObjectMeta metadata;
  int runningPods = 0;  // Running and not being deleted
};

// For every pod of `observed` (each carrying a resize record) whose resize is stalled and whose
// spec holds the resize (recordState not kAtOriginals): when its workload (in `workloads`;
// absent, or kind Pod, counts as a bare Pod) may lose it, an EvictAction (workload annotations
// safety::annotationsAfterResize(now): the cooldown starts again) replaces the pod's
// RestoreAction in `plan`, if any; otherwise an EvictionBlocked EventAction is appended. Asks
// for a requeue when a Deferred or InProgress resize reaches its timeout later.
void planRecreateFallback(std::span<const ObservedPod> observed,
                          const std::map<api::WorkloadRef, RecreateWorkload>& workloads, Time now,
                          Plan& plan);

}  // namespace attune::rollout
