#include "metrics/trace/trace_data.h"

#include <algorithm>
#include <utility>

namespace attune::metrics {
namespace {

// Stable sort by time, then keep the last element of each run of equal timestamps.
template <typename T>
void sortKeepLast(std::vector<T>& v) {
  std::stable_sort(v.begin(), v.end(), [](const T& a, const T& b) { return a.time < b.time; });
  std::size_t out = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i + 1 < v.size() && v[i + 1].time == v[i].time) continue;
    v[out++] = std::move(v[i]);
  }
  v.resize(out);
  v.shrink_to_fit();
}

template <typename T>
void widen(const std::vector<T>& v, Time& first, Time& last) {
  if (v.empty()) return;
  first = std::min(first, v.front().time);
  last = std::max(last, v.back().time);
}

void finalizeContainer(ContainerTrace& c) {
  sortKeepLast(c.cpuUsage);
  sortKeepLast(c.memoryWorkingSet);
  sortKeepLast(c.psiCpuWaiting);
  sortKeepLast(c.cpuThrottleRatio);
  sortKeepLast(c.resources);
  sortKeepLast(c.restarts);
  sortKeepLast(c.oomKills);
  c.first = Time::max();
  c.last = Time::min();
  widen(c.cpuUsage, c.first, c.last);
  widen(c.memoryWorkingSet, c.first, c.last);
  widen(c.psiCpuWaiting, c.first, c.last);
  widen(c.cpuThrottleRatio, c.first, c.last);
  widen(c.resources, c.first, c.last);
  widen(c.restarts, c.first, c.last);
  widen(c.oomKills, c.first, c.last);
  const auto repeated =
      std::unique(c.resources.begin(), c.resources.end(),
                  [](const auto& a, const auto& b) { return a.value == b.value; });
  c.resources.erase(repeated, c.resources.end());
  c.resources.shrink_to_fit();
}

}  // namespace

Result<ContainerTrace*> TraceData::container(const ContainerId& id,
                                             const api::WorkloadRef& workload) {
  // Any container of the same pod sorts at or after {ns, pod, ""}.
  auto it = containers_.lower_bound(ContainerId{id.ns, id.pod, ""});
  if (it != containers_.end() && it->first.ns == id.ns && it->first.pod == id.pod &&
      it->second.workload != workload) {
    return fail(ErrorCode::kInvalidArgument, "pod " + id.ns + "/" + id.pod + " is owned by " +
                                                 toString(it->second.workload) + ", not " +
                                                 toString(workload));
  }
  auto [pos, inserted] = containers_.try_emplace(id);
  if (inserted) pos->second.workload = workload;
  return &pos->second;
}

void TraceData::finalize() {
  for (auto it = containers_.begin(); it != containers_.end();) {
    finalizeContainer(it->second);
    it = it->second.first == Time::max() ? containers_.erase(it) : std::next(it);
  }
}

std::optional<std::pair<Time, Time>> TraceData::span() const {
  if (containers_.empty()) return std::nullopt;
  std::pair<Time, Time> span{Time::max(), Time::min()};
  for (const auto& [id, c] : containers_) {
    span.first = std::min(span.first, c.first);
    span.second = std::max(span.second, c.last);
  }
  return span;
}

}  // namespace attune::metrics
