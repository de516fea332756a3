// The adaptive strategy, the default of `attune backtest`: requests that follow the time of day
// and react to what the container shows now, with a margin sized for a cluster whose nodes are
// packed by requests. Per resource (docs/strategies.md gives the formulas and the reasons):
//  - CPU: the policy percentile of the next few hours of the day (now's hour and the two after,
//    each the largest of that hour's own percentile over the last week), never below the
//    history-window percentile's share kAdaptiveCpuFloorShare, nor below the recent P75 (the
//    stats' CPU series is PSI-adjusted, so CPU contention raises what it reads); × (1 + 15%);
//  - memory: the largest of the history-window percentile, the busiest hour of the day's
//    percentile and the recent P75, × (1 + 15%); after an OOM kill at least VPA's bump
//    max(m + 100Mi, 1.2 m) before the margin;
//  - then the policy's bounds, allowDecrease, a 10% minimum change, decreases capped at the
//    policy's maxChangePercent (increases are not capped), and the limit rule (controlledValues).
// Every window it reads must hold a sample, else enoughData = false.
#pragma once

#include "recommend/strategy.h"

namespace attune::recommend {

// Hours of the day the CPU request covers: now's and the next two (a resize waits for the
// workload's cooldown, one hour by default, so a target set now is still in force then).
inline constexpr int kAdaptiveHoursAhead = 2;
// The CPU request is at least this share of the history-window percentile: an hour of the day
// that was quiet all week does not take the request below half of the usual level.
inline constexpr double kAdaptiveCpuFloorShare = 0.5;
// The margin on both resources: +15%, as VPA's and krr's.
inline constexpr double kAdaptiveMargin = 0.15;
// VPA's OOM bump: the memory at an OOM kill × 1.2, and at least + 100 MiB.
inline constexpr double kAdaptiveOomBumpRatio = 1.2;
inline constexpr double kAdaptiveOomMinBumpBytes = 100.0 * 1024 * 1024;

StrategyPtr makeAdaptiveStrategy();

}  // namespace attune::recommend
