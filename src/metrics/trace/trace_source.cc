#include "metrics/trace/trace_source.h"

#include <algorithm>
#include <utility>

#include "metrics/trace/trace_files.h"

namespace attune::metrics {
namespace {

// The last element of a time-ordered vector at or before `at`, or nullptr.
template <typename T>
const T* latestAt(const std::vector<T>& v, Time at) {
  auto it = std::upper_bound(v.begin(), v.end(), at,
                             [](Time t, const T& element) { return t < element.time; });
  return it == v.begin() ? nullptr : &*std::prev(it);
}

Result<void> validate(const Range& range, std::int64_t maxStepPoints) {
  if (range.end < range.start) {
    return fail(ErrorCode::kInvalidArgument, "range end " + formatRfc3339(range.end) +
                                                 " is before its start " +
                                                 formatRfc3339(range.start));
  }
  if (range.step > Duration::zero() && (range.end - range.start) / range.step >= maxStepPoints) {
    return fail(
        ErrorCode::kInvalidArgument,
        "range has more than " + std::to_string(maxStepPoints) + " step points; use a larger step");
  }
  return {};
}

// The points of time-ordered `samples` that answer `range` (see the header).
std::vector<Point> select(const std::vector<Point>& samples, const Range& range,
                          Duration lookback) {
  std::vector<Point> out;
  if (range.step <= Duration::zero()) {
    auto from = std::lower_bound(samples.begin(), samples.end(), range.start,
                                 [](const Point& p, Time t) { return p.time < t; });
    for (auto it = from; it != samples.end() && it->time <= range.end; ++it) out.push_back(*it);
    return out;
  }
  auto next = samples.begin();  // first sample after the current step point
  for (Time t = range.start; t <= range.end; t += range.step) {
    while (next != samples.end() && next->time <= t) ++next;
    if (next != samples.begin() && std::prev(next)->time > t - lookback) {
      out.push_back({t, std::prev(next)->value});
    }
  }
  return out;
}

}  // namespace

TraceSource::TraceSource(TraceData data, TraceSpan span, TraceOptions options)
    : data_(std::move(data)), span_(span), options_(std::move(options)) {}

Result<std::unique_ptr<TraceSource>> TraceSource::load(
    const std::vector<std::filesystem::path>& paths, TraceOptions options) {
  if (paths.empty()) return fail(ErrorCode::kInvalidArgument, "no trace files given");
  auto data = readTraceFiles(paths, options.bitbrainsNamespace);
  if (!data) return std::unexpected(data.error());
  const auto span = data->span();
  if (!span) {
    return fail(ErrorCode::kInvalidArgument, "the trace has no usable rows (" +
                                                 std::to_string(data->skippedRows()) +
                                                 " skipped) in " + paths.front().string() +
                                                 (paths.size() > 1 ? " and the other paths" : ""));
  }
  return std::unique_ptr<TraceSource>(
      new TraceSource(std::move(*data), TraceSpan{span->first, span->second}, std::move(options)));
}

Result<std::vector<ContainerSeries>> TraceSource::series(
    const Scope& scope, const Range& range, std::vector<Point> ContainerTrace::*member) const {
  if (auto valid = validate(range, options_.maxStepPoints); !valid) {
    return std::unexpected(valid.error());
  }
  std::vector<ContainerSeries> out;
  for (const auto& [id, trace] : data_.containers()) {
    if (!scope.includes(id)) continue;
    auto points = select(trace.*member, range, options_.lookback);
    if (!points.empty()) out.push_back({id, std::move(points)});
  }
  return out;
}

Result<std::vector<ContainerSeries>> TraceSource::cpuUsage(const Scope& scope, const Range& range) {
  return series(scope, range, &ContainerTrace::cpuUsage);
}

Result<std::vector<ContainerSeries>> TraceSource::cpuPressureWaiting(const Scope& scope,
                                                                     const Range& range) {
  return series(scope, range, &ContainerTrace::psiCpuWaiting);
}

Result<std::vector<ContainerSeries>> TraceSource::memoryWorkingSet(const Scope& scope,
                                                                   const Range& range) {
  return series(scope, range, &ContainerTrace::memoryWorkingSet);
}

Result<std::vector<ContainerSeries>> TraceSource::cpuThrottleRatio(const Scope& scope,
                                                                   const Range& range) {
  return series(scope, range, &ContainerTrace::cpuThrottleRatio);
}

Result<std::vector<OomKill>> TraceSource::oomKills(const Scope& scope, const Range& range) {
  if (range.end < range.start) return std::unexpected(validate(range, 0).error());
  std::vector<OomKill> out;
  for (const auto& [id, trace] : data_.containers()) {
    if (!scope.includes(id)) continue;
    for (const auto& kill : trace.oomKills) {
      if (kill.time >= range.start && kill.time <= range.end) {
        out.push_back({id, kill.time, kill.value});
      }
    }
  }
  return out;
}

Result<std::vector<RestartCount>> TraceSource::restartCounts(const Scope& scope, Time at) {
  std::vector<RestartCount> out;
  for (const auto& [id, trace] : data_.containers()) {
    if (!scope.includes(id)) continue;
    if (const auto* latest = latestAt(trace.restarts, at)) out.push_back({id, latest->value});
  }
  return out;
}

Result<std::vector<ContainerResourceValues>> TraceSource::resources(const Scope& scope, Time at) {
  std::vector<ContainerResourceValues> out;
  for (const auto& [id, trace] : data_.containers()) {
    if (!scope.includes(id)) continue;
    if (const auto* latest = latestAt(trace.resources, at)) {
      out.push_back({latest->value, id});
    }
  }
  return out;
}

Result<std::vector<PodOwner>> TraceSource::podOwners(const Scope& scope, Time at) {
  std::vector<PodOwner> out;
  for (const auto& [id, trace] : data_.containers()) {
    if (!scope.contains(id.ns) || trace.first > at) continue;
    // Containers are ordered by pod, so one pod's containers are adjacent.
    if (!out.empty() && out.back().ns == id.ns && out.back().pod == id.pod) continue;
    out.push_back({id.ns, id.pod, trace.workload});
  }
  return out;
}

Result<std::vector<NodeSeries>> TraceSource::nodeLoad(const Range& /*range*/) {
  return std::vector<NodeSeries>{};
}

Result<std::vector<NodeCapacity>> TraceSource::nodeCapacity(Time /*at*/) {
  return std::vector<NodeCapacity>{};
}

}  // namespace attune::metrics
