// The part of a pass's Plan that ends observations: from each pod carrying a resize record and
// the safety monitor's verdict on it, the revert, restore or end of observation to carry out.
// Pure: values in, Plan entries out; `now` is an input; no I/O.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string_view>

#include "api/k8s/meta.h"
#include "api/k8s/pod.h"
#include "core/time.h"
#include "rollout/plan.h"
#include "safety/resize_record.h"
#include "safety/safety_monitor.h"

namespace attune::rollout {

// How long a write whose outcome is unknown (a timeout, a lost answer) may still be applied: the
// API server's request timeout (60 s by default), with a margin.
inline constexpr Duration kInFlightGrace = std::chrono::minutes(2);

// Where the resize a record describes stands, read from the pod alone.
enum class RecordState {
  // Every recorded container is at its recorded originals: the resize never reached the pod
  // (its request failed, or the answer to the record's patch or to the resize was lost and the
  // record could not be removed), or a restore was applied but the record could not be removed.
  kAtOriginals,
  // The kubelet refused the resize: PodResizePending/Infeasible or PodResizeInProgress/Error.
  kRefused,
  // Otherwise: the safety monitor judges the pod.
  kToJudge,
};
RecordState recordState(const api::Pod& pod, const safety::ResizeRecord& record);

// One pod under observation, as the pass saw it.
struct ObservedPod {
  api::WorkloadRef workload;
  const api::Pod* pod = nullptr;  // must outlive planObservations
  safety::ResizeRecord record;
  // The monitor's verdict; set exactly when recordState(pod, record) is kToJudge.
  std::optional<safety::Verdict> verdict;
};

// Appends the action each observed pod calls for, in the given order:
//  - kAtOriginals: EndObservation(kNeverApplied) once kInFlightGrace has passed since
//    resizedAt (before that a request may still land: nothing);
//  - kRefused: Restore, with refusal "Infeasible" or "Error";
//  - verdict kObserving: nothing; kSafe: EndObservation(kSafe) with annotationsAfterSafe;
//    kViolationKept: EndObservation(kViolationKept); kRevert: Revert, with the cooldown
//    annotations after a revert computed from `workloads`.
// `workloads` holds the metadata of the workloads concerned; the workload annotations each
// action plans are applied to it, so a later entry (a second revert of the same workload, or
// the rollout planned after these) sees them. A workload missing from the map is added empty.
void planObservations(std::span<const ObservedPod> pods,
                      std::map<api::WorkloadRef, api::ObjectMeta>& workloads, Time now, Plan& plan);

// `meta` with `changes` applied (set, or erased for nullopt).
void applyAnnotationChanges(api::ObjectMeta& meta, const api::AnnotationChanges& changes);

}  // namespace attune::rollout
