// The cruisekube strategy (seeds/cruisekube-algorithm.md): steady state = P75 of the recent
// window (CPU 10 min, memory 30 min), headroom = hour-of-week peak - steady state; a container
// planned alone gets base + headroom; memory limit = 2 × max(7-day max, memory at OOM kill); no
// CPU limit. Several containers on one node share headroom through the HeadroomPlanner.
#pragma once

#include <expected>
#include <string>

#include "core/time.h"
#include "core/units.h"
#include "recommend/strategy.h"
#include "stats/container_stats.h"

namespace attune::recommend {

// One container's demand as the node planner needs it, in whole units (rounded up).
struct CruisekubeDemand {
  Millicores cpuBase;
  Millicores cpuHeadroom;  // max(0, peak - base)
  Bytes memoryBase;
  Bytes memoryHeadroom;
  Bytes memoryLimit;  // 2 × max(weekMax, maxOomMemory)
};

// The demand at `now`, or why there is none (a window without samples). Does not check
// minimumDataPoints (the caller decides whether the data suffices).
std::expected<CruisekubeDemand, std::string> cruisekubeDemand(const stats::ContainerStats& s,
                                                              Time now);

StrategyPtr makeCruisekubeStrategy();

}  // namespace attune::recommend
