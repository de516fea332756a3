// The recorder: the one place an executed action is booked. For each Plan entry and the
// Actuator's outcome it writes the Kubernetes Event, the policy status' history entries (and
// lastResizeTime), the operator metrics and the notification to the ActionObserver — the
// bookkeeping rollout/plan.h lists per action, written once for every kind of action.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include "api/policy/attune_policy.h"
#include "controller/actuator.h"
#include "controller/cluster_snapshot.h"
#include "controller/controller.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "controller/target_resolution.h"
#include "rollout/plan.h"
#include "safety/resize_record.h"

namespace attune::controller {

// The skip last recorded per "workload/pod" (pod empty: the whole workload), so that a skip
// repeated pass after pass is recorded once. Memory only: after a restart the history's latest
// entry serves the same purpose.
using SkipMemory = std::map<std::string, std::string, std::less<>>;

class ActionRecorder {
 public:
  struct Context {
    EventRecorder& events;
    OperatorMetrics& metrics;
    const ActionObserver& observer;
    const ClusterSnapshot& snapshot;          // the pods and workloads events are about
    std::span<const TargetWorkload> targets;  // the workloads' metadata, as the snapshot shows
    std::string policy;                       // "namespace/name"
    std::size_t historyLimit;                 // at least 5 entries are kept
    Time now;
  };

  // `status` and `skips` are updated in place; both must outlive the recorder.
  ActionRecorder(Context context, api::AttunePolicyStatus& status, SkipMemory& skips)
      : ctx_(std::move(context)), status_(status), skips_(skips) {}

  void record(const rollout::Action& action, const ActionOutcome& outcome);

 private:
  void record(const rollout::RevertAction& action, const ActionOutcome& outcome);
  void record(const rollout::RestoreAction& action, const ActionOutcome& outcome);
  void record(const rollout::EndObservationAction& action, const ActionOutcome& outcome);
  void record(const rollout::ResizeAction& action, const ActionOutcome& outcome);
  void record(const rollout::SkipAction& action, const ActionOutcome& outcome);
  void record(const rollout::DeferAction& action, const ActionOutcome& outcome);
  void record(const rollout::EventAction& action, const ActionOutcome& outcome);
  void record(const rollout::EvictAction& action, const ActionOutcome& outcome);
  void record(const rollout::StartupBoostAction& action, const ActionOutcome& outcome);
  void record(const rollout::EndStartupBoostAction& action, const ActionOutcome& outcome);
  void record(const rollout::HpaRetuneAction& action, const ActionOutcome& outcome);

  // A restore of the originals that failed: the record stays and the restore is retried.
  void restoreFailed(const api::WorkloadRef& workload, const std::string& pod,
                     const ActionOutcome& outcome);
  // The Success (or Applied) history entries of the record's resize become Reverted (or, when
  // trimmed from the bounded history, one Reverted entry per recorded container is added).
  void markReverted(const std::string& pod, const safety::ResizeRecord& record,
                    std::string_view reason);
  void addHistory(api::ResizeHistoryEntry entry);
  void countResize(const api::WorkloadRef& workload, std::string_view resource,
                   std::string_view result);
  // One count of `result` per container and resource that `record`'s resize changed.
  void countRecordedResources(const api::WorkloadRef& workload, const safety::ResizeRecord& record,
                              std::string_view result);
  // An event about the pod (or, when it is not in the snapshot or `pod` is empty, about the
  // workload).
  void event(const api::WorkloadRef& workload, const std::string& pod, std::string_view type,
             std::string_view reason, std::string_view message);
  void notify(ActionRecord::Kind kind, const api::WorkloadRef& workload, std::string pod,
              std::string container, std::string reason, std::string detail);
  // After a resize or a revert the next skip of the workload or pod is news again.
  void forgetSkips(const std::string& workload, const std::string& pod);

  Context ctx_;
  api::AttunePolicyStatus& status_;
  SkipMemory& skips_;
};

}  // namespace attune::controller
