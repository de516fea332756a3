// The rollout planner: from a policy, its workloads and pods, their recommendations and the
// namespace's and nodes' constraints, decides which pods to resize now, which to skip and
// which to wait for. Pure: values in, a Plan out; `now` is an input; no I/O.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/k8s/hpa.h"
#include "api/k8s/node.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "core/time.h"
#include "core/time_zone.h"
#include "rollout/memory_limit_decrease.h"
#include "rollout/plan.h"
#include "rollout/pod_targets.h"
#include "safety/observation.h"

namespace attune::rollout {

// One workload the policy targets.
struct WorkloadInput {
  api::WorkloadKind kind = api::WorkloadKind::kDeployment;
  api::ObjectMeta metadata;  // name, namespace, annotations (skip, cooldown state)
  // Desired and updated replicas; updatedReplicas < replicas means a rollout is in progress.
  // Jobs and CronJobs never roll out (both 0).
  std::int32_t replicas = 0;
  std::int32_t updatedReplicas = 0;
  // Its pods (any phase; only Running pods without a deletionTimestamp are considered). The
  // pointers must outlive the call.
  std::vector<const api::Pod*> pods;
  // Recommended requests per container; a container without enough data is absent.
  ContainerTargets targets;
  // Node optimisation (node_optimisation.h): when true, each pod is sized by its own entry here
  // (by pod name; LimitRule::kNodeOptimisation) instead of `targets`, and a pod without an entry
  // is not resized.
  bool perPodTargets = false;
  std::map<std::string, ContainerTargets, std::less<>> podTargets;
  // The newest usage sample behind `targets` (rollout/freshness.h); nullopt: unknown.
  std::optional<Time> lastDataTime;

  bool rollingOut() const { return updatedReplicas < replicas; }
  api::WorkloadRef id() const { return api::workloadRef(kind, metadata.namespace_, metadata.name); }
};

// Everything one planning pass reads. Spans must outlive the call.
struct RolloutInput {
  std::vector<WorkloadInput> workloads;  // planned in this order
  std::span<const api::LimitRange> limitRanges;
  std::span<const api::ResourceQuota> quotas;
  std::span<const api::Node> nodes;
  // The node of that name (nullptr: none), e.g. from an index of `nodes`; unset: `nodes` is
  // searched.
  std::function<const api::Node*(std::string_view name)> nodeNamed;
  std::span<const api::HorizontalPodAutoscaler> hpas;  // those Attune does not retune
  // Resizes in flight that the given pods may not show (e.g. just made and not yet visible).
  // The planner uses max(this, the pods carrying a resize record).
  int resizesInFlight = 0;
  // The zone of updateStrategy.schedule, loaded by the caller (core/time_zone.h); with a
  // schedule and no zone, `scheduleZoneError` says why it could not be loaded and no resize is
  // planned (fail closed).
  const TimeZone* scheduleZone = nullptr;
  std::string scheduleZoneError;
  // Memory limit decreases (memory_limit_decrease.h): the API server's version (nullopt when it
  // could not be read) and the current working set of the pods' containers.
  std::optional<api::ServerVersion> serverVersion;
  ContainerMemoryUsage memoryUsage;
};

struct RolloutOptions {
  safety::ObservationOptions observation;  // for requeue times of pods under observation
};

// Plans one pass for `policy` (spec defaulted by api::applyDefaults or not: unset fields mean
// their defaults).
//
// Modes: paused, Observe and Recommend give an empty plan. Otherwise:
//  - OneShot: at most one resize per pass;
//  - Auto: every eligible pod, with at most maxConcurrentResizes (default 1) resizes in flight,
//    counting pods still under observation (carrying a resize record) except, under
//    resizeMethod InPlaceOnly, those whose resize the kubelet has held Deferred for
//    kDeferredResizeTimeout (parked until their node has room; InPlaceOrRecreate evicts them:
//    recreate_fallback.h);
//  - Canary: per workload, first ceil(canary.percentage × running pods / 100) pods (at least
//    one; percentage unset means 10) are resized; once all of them are at the target and none
//    is under observation, the rest follow canary.observationPeriod after the last of them was
//    declared safe (attune.io/last-safe-time; else last-resize-time + the observation period),
//    and only when canary.autoPromote is true. Once more pods than the canaries run the
//    target, the workload has been promoted and the rest follow as in Auto. The in-flight limit
//    applies throughout.
// Per workload, in this order:
//  1. attune.io/skip: "true" on the workload: one Skip(OptOut) for the workload;
//  2. a rollout in progress: one Defer(ActiveRollout);
//  3. no recommended container (with per-pod targets: no pod with targets): nothing;
//     a Job or CronJob (batch_workloads.h, recommend-only): one Skip(BatchWorkload);
//  4. an HPA of `input.hpas` scaling it on cpu or memory: one HPAConflict Warning event, then
//     on (HPAs Attune retunes are not passed here; see controller/hpa_retunes.h);
//  4a. the recommendation is stale (rollout/freshness.h): one Skip(StaleRecommendation);
//  4b. updateStrategy.schedule has no window open (rollout/resize_schedule.h) and a pod needs a
//     resize: one Defer(OutsideSchedule) with requeueAfter = until the next window opens (the
//     plan's scheduleBlocked condition says until when, whether or not a pod waits);
//  5. cooldown (safety/cooldown.h): when no pod of the workload runs its target yet, or a
//     revert happened since the last safe verdict, and last-resize-time + cooldown ×
//     2^consecutiveReverts (capped at 16×) is still ahead: one Skip(Cooldown) with requeueAfter
//     = the remaining time. While some pod already runs the target and nothing has been
//     reverted, the remaining pods follow without waiting: the cooldown spaces new targets, the
//     mode and the in-flight limit pace one target's rollout. Malformed cooldown annotations:
//     Skip(InvalidAnnotation).
// Then per pod, in name order (non-running and deleted pods ignored):
//  6. a resize record (safety::hasResizeRecord): under observation, never resized again (a
//     malformed record also gives Skip(InvalidAnnotation));
//  7. attune.io/skip: "true" on the pod: Skip(OptOut);
//  8. PodResizePending or PodResizeInProgress present: Defer(ResizePending);
//  9. Ready condition present and not True: Defer(PodNotReady);
// 10. podChanges() empty (the workload's targets, or the pod's own under perPodTargets): at
//     target, nothing to do;
// 11. no room left under the mode and in-flight limit: counted in Plan::waiting;
// 12. QoS class would change: Skip(QoSChange);
// 13. LimitRange: Skip(LimitRange);
// 14. ResourceQuota headroom for increases (shared across the plan): Skip(ResourceQuota);
// 15. node allocatable (node not found: proceed): Skip(NodeCapacity);
// 15a. the pass's increase budget (maxTotalCpuIncrease, maxTotalMemoryIncrease; shared across
//     the plan, rollout/increase_budget.h): Skip(IncreaseBudget);
// 15a. a memory limit decrease the server's version refuses in place, or that would go below the
//     container's usage plus its margin: Skip(MemoryLimitDecrease / MemoryLimitUsageFloor);
// 16. otherwise Resize, with the record to write first (resizedAt = now).
Plan planRollout(const api::AttunePolicy& policy, const RolloutInput& input, Time now,
                 const RolloutOptions& options = {});

}  // namespace attune::rollout
