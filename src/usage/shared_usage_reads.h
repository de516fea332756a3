// SharedUsageReads: the usage reads of one controller pass, shared by the policies that read the
// same source and namespace at the same step. Each policy's history asks for its own ReadRange
// (UsageHistory::nextRead); without sharing, 50 policies of one namespace send 50 identical
// namespace-wide queries per metric. Here the first reader of a (source, namespace, step) reads
// once, for every range announced for it (expect()), and every reader takes its own range and its
// own containers out of that reading.
//
// Rules:
// - One read per (source, namespace, step) and pass when every reader announced its range before
//   the first read: samples over [the earliest start floored to the step grid, the latest end],
//   OOM kills from one step earlier, one query per metric (readUsage). A range beyond what was
//   read (an unannounced reader, or a `now` that crossed a step during the pass) reads only the
//   part that is missing, before or after.
// - Readings stay on the step grid: a range query evaluates each step on its own, so the points
//   a reader takes are those its own query would have returned. Ranges whose end is not on the
//   grid, scopes of several namespaces or of all of them, are read on their own (readUsage).
// - Exclusions: the shared query leaves out only the containers every announced reader excludes
//   (the intersection of their Scope::excludedContainers); each reader then gets only what its
//   own scope includes, so a container it excludes is never returned to it. A reader whose scope
//   includes a container the shared query left out is read on its own.
// - Fail closed: a failed read fails every later reader of the same (source, namespace, step) in
//   this pass with the same error; nothing is retried until the next pass (a new object).
// - Memory: a reading is dropped as soon as every announced reader has taken its part.
//
// One object per pass, called from one thread: prefetch()'s threads touch only the entries handed
// to them, and a call that needs one of those waits for it alone. The sources must outlive it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "metrics/metrics_source.h"
#include "usage/usage_reading.h"

namespace attune::usage {

// Orders containers as ContainerId's <=> does, and also compares them with a (namespace, pod)
// pair, so that a pod's first container is found without building an id.
struct ContainerOrder {
  using is_transparent = void;
  struct Pod {
    std::string_view ns;
    std::string_view pod;
  };
  bool operator()(const metrics::ContainerId& a, const metrics::ContainerId& b) const {
    return a < b;
  }
  bool operator()(const metrics::ContainerId& a, const Pod& b) const {
    return std::tie(a.ns, a.pod) < std::tie(b.ns, b.pod);
  }
  bool operator()(const Pod& a, const metrics::ContainerId& b) const {
    return std::tie(a.ns, a.pod) < std::tie(b.ns, b.pod);
  }
};
// A reading's series, by container.
using SeriesByContainer =
    std::map<metrics::ContainerId, std::vector<metrics::Point>, ContainerOrder>;

// Which containers of a reading one reader wants (e.g. its target pods'); empty: all in scope.
using ContainerFilter = std::function<bool(const metrics::ContainerId& container)>;

class SharedUsageReads {
 public:
  // Announces that read(source, scope, range) will be called in this pass.
  void expect(metrics::MetricsSource& source, const metrics::Scope& scope, const ReadRange& range);

  // The reading of `scope` over `range`, as readUsage(source, scope, range) would return it,
  // restricted to the containers `wanted` accepts: taken from the shared reading (read first
  // when needed), or read on its own where the rules above say so. Each call counts as one of
  // the readers announced for its (source, namespace, step).
  // `pods`, when given, names the only pods of the namespace the reader can want (sorted): its
  // part is then looked up pod by pod instead of `wanted` being asked for every container of
  // the namespace.
  Result<UsageReading> read(metrics::MetricsSource& source, const metrics::Scope& scope,
                            const ReadRange& range, const ContainerFilter& wanted = {},
                            const std::vector<std::string_view>* pods = nullptr);
  // The same reading, given to `user` in place instead of copied out (the shared reading's
  // points are only seen, so a reader's part costs no copy): `user` is called once when the
  // read succeeds, and the view is valid during that call only.
  Result<void> use(metrics::MetricsSource& source, const metrics::Scope& scope,
                   const ReadRange& range, const ViewUser& user, const ContainerFilter& wanted = {},
                   const std::vector<std::string_view>* pods = nullptr);

  // Queues, for reading in the background, the first read of every announced (source,
  // namespace, step) not read nor queued yet whose source offers a parallelCopy(): up to
  // `parallel` threads per source, each reading through a copy of the source of its own (so the
  // source itself stays free for the caller, e.g. throttleRatio()). Threads and copies are kept
  // for this object's life: a later prefetch() queues its reads behind those already queued, so
  // a caller can announce and prefetch one group of readers while it serves the group before.
  // Each reading (or error) is the one the first reader's read() would have made; readers then
  // take their parts as usual. read() and expect() of an entry being read wait for that read
  // alone; of an entry still queued, take it back (read() then reads it itself). Reads of
  // sources without copies, and all reads when `parallel` ≤ 1, are left to read().
  void prefetch(std::size_t parallel);
  // Waits until every read queued by prefetch() is done.
  void waitPrefetch();

  // The CPU throttle ratios of `scope` over `range` (the safety checks' read at the end of an
  // observation period): one query per (source, namespace, range, excluded containers) and pass,
  // its answer (or its error) kept for the rest of the pass (one point per container of the
  // namespaces whose policies judge a resize). Scopes of several namespaces are read on their
  // own.
  Result<std::vector<metrics::ContainerSeries>> throttleRatio(metrics::MetricsSource& source,
                                                              const metrics::Scope& scope,
                                                              const metrics::Range& range);

  // Reads sent to sources (each one query per metric), and readers served.
  std::size_t sourceReads() const { return sourceReads_; }
  std::size_t readsServed() const { return readsServed_; }

 private:
  using Key = std::tuple<metrics::MetricsSource*, std::string, Duration>;
  using Points = SeriesByContainer;
  struct Entry {
    std::set<std::string> excluded;  // left out by the shared query
    std::optional<Time> wantStart;   // the announced ranges' union (samples)
    std::optional<Time> wantEnd;
    std::optional<Time> start;  // what was read (samples; OOM kills from start - step)
    std::optional<Time> end;
    Points cpu, psi, memory;
    std::map<std::pair<metrics::ContainerId, Time>, Bytes> oomKills;
    std::optional<Error> failed;
    std::size_t expected = 0;  // announced readers still to come
    // Handed to a prefetch thread (guarded by mutex_): queued, or being read by it.
    enum class Prefetch { kNo, kQueued, kReading } prefetch = Prefetch::kNo;
  };
  // A read queued for a prefetch thread: its entry, the entry's key parts, the samples' span.
  struct Task {
    Entry* entry;
    const std::string* ns;
    Duration step;
    Time start;
    Time end;
  };
  // One source's prefetch threads, each reading through a copy of its own, and their queue.
  struct Pool {
    std::vector<std::unique_ptr<metrics::MetricsSource>> copies;
    std::deque<Task> queue;
    std::size_t reading = 0;            // reads its threads are making now
    std::vector<std::jthread> threads;  // last: joined before the copies go
  };

  static bool shareable(const metrics::Scope& scope, const ReadRange& range);
  // Reads samples over [start, end] into `entry`; false (entry.failed set) on an error.
  bool fetch(metrics::MetricsSource& source, Entry& entry, const std::string& ns, Time start,
             Time end, Duration step);
  // A prefetch thread: reads its pool's queue through `through` until stopped.
  void work(Pool& pool, metrics::MetricsSource& through, const std::stop_token& stop);
  // Leaves `entry` to the caller: taken back from its queue when not started, waited for when
  // being read.
  void settle(const Key& key, Entry& entry);

  std::map<Key, Entry> entries_;
  using ThrottleKey = std::tuple<const metrics::MetricsSource*, std::string, Time, Time, Duration,
                                 std::set<std::string>>;
  std::map<ThrottleKey, Result<std::vector<metrics::ContainerSeries>>> throttle_;
  std::atomic<std::size_t> sourceReads_ = 0;  // counted by prefetch()'s threads too
  std::size_t readsServed_ = 0;
  // prefetch()'s threads, by source, kept for the pass so that every group reuses their
  // connections (declared last: stopped and joined first).
  std::mutex mutex_;
  std::condition_variable_any changed_;  // a read queued, a read done
  std::size_t queued_ = 0;               // reads queued or being read
  std::map<metrics::MetricsSource*, Pool> pools_;
};

}  // namespace attune::usage
