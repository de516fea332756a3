// Writes the controller's Kubernetes Events, deduplicated as client-go's EventCorrelator does:
// an event identical to one already written (same object, type, reason and message) bumps that
// event's count and lastTimestamp instead of creating another. Like the correlator's LRU cache,
// the recorder remembers a bounded number of written events (kRememberedEvents by default): the
// least recently written is forgotten first, and an event identical to a forgotten one is
// created anew (as after an API server's event TTL). So a long-running controller's memory does
// not grow with every distinct message it ever wrote (a Resized message carries its values).
#pragma once

#include <algorithm>
#include <cstddef>
#include <list>
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

// client-go's maxLruCacheEntries.
inline constexpr std::size_t kRememberedEvents = 4096;

class EventRecorder {
 public:
  // `api` and `clock` must outlive the recorder. Not thread-safe. `remembered` (at least 1)
  // bounds the written events kept for bumping.
  EventRecorder(api::ClusterApi& api, Clock& clock, std::size_t remembered = kRememberedEvents)
      : api_(api), clock_(clock), remembered_(std::max<std::size_t>(remembered, 1)) {}

  // Records an event about `object` (its kind, namespace, name and uid are used). The event
  // lives in the object's namespace ("default" for cluster-scoped objects). When the stored
  // duplicate is gone or has changed under us, a new event is created.
  Result<api::Event> record(const api::ObjectReference& object, std::string_view type,
                            std::string_view reason, std::string_view message);

  // The reportingInstance of the events created from now on (the replica's identity, so that
  // what each replica did can be told apart); empty: none.
  void setReportingInstance(std::string instance) { reportingInstance_ = std::move(instance); }

  // Written events remembered for bumping (at most the bound given at construction).
  std::size_t remembered() const { return written_.size(); }

  // Events written (created or bumped) so far, by reason.
  const std::map<std::string, std::int64_t, std::less<>>& countsByReason() const {
    return countsByReason_;
  }

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string, std::string,
                         std::string, std::string>;

  struct Written {
    api::Event event;
    std::list<const Key*>::iterator recency;  // its place in recency_
  };
  // Makes `it` the most recently written; forgets the least recent beyond the bound.
  void touch(std::map<Key, Written>::iterator it);

  api::ClusterApi& api_;
  Clock& clock_;
  std::size_t remembered_;
  std::map<Key, Written> written_;
  std::list<const Key*> recency_;  // written_'s keys, the most recently written first
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
