// CPU arithmetic of the simulated kubelet, one tick at a time: CFS bandwidth control (a CPU
// limit as a quota per cfs period) and node contention (cgroup cpu.weight from requests,
// max-min fair with redistribution). Pure: no clock, no state, no allocation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/units.h"

namespace attune::sim {

// What CFS did to one container over the part of a tick it ran.
struct CfsTick {
  double usageCores = 0;      // mean usage after the quota, <= min(demand, limit)
  std::uint64_t periods = 0;  // cfs periods elapsed (only with a quota, only when runnable)
  std::uint64_t throttledPeriods = 0;
  double throttledSeconds = 0;  // time spent throttled, summed over the throttled periods
};

// CFS bandwidth control for a container whose mean demand over `activeSeconds` is
// `demandCores`, under a quota of `limitCores` per `periodSeconds` (limitCores <= 0: no quota,
// the usage is the demand and no periods are counted, as cpu.stat has none without a quota).
//
// Demand is bursty within a tick: the demand of each period is modelled as uniform on
// [d(1-b), d(1+b)] around the mean d, b = `burstiness` in [0, 1]. A period is throttled when its
// demand exceeds the quota, so
//   throttle ratio = P(D > L) = clamp((d(1+b) - L) / (2bd), 0, 1)   (a step at d = L when b = 0),
//   usage          = E[min(D, L)],
//   throttled time = E[(1 - L/D) * period | D > L] per throttled period (the part of the period
//                    after the quota ran out, demand spread evenly over the period).
// The ratio is 0 for d <= L/(1+b), rises monotonically with d/L, and is 1 from d >= L/(1-b);
// e.g. with b = 0.5 it is 0 below 2/3 of the limit, 0.5 at the limit and 1 at twice it.
// periods = round(activeSeconds / periodSeconds) when demand > 0, throttledPeriods the rounded
// expected count. Requires non-negative arguments and periodSeconds > 0.
CfsTick cfsThrottle(double demandCores, double limitCores, double activeSeconds,
                    double periodSeconds, double burstiness);

// The relative cpu.weight of a container requesting `request` (cgroup v1 cpu.shares as the
// kubelet sets them: request in millicores * 1024 / 1000, at least 2; BestEffort gets 2).
double cpuShares(Millicores request);

// One container's claim on a node's CPU for a tick.
struct CpuClaim {
  double wantCores = 0;  // demand already capped by the container's quota; >= 0
  double weight = 0;     // cpuShares(request); > 0
  double gotCores = 0;   // output
};

// Shares `capacityCores` among `claims`: when the total want fits, everyone gets what they
// want; otherwise weighted max-min fairness (water-filling): capacity is split in proportion
// to weight, a claim never gets more than it wants, and what a claim leaves unused is split
// among the others by the same rule. capacityCores <= 0 means unknown: no contention.
// `scratch` is reused between calls to avoid allocation. Deterministic.
void shareCpu(std::span<CpuClaim> claims, double capacityCores, std::vector<std::size_t>& scratch);

}  // namespace attune::sim
