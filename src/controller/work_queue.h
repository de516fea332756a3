// The controller's work queue: policy keys ("namespace/name"), each waiting for the time it is
// due, as controller-runtime's rate-limited queue holds reconcile requests. A key is queued at
// most once, at the earliest time anyone asked for; popping hands out every key that is due.
// Plain data over a Time the caller passes: the operator drives it with the wall clock, the
// simulator and the tests with a SimulatedClock. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/time.h"

namespace attune::controller {

class WorkQueue {
 public:
  // Queues `key` for `due`; a key already queued keeps the earlier of its two times.
  void add(const std::string& key, Time due);
  // Removes `key` (a policy that is gone).
  void forget(std::string_view key);
  // Removes and returns every key due at or before `now`, soonest first (ties by key).
  std::vector<std::string> popDue(Time now);
  // The soonest due time, or nullopt when nothing is queued.
  std::optional<Time> nextDue() const;
  // When `key` is due, or nullopt when it is not queued.
  std::optional<Time> dueOf(std::string_view key) const;
  std::size_t size() const { return order_.size(); }

 private:
  // Every key queued since it was last forgotten, with when it is due (nullopt: not queued now).
  // Kept while popped, so that the controller's passes, which queue every policy again, make no
  // new key (a pass pops and queues about one key per policy).
  using Keys = std::map<std::string, std::optional<Time>, std::less<>>;
  struct Soonest {  // by time, then key
    bool operator()(const std::pair<Time, Keys::iterator>& a,
                    const std::pair<Time, Keys::iterator>& b) const {
      if (a.first != b.first) return a.first < b.first;
      return a.second->first < b.second->first;
    }
  };
  Keys keys_;
  std::set<std::pair<Time, Keys::iterator>, Soonest> order_;  // the queued keys
};

}  // namespace attune::controller
