#include "sim/workload/trace_replay.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "sim/workload/noise.h"

namespace attune::sim {
namespace {

// The last element of the time-ordered `samples` with time <= t, or nullptr.
template <typename T>
const T* lastAtOrBefore(const std::vector<T>& samples, Time t) {
  auto after = std::upper_bound(samples.begin(), samples.end(), t,
                                [](Time time, const T& sample) { return time < sample.time; });
  return after == samples.begin() ? nullptr : &*std::prev(after);
}

double valueAt(const std::vector<metrics::Point>& series, Time t) {
  const metrics::Point* p = lastAtOrBefore(series, t);
  return p == nullptr ? 0.0 : p->value;
}

}  // namespace

TraceReplayModel::TraceReplayModel(const metrics::ContainerTrace& trace, Time traceStart,
                                   Time simStart)
    : cpu_(trace.cpuUsage),
      memory_(trace.memoryWorkingSet),
      resources_(trace.resources),
      traceStart_(traceStart),
      simStart_(simStart) {}

Usage TraceReplayModel::usage(Time now, Duration) {
  const Time t = traceTime(now);
  return {valueAt(cpu_, t), toBytes(valueAt(memory_, t))};
}

api::ResourceValues TraceReplayModel::resources(Time now) const {
  const auto* row = lastAtOrBefore(resources_, traceTime(now));
  return row == nullptr ? api::ResourceValues{} : row->value;
}

api::ResourceValues TraceReplayModel::originalResources() const {
  return resources_.empty() ? api::ResourceValues{} : resources_.front().value;
}

}  // namespace attune::sim
