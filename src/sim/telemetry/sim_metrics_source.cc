#include "sim/telemetry/sim_metrics_source.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <utility>

namespace attune::sim {
namespace {

using metrics::ContainerId;
using metrics::ContainerSeries;
using metrics::Point;

// Prometheus refuses range queries above 11,000 points per series; this bound only protects
// against a step so small that the point list itself would exhaust memory.
constexpr std::size_t kMaxPoints = 1'000'000;

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

Result<std::vector<Time>> stepsOf(const metrics::Range& range) {
  if (range.step <= Duration::zero()) {
    return fail(ErrorCode::kInvalidArgument, "the range step must be positive", "step");
  }
  if (range.end < range.start) {
    return fail(ErrorCode::kInvalidArgument, "the range ends before it starts", "end");
  }
  if (static_cast<std::size_t>((range.end - range.start) / range.step) >= kMaxPoints) {
    return fail(ErrorCode::kOutOfRange, "the range has too many points for its step", "step");
  }
  std::vector<Time> steps;
  for (Time t = range.start; t <= range.end; t += range.step) steps.push_back(t);
  return steps;
}

// What the series of one container contribute at one step: a sum (rates) or a maximum
// (instant values) of `a`, and a sum of `b` (the throttle ratio's denominator).
struct Acc {
  double a = 0;
  double b = 0;
  bool set = false;
};

void addSum(Acc& acc, double a, double b) {
  acc.a = acc.set ? acc.a + a : a;
  acc.b = acc.set ? acc.b + b : b;
  acc.set = true;
}

void addMax(Acc& acc, double a) {
  acc.a = acc.set ? std::max(acc.a, a) : a;
  acc.set = true;
}

template <typename Sample>
Time timeOf(const Recorder& r, const Sample& s) {
  return r.tickTime(s.tick);
}

// The index of the first sample at or after `t`.
template <typename Sample>
std::size_t firstAtOrAfter(const Recorder& r, const std::vector<Sample>& samples, Time t) {
  return static_cast<std::size_t>(
      std::partition_point(samples.begin(), samples.end(),
                           [&](const Sample& s) { return timeOf(r, s) < t; }) -
      samples.begin());
}

// Adds, at each step t, the rates of the counters whose increases `incA` and `incB` select,
// over the samples in [t - window, t] (at least two).
template <typename IncA, typename IncB>
void addRates(const Recorder& r, const std::vector<ContainerSample>& samples,
              const std::vector<Time>& steps, Duration window, IncA incA, IncB incB,
              std::vector<Acc>& acc) {
  if (samples.size() < 2 || steps.empty()) return;
  // Only the samples the range can see: [first step - window, last step]. A query for the last
  // minute of a month-long history must not walk the month.
  const std::size_t first = firstAtOrAfter(r, samples, steps.front() - window);
  const std::size_t last = static_cast<std::size_t>(
      std::partition_point(samples.begin() + static_cast<std::ptrdiff_t>(first), samples.end(),
                           [&](const ContainerSample& s) { return timeOf(r, s) <= steps.back(); }) -
      samples.begin());
  const std::size_t n = last - first;
  if (n < 2) return;
  std::vector<double> pa(n, 0.0);  // increases since samples[first]
  std::vector<double> pb(n, 0.0);
  for (std::size_t i = 1; i < n; ++i) {
    pa[i] = pa[i - 1] + incA(samples[first + i]);
    pb[i] = pb[i - 1] + incB(samples[first + i]);
  }
  const auto at = [&](std::size_t i) { return timeOf(r, samples[first + i]); };
  std::size_t lo = 0;
  std::size_t end = 0;
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Time t = steps[k];
    while (lo < n && at(lo) < t - window) ++lo;
    while (end < n && at(end) <= t) ++end;
    if (end < lo + 2) continue;
    const std::size_t hi = end - 1;
    const double span = seconds(at(hi) - at(lo));
    addSum(acc[k], (pa[hi] - pa[lo]) / span, (pb[hi] - pb[lo]) / span);
  }
}

// Adds, at each step t, value(s) of the last sample s in (t - lookback, t].
template <typename Sample, typename Value>
void addLast(const Recorder& r, const std::vector<Sample>& samples, const std::vector<Time>& steps,
             Duration lookback, Value value, std::vector<Acc>& acc) {
  if (samples.empty() || steps.empty()) return;
  std::size_t end = firstAtOrAfter(r, samples, steps.front() - lookback);
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const Time t = steps[k];
    while (end < samples.size() && timeOf(r, samples[end]) <= t) ++end;
    if (end == 0 || timeOf(r, samples[end - 1]) <= t - lookback) continue;
    addMax(acc[k], value(samples[end - 1]));
  }
}

ContainerId idOf(const Recorder& r, const RecordedContainer& c) {
  const RecordedPod& pod = r.pods()[c.pod];
  return ContainerId{std::string(r.str(pod.ns)), std::string(r.str(pod.name)),
                     std::string(r.str(c.name))};
}

// The recorded containers with samples that `scope` includes (excluded ones are left out before
// their samples are read), by container identity. `pods` lists the candidate pods (indices into
// r.pods()), those of the scope's namespaces. Containers whose last sample is before `since`
// are left out too: a query that reads nothing before `since` would find none of their samples
// (the pods gone long ago stay in the recording; a month of them must not be walked per query).
std::map<ContainerId, std::vector<const RecordedContainer*>> containersIn(
    const Recorder& r, const std::vector<std::uint32_t>& pods, const metrics::Scope& scope,
    std::optional<Time> since) {
  std::map<ContainerId, std::vector<const RecordedContainer*>> out;
  for (std::uint32_t p : pods) {
    const RecordedPod& pod = r.pods()[p];
    if (!scope.contains(r.str(pod.ns))) continue;
    for (std::uint32_t index : pod.containers) {
      const RecordedContainer& c = r.containers()[index];
      if (c.samples.empty() || scope.excludes(r.str(c.name))) continue;
      if (since && timeOf(r, c.samples.back()) < *since) continue;
      out[idOf(r, c)].push_back(&c);
    }
  }
  return out;
}

// One series per container in scope: fill(container, acc) adds each recorded series' values
// per step, reading no sample older than `reach` before the first step; finish(acc) turns a
// step's total into its value (nullopt or non-finite: no point).
template <typename Fill, typename Finish>
Result<std::vector<ContainerSeries>> collect(const Recorder& r,
                                             const std::vector<std::uint32_t>& pods,
                                             const metrics::Scope& scope,
                                             const metrics::Range& range, Duration reach, Fill fill,
                                             Finish finish) {
  auto steps = stepsOf(range);
  if (!steps) return std::unexpected(steps.error());
  // Steps before the first retained sample see nothing: a first read of a long history window
  // over a younger recording does not walk the empty part.
  if (r.endTick() > r.firstTick()) {
    const Time earliest = r.tickTime(r.firstTick());
    std::erase_if(*steps, [&](Time t) { return t < earliest; });
  }
  std::vector<ContainerSeries> out;
  std::vector<Acc> acc(steps->size());
  std::optional<Time> since;
  if (!steps->empty()) since = steps->front() - reach;
  for (auto& [id, list] : containersIn(r, pods, scope, since)) {
    std::fill(acc.begin(), acc.end(), Acc{});
    for (const RecordedContainer* c : list) fill(*c, *steps, acc);
    ContainerSeries series{id, {}};
    for (std::size_t k = 0; k < acc.size(); ++k) {
      if (!acc[k].set) continue;
      const std::optional<double> v = finish(acc[k]);
      if (v && std::isfinite(*v)) series.points.push_back(Point{(*steps)[k], *v});
    }
    if (!series.points.empty()) out.push_back(std::move(series));
  }
  return out;
}

// Calls fn(pod) for every pod of the state in the scope's namespaces, in (namespace, name)
// order; fn leaves out the excluded containers itself.
template <typename Fn>
void forEachPod(const ClusterState& state, const metrics::Scope& scope, Fn fn) {
  state.pods.forEach([&](const api::Pod& pod) {
    if (scope.contains(pod.metadata.namespace_)) fn(pod);
  });
}

// The controller owner reference of `meta`, else its first one, else nullptr.
const api::OwnerReference* ownerOf(const api::ObjectMeta& meta) {
  if (const api::OwnerReference* ref = meta.controllerRef()) return ref;
  return meta.ownerReferences.empty() ? nullptr : &meta.ownerReferences.front();
}

}  // namespace

SimMetricsSource::SimMetricsSource(const Recorder& recorder, const ClusterState& state,
                                   SimMetricsOptions options)
    : recorder_(recorder), state_(state), options_(options) {}

const std::vector<std::uint32_t>& SimMetricsSource::podsIn(const metrics::Scope& scope) {
  // Pods are only ever appended to the recording: index the new ones by namespace.
  for (; indexedPods_ < recorder_.pods().size(); ++indexedPods_) {
    const RecordedPod& pod = recorder_.pods()[indexedPods_];
    podsByNamespace_[std::string(recorder_.str(pod.ns))].push_back(
        static_cast<std::uint32_t>(indexedPods_));
    allPods_.push_back(static_cast<std::uint32_t>(indexedPods_));
  }
  if (scope.allNamespaces()) return allPods_;
  if (scope.namespaces.size() == 1) {
    auto it = podsByNamespace_.find(scope.namespaces.front());
    return it == podsByNamespace_.end() ? noPods_ : it->second;
  }
  scopePods_.clear();
  for (const std::string& ns : scope.namespaces) {
    if (auto it = podsByNamespace_.find(ns); it != podsByNamespace_.end()) {
      scopePods_.insert(scopePods_.end(), it->second.begin(), it->second.end());
    }
  }
  std::sort(scopePods_.begin(), scopePods_.end());
  scopePods_.erase(std::unique(scopePods_.begin(), scopePods_.end()), scopePods_.end());
  return scopePods_;
}

Result<std::vector<ContainerSeries>> SimMetricsSource::counterRate(
    const metrics::Scope& scope, const metrics::Range& range, float ContainerSample::*counter) {
  const Duration window = std::max(range.step, options_.minRateWindow);
  return collect(
      recorder_, podsIn(scope), scope, range, window,
      [&](const RecordedContainer& c, const std::vector<Time>& steps, std::vector<Acc>& acc) {
        addRates(
            recorder_, c.samples, steps, window,
            [counter](const ContainerSample& s) { return static_cast<double>(s.*counter); },
            [](const ContainerSample&) { return 0.0; }, acc);
      },
      [](const Acc& a) { return std::optional<double>(a.a); });
}

Result<std::vector<ContainerSeries>> SimMetricsSource::cpuUsage(const metrics::Scope& scope,
                                                                const metrics::Range& range) {
  return counterRate(scope, range, &ContainerSample::cpuSeconds);
}

Result<std::vector<ContainerSeries>> SimMetricsSource::cpuPressureWaiting(
    const metrics::Scope& scope, const metrics::Range& range) {
  return counterRate(scope, range, &ContainerSample::psiWaitingSeconds);
}

Result<std::vector<ContainerSeries>> SimMetricsSource::memoryWorkingSet(
    const metrics::Scope& scope, const metrics::Range& range) {
  return collect(
      recorder_, podsIn(scope), scope, range, options_.lookback,
      [&](const RecordedContainer& c, const std::vector<Time>& steps, std::vector<Acc>& acc) {
        addLast(
            recorder_, c.samples, steps, options_.lookback,
            [](const ContainerSample& s) { return static_cast<double>(s.memoryBytes); }, acc);
      },
      [](const Acc& a) { return std::optional<double>(a.a); });
}

Result<std::vector<ContainerSeries>> SimMetricsSource::cpuThrottleRatio(
    const metrics::Scope& scope, const metrics::Range& range) {
  const Duration window = std::max(range.step, options_.throttleWindow);
  return collect(
      recorder_, podsIn(scope), scope, range, window,
      [&](const RecordedContainer& c, const std::vector<Time>& steps, std::vector<Acc>& acc) {
        addRates(
            recorder_, c.samples, steps, window,
            [](const ContainerSample& s) { return static_cast<double>(s.throttled); },
            [](const ContainerSample& s) { return static_cast<double>(s.periods); }, acc);
      },
      [](const Acc& a) { return a.b > 0 ? std::optional<double>(a.a / a.b) : std::nullopt; });
}

Result<std::vector<metrics::OomKill>> SimMetricsSource::oomKills(const metrics::Scope& scope,
                                                                 const metrics::Range& range) {
  if (range.end < range.start) {
    return fail(ErrorCode::kInvalidArgument, "the range ends before it starts", "end");
  }
  std::vector<metrics::OomKill> out;
  for (const RecordedContainer& c : recorder_.containers()) {
    if (c.ooms.empty()) continue;
    const ContainerId id = idOf(recorder_, c);
    if (!scope.includes(id)) continue;
    for (const OomEvent& e : c.ooms) {
      if (e.at < range.start || e.at > range.end) continue;
      out.push_back(metrics::OomKill{id, e.at, e.memoryAtKill});
    }
  }
  std::ranges::sort(out, [](const auto& a, const auto& b) {
    return std::tie(a.id, a.time) < std::tie(b.id, b.time);
  });
  return out;
}

Result<std::vector<metrics::RestartCount>> SimMetricsSource::restartCounts(
    const metrics::Scope& scope, Time /*at*/) {
  std::vector<metrics::RestartCount> out;
  forEachPod(state_, scope, [&](const api::Pod& pod) {
    for (const api::ContainerStatus& s : pod.status.containerStatuses) {
      if (scope.excludes(s.name)) continue;
      out.push_back(metrics::RestartCount{
          ContainerId{pod.metadata.namespace_, pod.metadata.name, s.name}, s.restartCount});
    }
  });
  std::ranges::sort(out, {}, &metrics::RestartCount::id);
  return out;
}

Result<std::vector<metrics::ContainerResourceValues>> SimMetricsSource::resources(
    const metrics::Scope& scope, Time /*at*/) {
  std::vector<metrics::ContainerResourceValues> out;
  forEachPod(state_, scope, [&](const api::Pod& pod) {
    for (const api::Container& c : pod.spec.containers) {
      if (scope.excludes(c.name)) continue;
      const api::ResourceRequirements& r = c.resources;
      metrics::ContainerResourceValues res{
          {}, ContainerId{pod.metadata.namespace_, pod.metadata.name, c.name}};
      api::ResourceValues& v = res;
      if (r.requests.cpu) v.cpuRequest = r.requests.cpu->toMillicores();
      if (r.limits.cpu) v.cpuLimit = r.limits.cpu->toMillicores();
      if (r.requests.memory) v.memoryRequest = r.requests.memory->toBytes();
      if (r.limits.memory) v.memoryLimit = r.limits.memory->toBytes();
      if (v.cpuRequest || v.cpuLimit || v.memoryRequest || v.memoryLimit) {
        out.push_back(std::move(res));
      }
    }
  });
  std::ranges::sort(out, {}, &metrics::ContainerResourceValues::id);
  return out;
}

Result<std::vector<metrics::PodOwner>> SimMetricsSource::podOwners(const metrics::Scope& scope,
                                                                   Time /*at*/) {
  std::vector<metrics::PodOwner> out;
  forEachPod(state_, scope, [&](const api::Pod& pod) {
    const std::string& ns = pod.metadata.namespace_;
    api::WorkloadRef workload{ns, "Pod", pod.metadata.name};
    if (const api::OwnerReference* ref = ownerOf(pod.metadata)) {
      workload = {ns, ref->kind, ref->name};
      const api::ObjectMeta* parent = nullptr;
      std::string_view parentKind;
      if (ref->kind == "ReplicaSet") {
        if (const auto* rs = state_.replicaSets.find(ns, ref->name)) parent = &rs->metadata;
        parentKind = "Deployment";
      } else if (ref->kind == "Job") {
        if (const auto* job = state_.jobs.find(ns, ref->name)) parent = &job->metadata;
        parentKind = "CronJob";
      }
      if (parent != nullptr) {
        const api::OwnerReference* up = ownerOf(*parent);
        if (up != nullptr && up->kind == parentKind) workload = {ns, up->kind, up->name};
      }
    }
    out.push_back(metrics::PodOwner{ns, pod.metadata.name, std::move(workload)});
  });
  return out;
}

Result<std::vector<metrics::NodeSeries>> SimMetricsSource::nodeLoad(const metrics::Range& range) {
  auto steps = stepsOf(range);
  if (!steps) return std::unexpected(steps.error());
  std::map<std::string, std::vector<Point>> byNode;
  std::vector<Acc> acc(steps->size());
  for (const RecordedNode& node : recorder_.nodes()) {
    std::fill(acc.begin(), acc.end(), Acc{});
    addLast(
        recorder_, node.samples, *steps, options_.lookback,
        [](const NodeSample& s) { return static_cast<double>(s.load1); }, acc);
    std::vector<Point> points;
    for (std::size_t k = 0; k < acc.size(); ++k) {
      if (acc[k].set) points.push_back(Point{(*steps)[k], acc[k].a});
    }
    if (!points.empty()) byNode.emplace(std::string(recorder_.str(node.name)), std::move(points));
  }
  std::vector<metrics::NodeSeries> out;
  for (auto& [name, points] : byNode) out.push_back(metrics::NodeSeries{name, std::move(points)});
  return out;
}

Result<std::vector<metrics::NodeCapacity>> SimMetricsSource::nodeCapacity(Time /*at*/) {
  std::vector<metrics::NodeCapacity> out;
  state_.nodes.forEach([&](const api::Node& node) {
    const auto& capacity = node.status.capacity;
    const auto& allocatable = node.status.allocatable;
    const auto& cpu = capacity.cpu ? capacity.cpu : allocatable.cpu;
    const auto& memory = capacity.memory ? capacity.memory : allocatable.memory;
    if (cpu && memory) {
      out.push_back(
          metrics::NodeCapacity{node.metadata.name, cpu->toMillicores(), memory->toBytes()});
    }
  });
  return out;
}

}  // namespace attune::sim
