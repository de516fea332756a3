// WatchLog: the REST front end's bounded record of the changes to every object it serves (the
// typed stores of the simulation and the OpaqueStore), in resourceVersion order, from which
// watch streams of any kind are served and continue tokens are checked. It keeps the newest
// `capacity` events; a watch from a resourceVersion older than what is kept is answered 410
// Gone, as the API server answers once etcd has compacted. Not thread-safe: SimHost's lock
// guards it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"

namespace attune::sim::serve {

// One change: the object as it was written (for a deletion, as last seen, with the deletion's
// resourceVersion), encoded once for every stream.
struct LoggedEvent {
  std::uint64_t resourceVersion = 0;
  std::string resource;  // qualified resource name: "pods", "deployments.apps"
  api::WatchEventType type = api::WatchEventType::kAdded;
  std::string ns;  // "" for cluster-scoped objects
  std::string name;
  api::StringMap labels;
  std::string json;
};

class WatchLog {
 public:
  // Keeps at most `capacity` (> 0) events. `floor` is the cluster's resourceVersion when the
  // log starts: a watch may resume from it or anything later.
  WatchLog(std::size_t capacity, std::uint64_t floor);

  // Called with each event's resource as it is added (a watch stream's wake-up).
  std::function<void(std::string_view resource)> onAppend;

  // Adds an event in resourceVersion order (usually the newest; a write made while another
  // write is being reported comes first); its resourceVersion must exceed floor() and be
  // unique. Drops the oldest event beyond the capacity (raising floor() to its
  // resourceVersion). Every event must be added before the lock that covers the writes is
  // released, so that readers never see a gap.
  void append(LoggedEvent event);

  // The oldest resourceVersion a watch can resume from: every change after it is kept.
  std::uint64_t floor() const { return floor_; }
  // The resourceVersion of the newest event (floor() when empty).
  std::uint64_t latest() const { return events_.empty() ? floor_ : events_.back().resourceVersion; }
  std::size_t size() const { return events_.size(); }

  // Calls fn(const LoggedEvent&) for every event after `after`, oldest first. False (and no
  // call) when `after` is older than floor(): the changes since then are no longer known.
  template <typename Fn>
  bool forEachAfter(std::uint64_t after, Fn&& fn) const {
    if (after < floor_) return false;
    for (auto it = firstAfter(after); it != events_.end(); ++it) fn(*it);
    return true;
  }

  // Whether `resource` changed after `after`; nullopt when `after` is older than floor().
  std::optional<bool> changedSince(std::string_view resource, std::uint64_t after) const;

 private:
  std::deque<LoggedEvent>::const_iterator firstAfter(std::uint64_t after) const;

  std::size_t capacity_;
  std::uint64_t floor_;
  std::deque<LoggedEvent> events_;
};

// The numeric value of a resourceVersion the cluster handed out; kInvalidArgument (field
// "resourceVersion") when it is not a decimal number.
Result<std::uint64_t> parseResourceVersion(std::string_view text);

}  // namespace attune::sim::serve
