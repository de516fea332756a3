// UsageModel: what one container of a simulated workload consumes over time. The kubelet model
// asks it for the container's CPU demand and memory working set at each tick.
#pragma once

#include <memory>

#include "core/time.h"
#include "core/units.h"

namespace attune::sim {

// A container's resource use at one instant.
struct Usage {
  double cpuCores = 0;  // CPU demand in cores (what it would use without throttling)
  Bytes memory{0};      // memory working set
  bool operator==(const Usage&) const = default;
};

// Contract for every model:
// - `now` is simulated time; `sinceStart` is how long the container has been running since it
//   last (re)started, >= 0. Models that keep state across a run (a leak, a heap) derive it from
//   `sinceStart`, so a restart resets them.
// - Deterministic: given its sim::Random stream, the same sequence of calls gives the same
//   values on every platform. Models with noise draw from the stream on each usage() call, so
//   values depend on the call sequence, not only on the arguments.
// - Values are never negative. Not thread-safe.
class UsageModel {
 public:
  virtual ~UsageModel() = default;

  // The container's usage at `now`, `sinceStart` after it last started.
  virtual Usage usage(Time now, Duration sinceStart) = 0;

  // True once the container's work is done and it should exit successfully (a batch Job);
  // usage() is then zero. Long-running models never finish.
  virtual bool finished(Time now, Duration sinceStart) const = 0;
};

using UsageModelPtr = std::unique_ptr<UsageModel>;

}  // namespace attune::sim
