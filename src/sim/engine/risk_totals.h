// Risk measured per container-sample (docs/simulate-report.md): one sample is one regular (not
// sidecar) container of a running pod that ran during one kubelet tick. The accumulator is pure:
// it is fed explicit samples and pending-pod counts, so each figure can be checked by hand;
// RunAccounting feeds it from the kubelet after every tick.
#pragma once

#include <cstdint>
#include <optional>

#include "core/time.h"
#include "sim/kubelet/kubelet.h"

namespace attune::sim {

// What the kubelet knew about one container over one tick.
struct RiskSample {
  double seconds = 0;          // how long the container ran in the tick (> 0)
  double cpuRequestCores = 0;  // the request it ran with (0: none)
  double cpuDemandCores = 0;   // what its model asked for
  double cpuUsageCores = 0;    // what it got after its CFS quota and node contention
  double memoryRequestBytes = 0;
  double memoryLimitBytes = 0;       // 0: no limit
  double memoryWorkingSetBytes = 0;  // the model's working set (before any OOM kill)
};

// The sample of `c` in the tick that ended at `now`; unset when it is not one: a sidecar, a
// container that did not run in the tick, or a container of a pod that is neither Running nor
// ended at `now` (its container terminated at `now`: completed, OOM-killed for good, evicted).
// The working set of a container OOM-killed at `now` is the one it was killed with.
std::optional<RiskSample> sampleOf(const PodRuntime& pod, const ContainerRuntime& c, Time now);

struct RiskTotals {
  std::int64_t samples = 0;
  // Samples whose CPU usage was above the CPU request (strictly; any usage with no request).
  std::int64_t cpuAboveRequestSamples = 0;
  // Σ (demand − usage) × seconds over the samples: CPU demanded and not received, i.e. CFS
  // throttling at the limit plus node contention.
  double cpuShortCoreSeconds = 0;
  // Σ max(0, usage − request) × seconds over the samples.
  double cpuAboveRequestCoreSeconds = 0;
  // Samples whose working set was above the memory request (strictly).
  std::int64_t memoryAboveRequestSamples = 0;
  // Samples of a container with a memory limit whose working set reached it (working set ≥
  // limit; the kubelet OOM-kills above it).
  std::int64_t memoryAtLimitSamples = 0;
  // Pods pending (phase Pending or unset, not deleting) at a tick's end × the tick, and the most
  // at one tick's end.
  double pendingPodSeconds = 0;
  std::int64_t pendingPodsMax = 0;

  void add(const RiskSample& s);
  // `pods` pending at the end of a tick of `seconds`.
  void addPending(std::int64_t pods, double seconds);

  // 100 × n / samples; 0 without samples.
  double sharePct(std::int64_t n) const;
};

}  // namespace attune::sim
