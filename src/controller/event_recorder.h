// Writes the controller's Kubernetes Events, deduplicated as client-go's EventCorrelator does:
// an event identical to one already written (same object, type, reason and message) bumps that
// event's count and lastTimestamp instead of creating another. Like the correlator's LRU cache,
// the recorder remembers a bounded number of written events (kRememberedEvents by default): the
// least recently written is forgotten first, and an event identical to a forgotten one is
// created anew (as after an API server's event TTL). So a long-running controller's memory does
// not grow with every distinct message it ever wrote (a Resized message carries its values).
//
// Held (hold(), for the reasons it is given), record() only queues the event, and flush() writes
// the queue later, oldest first: like client-go's EventBroadcaster, whose recorder hands events
// to a background sender, a reconcile pass does not wait on those Events. An event recorded again
// while queued is one write with the added count. Nothing queued is dropped: beyond kHeldEvents
// the oldest is written at once.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <limits>
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
// Queued events at most while held (more are written as they come).
inline constexpr std::size_t kHeldEvents = 4096;

class EventRecorder {
 public:
  // `api` and `clock` must outlive the recorder. Not thread-safe. `remembered` (at least 1)
  // bounds the written events kept for bumping.
  EventRecorder(api::ClusterApi& api, Clock& clock, std::size_t remembered = kRememberedEvents)
      : api_(api), clock_(clock), remembered_(std::max<std::size_t>(remembered, 1)) {}

  // Records an event about `object` (its kind, namespace, name and uid are used). The event
  // lives in the object's namespace ("default" for cluster-scoped objects). When the stored
  // duplicate is gone or has changed under us, a new event is created. Held, the event is
  // queued and returned as it will be written (no name yet); a write it forces (the queue
  // full) may fail.
  Result<api::Event> record(const api::ObjectReference& object, std::string_view type,
                            std::string_view reason, std::string_view message);

  // Holds the events recorded from now on whose reason `held` accepts for flush(), and writes
  // the others as they are recorded; empty: none is held (what is queued stays queued).
  void hold(std::function<bool(std::string_view reason)> held) { hold_ = std::move(held); }
  struct Flushed {
    std::size_t sent = 0;    // write requests made
    std::size_t failed = 0;  // of those, failed (the event is not retried)
  };
  // Writes queued events, oldest first: at most `limit`, and none started once `slice` has
  // passed on the clock since the call began.
  Flushed flush(std::size_t limit = std::numeric_limits<std::size_t>::max(),
                Duration slice = Duration::max());
  // Events queued and not yet written.
  std::size_t held() const { return queued_.size(); }

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
  // An event recorded `times` times while queued, first at `first` and last at `last`.
  struct Queued {
    api::ObjectReference object;
    Time first;
    Time last;
    std::int32_t times = 1;
    std::list<const Key*>::iterator order;  // its place in queue_
  };
  // Makes `it` the most recently written; forgets the least recent beyond the bound.
  void touch(std::map<Key, Written>::iterator it);
  // Writes the event `key` names, recorded `times` times between `first` and `last`: a bump of
  // the remembered one, else a new event.
  Result<api::Event> write(Key key, const api::ObjectReference& object, Time first, Time last,
                           std::int32_t times);
  // Writes and forgets the oldest queued event.
  Result<api::Event> writeOldest();

  api::ClusterApi& api_;
  Clock& clock_;
  std::size_t remembered_;
  std::map<Key, Written> written_;
  std::list<const Key*> recency_;  // written_'s keys, the most recently written first
  std::function<bool(std::string_view reason)> hold_;
  std::map<Key, Queued> queued_;
  std::list<const Key*> queue_;  // queued_'s keys, the oldest first
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
