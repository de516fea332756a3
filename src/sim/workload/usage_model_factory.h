// Building usage models from a small spec that scenario files fill.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "core/error.h"
#include "core/time.h"
#include "metrics/trace/trace_source.h"
#include "sim/random.h"
#include "sim/workload/usage_model.h"

namespace attune::sim {

// A usage model by kind name and parameters.
// Kinds and their parameters (units and meaning in synthetic_models.h):
//   steady       cpuCores*, memoryBytes*, noise
//   diurnal      cpuCores*, memoryBytes*, amplitude, memoryAmplitude, peakHour, noise
//   bursty       cpuCores*, memoryBytes*, spikeProbability, spikeFactor, spikeMemoryFactor, noise
//   memory-leak  cpuCores*, memoryBytes*, leakBytesPerHour*, noise
//   jvm          cpuCores*, heapBytes*, floorBytes*, gcPeriodSeconds, gcDurationSeconds,
//                gcCpuCores, noise
//   batch        cpuCores*, memoryBytes*, durationSeconds*, noise
//   trace        no parameters; `container` names the trace container (trace_replay.h)
// (* required; the others default as in the parameter structs.)
struct UsageModelSpec {
  std::string kind;
  std::map<std::string, double, std::less<>> params;
  std::string container;  // kind "trace" only: "namespace/pod/container" in the trace
};

// Where kind "trace" replays from: a loaded trace, whose first timestamp (span().first) is
// replayed at simulated time simStart. Not owned; must outlive the call only.
struct ReplaySource {
  const metrics::TraceSource* trace = nullptr;
  Time simStart{};
};

// Builds the model `spec` describes, drawing its noise from `random` (the caller forks one stream
// per container, e.g. root.fork("shop/web-0/app")). kInvalidArgument with Error::field naming
// the bad part ("kind", "params.<name>", "container") for an unknown kind, an unknown, missing,
// non-finite or out-of-range parameter, or a trace container that is malformed or absent;
// kInvalidArgument on "container" also when a trace model has no ReplaySource::trace.
Result<UsageModelPtr> makeUsageModel(const UsageModelSpec& spec, Random random,
                                     const ReplaySource& replay = {});

}  // namespace attune::sim
