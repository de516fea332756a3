#include "usage/shared_usage_reads.h"

#include <algorithm>
#include <memory>
#include <thread>
#include <utility>

#include "usage/usage_history.h"

namespace attune::usage {
namespace {

// Adds `series` to `into`, each container's points kept in time order, one per timestamp.
void merge(std::vector<metrics::ContainerSeries>& series, SeriesByContainer& into) {
  for (metrics::ContainerSeries& s : series) {
    std::vector<metrics::Point>& points = into[s.id];
    if (points.empty()) {  // the usual case, a first read: taken, not copied
      points = std::move(s.points);
      continue;
    }
    const bool ordered = s.points.empty() || points.back().time < s.points.front().time;
    points.insert(points.end(), s.points.begin(), s.points.end());
    if (ordered) continue;
    std::stable_sort(points.begin(), points.end(),
                     [](const auto& a, const auto& b) { return a.time < b.time; });
    points.erase(std::unique(points.begin(), points.end(),
                             [](const auto& a, const auto& b) { return a.time == b.time; }),
                 points.end());
  }
}

bool wants(const metrics::Scope& scope, const ContainerFilter& wanted,
           const metrics::ContainerId& id) {
  return scope.includes(id) && (!wanted || wanted(id));
}

// The series of `from` that `scope` includes and `wanted` accepts, with their points in
// [start, end], seen in place; a series left without points is not returned (as a query of that
// range). With `pods` (sorted names in the namespace `ns`), only their series are visited.
std::vector<SeriesView> slice(const SeriesByContainer& from, const metrics::Scope& scope,
                              const ContainerFilter& wanted, Time start, Time end,
                              const std::string& ns, const std::vector<std::string_view>* pods) {
  std::vector<SeriesView> out;
  const auto take = [&](const metrics::ContainerId& id, const std::vector<metrics::Point>& points) {
    if (!wants(scope, wanted, id)) return;
    const auto first = std::lower_bound(points.begin(), points.end(), start,
                                        [](const auto& p, Time t) { return p.time < t; });
    const auto last = std::upper_bound(first, points.end(), end,
                                       [](Time t, const auto& p) { return t < p.time; });
    if (first == last) return;
    out.push_back({&id, std::span<const metrics::Point>(first, last)});
  };
  if (pods == nullptr) {
    for (const auto& [id, points] : from) take(id, points);
    return out;
  }
  for (std::string_view pod : *pods) {
    for (auto it = from.lower_bound(ContainerOrder::Pod{ns, pod});
         it != from.end() && it->first.ns == ns && it->first.pod == pod; ++it) {
      take(it->first, it->second);
    }
  }
  return out;
}

// The series `view` sees, copied.
std::vector<metrics::ContainerSeries> copied(const std::vector<SeriesView>& view) {
  std::vector<metrics::ContainerSeries> out;
  out.reserve(view.size());
  for (const SeriesView& s : view) {
    out.push_back({*s.id, std::vector<metrics::Point>(s.points.begin(), s.points.end())});
  }
  return out;
}

void keepWanted(std::vector<metrics::ContainerSeries>& series, const ContainerFilter& wanted) {
  std::erase_if(series, [&](const auto& s) { return !wanted(s.id); });
}

}  // namespace

bool SharedUsageReads::shareable(const metrics::Scope& scope, const ReadRange& range) {
  const Duration step = range.samples.step;
  return scope.namespaces.size() == 1 && step > Duration::zero() && range.oomKills.step == step &&
         range.oomKills.start == range.samples.start - step &&
         range.oomKills.end == range.samples.end && range.samples.start <= range.samples.end &&
         floorToStep(range.samples.end, step) == range.samples.end;
}

void SharedUsageReads::expect(metrics::MetricsSource& source, const metrics::Scope& scope,
                              const ReadRange& range) {
  if (!shareable(scope, range)) return;
  const Duration step = range.samples.step;
  Key key{&source, scope.namespaces.front(), step};
  Entry& e = entries_[key];
  settle(key, e);
  if (!e.start) {  // the exclusions are those of the first read: fixed once it is made
    const std::set<std::string> excluded(scope.excludedContainers.begin(),
                                         scope.excludedContainers.end());
    if (!e.wantStart) {
      e.excluded = excluded;
    } else {
      std::erase_if(e.excluded, [&](const std::string& name) { return !excluded.contains(name); });
    }
  }
  const Time start = floorToStep(range.samples.start, step);
  e.wantStart = e.wantStart ? std::min(*e.wantStart, start) : start;
  e.wantEnd = e.wantEnd ? std::max(*e.wantEnd, range.samples.end) : range.samples.end;
  ++e.expected;
}

bool SharedUsageReads::fetch(metrics::MetricsSource& source, Entry& e, const std::string& ns,
                             Time start, Time end, Duration step) {
  const metrics::Scope scope{.namespaces = {ns},
                             .excludedContainers = {e.excluded.begin(), e.excluded.end()}};
  ++sourceReads_;
  auto reading = readUsage(source, scope, readRange(start, end, step));
  if (!reading) {
    e.failed = reading.error();
    return false;
  }
  merge(reading->cpu, e.cpu);
  merge(reading->psi, e.psi);
  merge(reading->memory, e.memory);
  for (const metrics::OomKill& kill : reading->oomKills) {
    e.oomKills.try_emplace({kill.id, kill.time}, kill.memoryAtKill);
  }
  e.start = e.start ? std::min(*e.start, start) : start;
  e.end = e.end ? std::max(*e.end, end) : end;
  return true;
}

void SharedUsageReads::prefetch(std::size_t parallel) {
  if (parallel <= 1) return;
  std::lock_guard lock(mutex_);
  // The reads a first reader would make, by source, in key order.
  std::map<metrics::MetricsSource*, std::vector<Task>> pending;
  for (auto& [key, e] : entries_) {
    // An entry handed to a thread is not looked at (its thread writes it): first the test.
    if (e.prefetch != Entry::Prefetch::kNo || e.start || e.failed || e.expected == 0 ||
        !e.wantStart || !e.wantEnd) {
      continue;
    }
    const auto& [source, ns, step] = key;
    pending[source].push_back({&e, &ns, step, *e.wantStart, *e.wantEnd});
  }
  for (auto& [source, reads] : pending) {
    Pool& pool = pools_[source];
    // A thread for every read to be made, up to `parallel`: those being made count, or a group
    // announced while the one before it is read would find the queue empty and one thread.
    const std::size_t wanted = std::min(parallel, pool.reading + pool.queue.size() + reads.size());
    while (pool.copies.size() < wanted) {
      auto copy = source->parallelCopy();
      if (!copy) break;
      metrics::MetricsSource& through = *copy;
      pool.copies.push_back(std::move(copy));
      pool.threads.emplace_back(
          [this, &pool, &through](const std::stop_token& stop) { work(pool, through, stop); });
    }
    if (pool.threads.empty()) continue;
    for (const Task& task : reads) {
      task.entry->prefetch = Entry::Prefetch::kQueued;
      pool.queue.push_back(task);
      ++queued_;
    }
  }
  changed_.notify_all();
}

void SharedUsageReads::work(Pool& pool, metrics::MetricsSource& through,
                            const std::stop_token& stop) {
  std::unique_lock lock(mutex_);
  // Stopped (the pass is over): reads still queued are not made.
  while (changed_.wait(lock, stop, [&] { return !pool.queue.empty(); }) && !stop.stop_requested()) {
    const Task task = pool.queue.front();
    pool.queue.pop_front();
    task.entry->prefetch = Entry::Prefetch::kReading;
    ++pool.reading;
    lock.unlock();
    // The entry is this thread's until it is marked done: the caller waits for it (settle()).
    fetch(through, *task.entry, *task.ns, task.start, task.end, task.step);
    lock.lock();
    task.entry->prefetch = Entry::Prefetch::kNo;
    --pool.reading;
    --queued_;
    changed_.notify_all();
  }
}

void SharedUsageReads::settle(const Key& key, Entry& e) {
  std::unique_lock lock(mutex_);
  if (e.prefetch == Entry::Prefetch::kQueued) {
    std::deque<Task>& queue = pools_.at(std::get<0>(key)).queue;
    std::erase_if(queue, [&](const Task& t) { return t.entry == &e; });
    e.prefetch = Entry::Prefetch::kNo;
    --queued_;
    return;
  }
  changed_.wait(lock, [&] { return e.prefetch == Entry::Prefetch::kNo; });
}

void SharedUsageReads::waitPrefetch() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queued_ == 0; });
}

Result<UsageReading> SharedUsageReads::read(metrics::MetricsSource& source,
                                            const metrics::Scope& scope, const ReadRange& range,
                                            const ContainerFilter& wanted,
                                            const std::vector<std::string_view>* pods) {
  UsageReading out;
  auto used = use(
      source, scope, range,
      [&](const UsageView& reading) {
        out.cpu = copied(reading.cpu);
        out.psi = copied(reading.psi);
        out.memory = copied(reading.memory);
        out.oomKills = reading.oomKills;
      },
      wanted, pods);
  if (!used) return std::unexpected(used.error());
  return out;
}

Result<void> SharedUsageReads::use(metrics::MetricsSource& source, const metrics::Scope& scope,
                                   const ReadRange& range, const ViewUser& user,
                                   const ContainerFilter& wanted,
                                   const std::vector<std::string_view>* pods) {
  ++readsServed_;
  const auto alone = [&]() -> Result<void> {
    ++sourceReads_;
    auto reading = readUsage(source, scope, range);
    if (!reading) return std::unexpected(reading.error());
    if (wanted) {
      keepWanted(reading->cpu, wanted);
      keepWanted(reading->psi, wanted);
      keepWanted(reading->memory, wanted);
      std::erase_if(reading->oomKills, [&](const auto& k) { return !wanted(k.id); });
    }
    user(viewOf(*reading));
    return {};
  };
  if (!shareable(scope, range)) return alone();

  const Duration step = range.samples.step;
  const std::string& ns = scope.namespaces.front();
  auto it = entries_.find(Key{&source, ns, step});
  if (it == entries_.end()) {
    it = entries_.try_emplace(Key{&source, ns, step}).first;
    it->second.excluded = {scope.excludedContainers.begin(), scope.excludedContainers.end()};
  }
  Entry& e = it->second;
  settle(it->first, e);
  // This reader is one of those announced; the reading goes once the last one has its part.
  if (e.expected > 0) --e.expected;
  const auto done = [&](Result<void> out) {
    if (e.expected == 0) entries_.erase(it);
    return out;
  };
  if (e.failed) return done(std::unexpected(*e.failed));
  // The shared query must not have left out a container this reader includes.
  const bool covered = std::ranges::all_of(
      e.excluded, [&](const std::string& name) { return scope.excludes(name); });
  if (!covered) return done(alone());

  Time lo = floorToStep(range.samples.start, step);
  Time hi = range.samples.end;
  if (!e.start) {
    if (e.wantStart) lo = std::min(lo, *e.wantStart);
    if (e.wantEnd) hi = std::max(hi, *e.wantEnd);
    if (!fetch(source, e, ns, lo, hi, step)) return done(std::unexpected(*e.failed));
  } else {
    if (lo < *e.start && !fetch(source, e, ns, lo, *e.start - step, step)) {
      return done(std::unexpected(*e.failed));
    }
    if (hi > *e.end && !fetch(source, e, ns, *e.end + step, hi, step)) {
      return done(std::unexpected(*e.failed));
    }
  }

  UsageView view;
  view.cpu = slice(e.cpu, scope, wanted, range.samples.start, range.samples.end, ns, pods);
  view.psi = slice(e.psi, scope, wanted, range.samples.start, range.samples.end, ns, pods);
  view.memory = slice(e.memory, scope, wanted, range.samples.start, range.samples.end, ns, pods);
  for (const auto& [key, memory] : e.oomKills) {
    const auto& [id, time] = key;
    if (time < range.oomKills.start || time > range.oomKills.end) continue;
    if (wants(scope, wanted, id)) view.oomKills.push_back(metrics::OomKill{id, time, memory});
  }
  user(view);
  return done({});
}

Result<std::vector<metrics::ContainerSeries>> SharedUsageReads::throttleRatio(
    metrics::MetricsSource& source, const metrics::Scope& scope, const metrics::Range& range) {
  if (scope.namespaces.size() != 1) return source.cpuThrottleRatio(scope, range);
  ThrottleKey key{&source,     scope.namespaces.front(),
                  range.start, range.end,
                  range.step,  {scope.excludedContainers.begin(), scope.excludedContainers.end()}};
  auto it = throttle_.find(key);
  if (it == throttle_.end()) {
    it = throttle_.emplace(std::move(key), source.cpuThrottleRatio(scope, range)).first;
  }
  return it->second;
}

}  // namespace attune::usage
