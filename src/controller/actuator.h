// The Actuator: the one place a Plan is written to the cluster. Each action is carried out
// with the crash-safe ordering rollout/plan.h describes (a pod's originals annotated before its
// resize; a lost answer read back before anything else; a record kept while a request may
// still land). It writes and reports what happened; it books nothing (see ActionRecorder).
#pragma once

#include <optional>
#include <set>
#include <span>
#include <string>

#include "api/cluster_api.h"
#include "rollout/plan.h"

namespace attune::controller {

// What carrying out one action came to.
struct ActionOutcome {
  enum class Status {
    kApplied,       // the action's main write was made (or needed none)
    kFailed,        // the main write failed; `error` says why
    kNotAttempted,  // a precondition failed before anything was written (e.g. the pod changed
                    // since the snapshot): the next pass decides again, nothing is booked
  };
  Status status = Status::kApplied;
  std::string error;
  // For a failed resize: the record was removed again (a refusal). After a transport failure
  // the record stays, so the originals are never lost.
  bool recordCleared = false;
  // For a failed eviction: a PodDisruptionBudget refused it (the pod stays).
  bool refusedByBudget = false;

  bool applied() const { return status == Status::kApplied; }
};

// Whether carrying out `action` writes to the cluster (skips, deferrals and events do not: the
// recorder books them).
bool writes(const rollout::Action& action);

class Actuator {
 public:
  // `api` must outlive the actuator. Not thread-safe.
  explicit Actuator(api::ClusterApi& api) : api_(api) {}

  // Actions are carried out in plan order; an HpaRetuneAction is not attempted when a pod
  // action of its workload earlier in the same plan (this actuator's lifetime) was not applied.
  ActionOutcome carryOut(const rollout::Action& action);

 private:
  ActionOutcome carryOut(const rollout::RevertAction& action);
  ActionOutcome carryOut(const rollout::RestoreAction& action);
  ActionOutcome carryOut(const rollout::EndObservationAction& action);
  ActionOutcome carryOut(const rollout::ResizeAction& action);
  ActionOutcome carryOut(const rollout::EvictAction& action);
  ActionOutcome carryOut(const rollout::HpaRetuneAction& action);
  ActionOutcome carryOut(const rollout::StartupBoostAction& action);
  ActionOutcome carryOut(const rollout::EndStartupBoostAction& action);

  // resizePod, counting a transport failure whose request did land (the pod, read again, has
  // the requested values) as success.
  Result<void> resize(const std::string& ns, const std::string& pod,
                      std::span<const api::ContainerResize> containers);
  // Writes `annotations` on the pod (at `resourceVersion`), then resizes it: what a resize
  // replaces is stored before the pod changes. nullopt when both landed; otherwise the outcome
  // (not attempted when the annotations did not land; failed, with the annotations taken back
  // when the resize was refused).
  std::optional<ActionOutcome> annotateThenResize(const api::WorkloadRef& workload,
                                                  const std::string& pod,
                                                  const api::AnnotationChanges& annotations,
                                                  const std::string& resourceVersion,
                                                  std::span<const api::ContainerResize> containers);
  // Puts the recorded originals back and removes the record; the record stays when the restore
  // fails.
  ActionOutcome restore(const api::WorkloadRef& workload, const std::string& pod,
                        std::span<const api::ContainerResize> originals,
                        const api::AnnotationChanges& clearRecord);
  void patchPod(const api::WorkloadRef& workload, const std::string& pod,
                const api::AnnotationChanges& changes);
  void patchWorkload(const api::WorkloadRef& workload, const api::AnnotationChanges& changes);

  api::ClusterApi& api_;
  // Workloads with a resize, revert or restore in this plan that was not applied.
  std::set<api::WorkloadRef> unsettled_;
};

}  // namespace attune::controller
