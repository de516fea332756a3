// The Plan: what one rollout pass decided for a policy, as an ordered list of actions for the
// controller to carry out. Plain values; nothing here talks to the cluster.
//
// How the controller carries out each action (in plan order):
//  - ResizeAction: patch the pod's annotations with `annotations` (the resize record, written
//    BEFORE the pod is touched); then ClusterApi::resizePod(pod, containers); on success a
//    `Resized` Normal event, one history entry per `changes` element (result Applied), and the
//    workload annotations safety::annotationsAfterResize(now); on an API error a `ResizeFailed`
//    Warning, history result Failed, and the record annotations cleared again.
//  - SkipAction: a `ResizeSkipped` Warning event (reason code and message) and a history entry
//    with result Skipped and `reason` = toString(reason); requeue after `requeueAfter` if set.
//  - DeferAction: nothing is written; requeue after `requeueAfter` if set (else the controller's
//    regular resync).
//  - EventAction: emit the event as given (e.g. the informational HPAConflict warning).
// Plan::requeueAfter is the soonest of all requeues; Plan::resizeBlocked is the ResizeBlocked
// condition to set (nullopt: remove it).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/k8s/meta.h"
#include "api/k8s/patch.h"
#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "core/time.h"
#include "safety/resize_record.h"

namespace attune::rollout {

// The workload an action is about.
struct WorkloadId {
  api::WorkloadKind kind = api::WorkloadKind::kDeployment;
  std::string namespace_;
  std::string name;
  bool operator==(const WorkloadId&) const = default;
};

// "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob".
std::string_view workloadKindName(api::WorkloadKind kind);

// Why a resize was not made. The names are the `reason` of ResizeSkipped events and of Skipped
// history entries.
enum class SkipReason {
  kOptOut,             // "OptOut": attune.io/skip: "true" on the workload or the pod
  kQosChange,          // "QoSChange": the resize would change the pod's QoS class
  kLimitRange,         // "LimitRange": a target is outside a LimitRange's container min/max
  kResourceQuota,      // "ResourceQuota": an increase exceeds a ResourceQuota's headroom
  kNodeCapacity,       // "NodeCapacity": the pod's requests would exceed the node allocatable
  kCooldown,           // "Cooldown": the workload's cooldown has not elapsed
  kInvalidAnnotation,  // "InvalidAnnotation": an Attune annotation does not parse
};
std::string_view toString(SkipReason reason);

// Why a resize waits without being skipped (nothing is recorded).
enum class DeferReason {
  kActiveRollout,      // "ActiveRollout": updatedReplicas < replicas
  kPodNotReady,        // "PodNotReady": the pod is not Ready; resizing it could not be judged
  kResizePending,      // "ResizePending": the kubelet is still working on an earlier resize
  kCanaryObserving,    // "CanaryObserving": canary pods are still under observation
  kCanaryWaiting,      // "CanaryWaiting": canary.observationPeriod after the canaries were safe
  kCanaryNotPromoted,  // "CanaryNotPromoted": canaries are safe, canary.autoPromote is false
};
std::string_view toString(DeferReason reason);

// One changed resource of one container: the request (and limit, when it has one) before and
// after, as canonical quantities. A history entry and the Resized event use these.
struct ResourceChange {
  std::string container;
  api::ResizedResource resource = api::ResizedResource::kCpu;  // kCpu or kMemory
  std::string from;                                            // request before
  std::string to;                                              // request after
  std::string limitFrom;  // limit before; empty when the container has no such limit
  std::string limitTo;    // limit after; empty when the container has no such limit
  bool operator==(const ResourceChange&) const = default;
};

struct ResizeAction {
  WorkloadId workload;
  std::string pod;
  // The desired resources of every changed container, for ClusterApi::resizePod.
  std::vector<api::ContainerResize> containers;
  std::vector<ResourceChange> changes;
  safety::ResizeRecord record;  // resizedAt = the plan's `now`
  // replaceResizeAnnotations(pod, record): write these before the resize.
  api::AnnotationChanges annotations;
  bool canary = false;  // one of the first canary.percentage of the workload's pods
  std::string message;  // "app: cpu 500m -> 250m, memory 512Mi -> 384Mi"
};

struct SkipAction {
  WorkloadId workload;
  std::string pod;  // empty when the whole workload is skipped
  SkipReason reason = SkipReason::kOptOut;
  std::string message;
  std::optional<Duration> requeueAfter;  // set for kCooldown: the remaining cooldown
};

struct DeferAction {
  WorkloadId workload;
  std::string pod;  // empty when the whole workload waits
  DeferReason reason = DeferReason::kActiveRollout;
  std::string message;
  std::optional<Duration> requeueAfter;
};

inline constexpr std::string_view kHpaConflictReason = "HPAConflict";

// An event to emit about the workload.
struct EventAction {
  WorkloadId workload;
  std::string type;    // "Normal" or "Warning"
  std::string reason;  // e.g. kHpaConflictReason
  std::string message;
};

using Action = std::variant<ResizeAction, SkipAction, DeferAction, EventAction>;

struct Plan {
  std::vector<Action> actions;
  // Pod counts over the policy's running pods (each pod counted once at most):
  int atTarget = 0;          // already at their target (not under observation)
  int underObservation = 0;  // carrying a resize record: resizes in flight
  int waiting = 0;  // need a resize, but the mode or maxConcurrentResizes left no room this pass
  std::optional<Duration> requeueAfter;  // the soonest requeue any action asks for
  // ResizeBlocked condition (status True, reason PodsDeferred, PodsInfeasible or
  // PodsDeferredAndInfeasible) when pods report a Deferred or Infeasible resize; nullopt means
  // the condition should be removed. lastTransitionTime is left for safety::setCondition.
  std::optional<api::Condition> resizeBlocked;

  // The actions of one type, in plan order.
  template <typename T>
  std::vector<const T*> all() const {
    std::vector<const T*> out;
    for (const Action& a : actions) {
      if (const T* t = std::get_if<T>(&a)) out.push_back(t);
    }
    return out;
  }
};

}  // namespace attune::rollout
