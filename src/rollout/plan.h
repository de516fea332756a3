// The Plan: everything one reconcile pass of a policy decided, as an ordered list of actions for
// the controller's Actuator to carry out and its recorder to book. Plain values; nothing here
// talks to the cluster. Every action a pass takes is an entry here: a new kind of action (evict
// a pod, taint a node, patch an HPA) is a new alternative of `Action`, one case in the
// Actuator and one in the recorder.
//
// How the Actuator carries out each action (in plan order), and what the recorder books:
//  - RevertAction (a safety verdict): resize the pod back to `restore` (the originals from its
//    record; a transport failure is read back, the request may have landed), then remove the
//    record (`clearRecord`) and write `workloadAnnotations` on the workload (the cooldown after a
//    revert). Booked: the Success history entries of the resize marked Reverted, a `Reverted`
//    Warning event, attune_reverts_total and attune_resize_total{result="reverted"}. When the
//    restore fails the record stays (retried next pass) and a `ResizeFailed` Warning says so.
//  - RestoreAction (the kubelet answered Infeasible or Error): as a revert, without the workload
//    annotations: a failed resize, not a revert. Booked: Failed history entries, an
//    `InfeasibleBlocked` (Infeasible) or `ResizeFailed` Warning,
//    attune_resize_total{result="failed"}.
//  - EndObservationAction: remove the record; for a Safe verdict also write
//    `workloadAnnotations` (the last safe time). Booked: a `SafetyViolation` Warning for a
//    violation kept (autoRevert off); nothing for a record whose resize never reached the pod.
//  - ResizeAction: patch the pod's annotations with `annotations` (the resize record, written
//    BEFORE the pod is touched, with the pod's resourceVersion as precondition: a pod changed
//    since the snapshot is left for the next pass); then ClusterApi::resizePod(pod, containers)
//    (a transport failure is read back); on success `workloadAnnotations` on the workload
//    (safety::annotationsAfterResize). Booked: a `Resized` Normal event and one Success history
//    entry and attune_resize_total{result="success"} increment per `changes` element; on a refusal
//    the record is cleared again, a `ResizeFailed` Warning and Failed entries (after a transport
//    failure the record stays, so the originals are never lost).
//  - SkipAction: nothing is written to the pod. Booked: a `ResizeSkipped` Warning event (reason
//    code and message) and a history entry with result Skipped and `reason` = toString(reason),
//    once while the same skip repeats, and attune_resize_skipped_total{reason}.
//  - DeferAction: nothing is written or booked; the policy is requeued after `requeueAfter`.
//  - EventAction: the event as given (e.g. the informational HPAConflict warning).
//  - HpaRetuneAction (hpa/retune.h): ClusterApi::updateHpa(hpa) — its spec targets and the
//    attune.io/hpa-original-targets annotation, with the snapshot's resourceVersion as
//    precondition — placed after every pod action of the plan, and written only when every
//    resize, revert and restore of the same workload in this plan was applied (otherwise not
//    attempted: the next pass computes the target from what the pods then request). Crash
//    safety: the target is a function of the pods' requests and the originals remembered on
//    the HPA (or, before the first write, in the pods' resize records), so a pass after a crash
//    between a resize and the HPA write computes the same HPA and writes it. Booked: an
//    `HPARetuned` event on the HPA (Normal; Warning when a target was clamped), one Success
//    history entry per target moved (from/to in percent), attune_hpa_retunes_total.
//  - EvictAction: write `workloadAnnotations` on the workload first (what the eviction is
//    for must outlive the pod, e.g. the memory at an OOM kill that sizes the replacement), then
//    POST the pod's eviction subresource with its uid as precondition (a pod recreated under the
//    same name is never evicted by mistake). A PodDisruptionBudget's refusal (429) leaves the
//    pod running; a pod already gone or replaced is left to the next pass. Booked: an `Evicted`
//    Normal event (or `EvictionBlocked` / `EvictionFailed` Warnings), one history entry
//    (method Eviction, result Evicted or Failed, reason = cause) and
//    attune_eviction_total{namespace,workload,result,cause}.
// Plan::requeueAfter is the soonest time any entry asks the policy to be reconciled again;
// Plan::resizeBlocked is the ResizeBlocked condition to set (nullopt: remove it).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "api/k8s/hpa.h"
#include "api/k8s/meta.h"
#include "api/k8s/patch.h"
#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "core/time.h"
#include "safety/resize_record.h"
#include "safety/safety_monitor.h"

namespace attune::rollout {

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
  // "IncreaseBudget": the pass's maxTotalCpuIncrease / maxTotalMemoryIncrease is used up (the
  // pod waits for a later pass)
  kIncreaseBudget,
  // "StaleRecommendation": the newest usage sample behind the recommendation is older than the
  // freshness bound (rollout/freshness.h)
  kStaleRecommendation,
  kBatchWorkload,  // "BatchWorkload": a Job or CronJob, recommend-only (batch_workloads.h)
  // "MemoryLimitDecrease": a memory limit decrease the API server's version refuses in place
  // (before v1.34 without a RestartContainer memory resize policy; memory_limit_decrease.h)
  kMemoryLimitDecrease,
  // "MemoryLimitUsageFloor": a memory limit decrease to below the container's current usage
  // plus decreaseUsageMarginPercent, or without a current usage to check it against
  kMemoryLimitUsageFloor,
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
  kOutsideSchedule,    // "OutsideSchedule": updateStrategy.schedule has no window open now
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
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  std::string podResourceVersion;  // the precondition of the record's annotation patch
  // The desired resources of every changed container, for ClusterApi::resizePod.
  std::vector<api::ContainerResize> containers;
  std::vector<ResourceChange> changes;
  safety::ResizeRecord record;  // resizedAt = the plan's `now`
  // replaceResizeAnnotations(pod, record): write these before the resize.
  api::AnnotationChanges annotations;
  // safety::annotationsAfterResize(now): written on the workload once the resize is applied.
  api::AnnotationChanges workloadAnnotations;
  bool canary = false;  // one of the first canary.percentage of the workload's pods
  std::string message;  // "app: cpu 500m -> 250m, memory 512Mi -> 384Mi"
};

struct SkipAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;            // empty when the whole workload is skipped
  SkipReason reason = SkipReason::kOptOut;
  std::string message;
  std::optional<Duration> requeueAfter;  // set for kCooldown: the remaining cooldown
};

struct DeferAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;            // empty when the whole workload waits
  DeferReason reason = DeferReason::kActiveRollout;
  std::string message;
  std::optional<Duration> requeueAfter;
};

inline constexpr std::string_view kHpaConflictReason = "HPAConflict";

// An event to emit about the workload.
struct EventAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string type;           // "Normal" or "Warning"
  std::string reason;         // e.g. kHpaConflictReason
  std::string message;
};

// One utilization target of an HPA that moves.
struct HpaTargetChange {
  std::string metric;  // "cpu", "memory of container app"
  api::ResizedResource resource = api::ResizedResource::kCpu;
  std::int32_t from = 0;  // percent
  std::int32_t to = 0;    // percent
  bool operator==(const HpaTargetChange&) const = default;
};

inline constexpr std::string_view kHpaRetunedReason = "HPARetuned";

// Writes an HPA's utilization targets (and the annotation remembering the originals) so that
// its scaling point follows the pods' requests, or puts the originals back.
struct HpaRetuneAction {
  api::WorkloadRef workload;         // the workload the HPA scales
  api::HorizontalPodAutoscaler hpa;  // as it should be written; resourceVersion as read
  std::vector<HpaTargetChange> changes;
  bool restore = false;  // the original targets put back (policy paused or deleted)
  bool clamped = false;  // a target was clamped and its scaling point moved (Warning)
  std::string message;
};

inline constexpr std::string_view kEvictedReason = "Evicted";
inline constexpr std::string_view kEvictionBlockedReason = "EvictionBlocked";

// Evicts a pod through the Eviction API so that its workload recreates it (sized by the
// admission webhook).
struct EvictAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  std::string podUid;                          // the eviction's uid precondition
  std::string cause;                           // why, e.g. "OOMKilled": the history entry's reason
  std::string container;                       // the container concerned; empty when the whole pod
  api::AnnotationChanges workloadAnnotations;  // written on the workload before the eviction
  std::string message;
};

// Restores the original resources of a resized pod after a safety violation.
struct RevertAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  safety::ResizeRecord record;
  std::vector<api::ContainerResize> restore;   // the recorded originals, for resizePod
  api::AnnotationChanges clearRecord;          // removes the record from the pod
  api::AnnotationChanges workloadAnnotations;  // safety::annotationsAfterRevert
  safety::RevertReason reason = safety::RevertReason::kOomKill;
  std::string container;  // the container that violated; empty for notready
  std::string message;    // the verdict's sentence
  std::string guardrail;  // reason kSlo: the guardrail breached
};

// Restores the original resources of a pod whose resize the kubelet refused.
struct RestoreAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  safety::ResizeRecord record;
  std::vector<api::ContainerResize> restore;
  api::AnnotationChanges clearRecord;
  std::string refusal;  // "Infeasible" (PodResizePending) or "Error" (PodResizeInProgress)
};

// Ends the observation of a resized pod without touching its resources.
struct EndObservationAction {
  enum class Outcome {
    kSafe,           // the observation period passed without a violation
    kViolationKept,  // a violation, kept because autoRevert is off
    kNeverApplied,   // the pod is at its recorded originals and no request can still land
  };
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  Outcome outcome = Outcome::kSafe;
  api::AnnotationChanges clearRecord;
  api::AnnotationChanges workloadAnnotations;  // kSafe: safety::annotationsAfterSafe
  std::optional<safety::RevertReason> reason;  // kViolationKept
  std::string container;
  std::string message;
  std::string guardrail;  // reason kSlo: the guardrail breached
};

// Where a workload's Canary rollout stands after the plan (status.canary).
enum class CanaryPhase {
  kInProgress,   // canary pods are being resized, observed, or wait for promotion
  kFullRollout,  // past its canaries: the rest follow as in Auto (or every pod is at target)
};

struct CanaryProgress {
  api::WorkloadRef workload;
  CanaryPhase phase = CanaryPhase::kInProgress;
  // kInProgress: the canary pods (at target, under observation or resized by this plan), in
  // name order; empty for kFullRollout (which pods were the canaries is no longer visible).
  std::vector<std::string> pods;
  bool operator==(const CanaryProgress&) const = default;
};

// Startup boost (startup_boost.h): raises a young pod's CPU in place, without a resize record.
inline constexpr std::string_view kStartupBoostReason = "StartupBoost";
inline constexpr std::string_view kStartupBoostEndedReason = "StartupBoostEnded";
struct StartupBoostAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  std::string podResourceVersion;      // the precondition of the annotation patch
  api::AnnotationChanges annotations;  // startup-boost-at and the CPU before: written first
  std::vector<api::ContainerResize> containers;  // for resizePod
  std::vector<ResourceChange> changes;           // cpu only
  std::string message;
};
// Returns a boosted pod's CPU to the steady recommendation (or the recorded CPU), then removes
// the boost annotations.
struct EndStartupBoostAction {
  api::WorkloadRef workload;  // the workload the action is about
  std::string pod;
  std::vector<api::ContainerResize> containers;  // empty: only the annotations go
  std::vector<ResourceChange> changes;
  api::AnnotationChanges clearBoost;
  std::string message;
};

using Action = std::variant<RevertAction, RestoreAction, EndObservationAction, ResizeAction,
                            SkipAction, DeferAction, EventAction, HpaRetuneAction, EvictAction,
                            StartupBoostAction, EndStartupBoostAction>;

struct Plan {
  std::vector<Action> actions;
  // Pod counts over the policy's running pods (each pod counted once at most):
  int atTarget = 0;          // already at their target (not under observation)
  int underObservation = 0;  // carrying a resize record: resizes in flight
  int waiting = 0;  // need a resize, but the mode or maxConcurrentResizes left no room this pass
  std::optional<Duration> requeueAfter;  // the soonest requeue any action asks for
  // Canary mode: each workload the planner reached the canary stage for (not one skipped for an
  // opt-out, a rollout in progress, a cooldown or without a recommendation).
  std::vector<CanaryProgress> canaries;
  // ResizeBlocked condition (status True, reason PodsDeferred, PodsInfeasible or
  // PodsDeferredAndInfeasible) when pods report a Deferred or Infeasible resize; nullopt means
  // the condition should be removed. lastTransitionTime is left for safety::setCondition.
  std::optional<api::Condition> resizeBlocked;
  // ScheduleBlocked condition (rollout/resize_schedule.h) while updateStrategy.schedule keeps
  // new resizes back; nullopt: remove it.
  std::optional<api::Condition> scheduleBlocked;

  // Asks for the policy to be reconciled again `after` from now (the soonest request wins).
  void requeue(std::optional<Duration> after) {
    if (after && (!requeueAfter || *after < *requeueAfter)) requeueAfter = after;
  }

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
