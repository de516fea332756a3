// Writes the controller's Kubernetes Events, deduplicated as client-go's EventCorrelator does:
// an event identical to one already written (same object, type, reason and message) bumps that
// event's count and lastTimestamp instead of creating another.
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "core/error.h"

namespace attune::controller {

inline constexpr std::string_view kEventComponent = "attune-controller";

// Event reasons. The public operator's: a pod resized in place (Normal), a resize that failed or
// was refused by the kubelet, a resize skipped by a pre-check or cooldown, a resize reverted
// after a safety violation, and a resize the kubelet reports Infeasible on the pod's node.
inline constexpr std::string_view kResizedReason = "Resized";
inline constexpr std::string_view kResizeFailedReason = "ResizeFailed";
inline constexpr std::string_view kResizeSkippedReason = "ResizeSkipped";
inline constexpr std::string_view kRevertedReason = "Reverted";
inline constexpr std::string_view kInfeasibleBlockedReason = "InfeasibleBlocked";
// Ours (docs/parity.md lists them with the rest: rollout/plan.h's HPAConflict, HPARetuned,
// Evicted, EvictionBlocked; admission_bypass.h's, hpa_guard.h's and node_load_monitor.h's):
// a violation kept because autoRevert is off, an eviction that failed, an HPA write that failed.
inline constexpr std::string_view kSafetyViolationReason = "SafetyViolation";
inline constexpr std::string_view kEvictionFailedReason = "EvictionFailed";
inline constexpr std::string_view kHpaRetuneFailedReason = "HPARetuneFailed";

class EventRecorder {
 public:
  // `api` and `clock` must outlive the recorder. Not thread-safe.
  EventRecorder(api::ClusterApi& api, Clock& clock) : api_(api), clock_(clock) {}

  // Records an event about `object` (its kind, namespace, name and uid are used). The event
  // lives in the object's namespace ("default" for cluster-scoped objects). When the stored
  // duplicate is gone or has changed under us, a new event is created.
  Result<api::Event> record(const api::ObjectReference& object, std::string_view type,
                            std::string_view reason, std::string_view message);

  // The reportingInstance of the events created from now on (the replica's identity, so that
  // what each replica did can be told apart); empty: none.
  void setReportingInstance(std::string instance) { reportingInstance_ = std::move(instance); }

  // Events written (created or bumped) so far, by reason.
  const std::map<std::string, std::int64_t, std::less<>>& countsByReason() const {
    return countsByReason_;
  }

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string,
                         std::string, std::string>;

  api::ClusterApi& api_;
  Clock& clock_;
  std::map<Key, api::Event> written_;
  std::map<std::string, std::int64_t, std::less<>> countsByReason_;
  std::string reportingInstance_;
};

// An ObjectReference to a pod or another namespaced object.
api::ObjectReference referenceTo(std::string_view apiVersion, std::string_view kind,
                                 const api::ObjectMeta& meta);
// An ObjectReference to the workload `ref` whose metadata is `meta` (batch/v1 for Jobs and
// CronJobs, apps/v1 for the others).
api::ObjectReference referenceToWorkload(const api::WorkloadRef& ref, const api::ObjectMeta& meta);

}  // namespace attune::controller
