// Building usage models from a small spec that scenario files fill.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "metrics/trace/trace_source.h"
#include "sim/random.h"
#include "sim/workload/service_model.h"
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
//   service      requestsPerSecond*, cpuPerRequest*, memoryBytes*, cpuCores, amplitude,
//                peakHour, noise; and rateChanges (service_model.h)
//   trace        no parameters; `container` names the trace container (trace_replay.h)
// (* required; the others default as in the parameter structs.)
struct UsageModelSpec {
  std::string kind;
  std::map<std::string, double, std::less<>> params;
  std::string container;                // kind "trace" only: "namespace/pod/container" in the trace
  std::vector<RateChange> rateChanges;  // kind "service" only, each with from < to
};

// Where kind "trace" replays from: a loaded trace, whose first timestamp (span().first) is
// replayed at simulated time simStart. Not owned; must outlive the call only.
struct ReplaySource {
  const metrics::TraceSource* trace = nullptr;
  Time simStart{};
};

// What kind "service" shares with the rest of its workload: the run's start (rate changes are
// relative to it), the workload's ready pods, and the pod the model runs in. Without endpoints
// the model sees no ready pod (base CPU only), which is enough to check parameters.
struct ServiceContext {
  Time simStart{};
  std::shared_ptr<const ServiceEndpoints> endpoints;
  std::string pod;
};

// Builds the model `spec` describes, drawing its noise from `random` (the caller forks one stream
// per container, e.g. root.fork("shop/web-0/app")). kInvalidArgument with Error::field naming
// the bad part ("kind", "params.<name>", "container") for an unknown kind, an unknown, missing,
// non-finite or out-of-range parameter, or a trace container that is malformed or absent;
// kInvalidArgument on "container" also when a trace model has no ReplaySource::trace, and on
// "rateChanges[i]" for a change of another kind, or one with to <= from or a negative factor.
Result<UsageModelPtr> makeUsageModel(const UsageModelSpec& spec, Random random,
                                     const ReplaySource& replay = {},
                                     const ServiceContext& service = {});

// The parameters of a kind "service" spec, checked as makeUsageModel checks them.
Result<ServiceParams> serviceParams(const UsageModelSpec& spec);

}  // namespace attune::sim
