// The adaptive strategy, the default of `attune backtest`: requests that rise ahead of the busy
// hours of the day, react to what the container shows now, and move in one step once a day of
// history says where the container runs. Per resource (docs/strategies.md gives the formulas and
// the reasons):
//  - CPU: the policy percentile over the history window, raised to the largest hour-of-day
//    percentile of now's hour and the next two (each that hour's own percentile, the largest of
//    its occurrences in the last week) and to the recent P75 (the stats' CPU series is
//    PSI-adjusted, so CPU contention raises what it reads); × (1 + 30%);
//  - memory: the largest of the history-window percentile, the busiest hour of the day's
//    percentile and the recent P75, × (1 + 15%); after an OOM kill at least VPA's bump
//    max(m + 100Mi, 1.2 m) before the margin;
//  - then the policy's bounds, allowDecrease, a 10% minimum change for decreases (an increase
//    of any size is made), decreases capped at the policy's maxChangePercent during the first
//    day of data only (increases never), and the limit rule (controlledValues).
// Every window it reads must hold a sample, else enoughData = false.
#pragma once

#include "recommend/strategy.h"

namespace attune::recommend {

// Hours of the day the CPU request covers: now's and the next two (a resize waits for the
// workload's cooldown, one hour by default, so a target set now is still in force then).
inline constexpr int kAdaptiveHoursAhead = 2;
// Decreases are capped at the policy's maxChangePercent while the container has less data than
// this (days).
inline constexpr double kAdaptiveCappedDecreaseDays = 1;
// The CPU margin: +30%. On a cluster packed by requests a container's request is the CPU it
// is sure to get when its neighbours burst; on the 7-day Bitbrains backtest
// (docs/strategies.md) +30%, with increases of any size, lowered the share of samples with CPU
// above request from 12.9% (+15%, increases of 10% or more) to 11.1%.
inline constexpr double kAdaptiveCpuMargin = 0.30;
// The memory margin: +15%, as VPA's and krr's.
inline constexpr double kAdaptiveMemoryMargin = 0.15;
// VPA's OOM bump: the memory at an OOM kill × 1.2, and at least + 100 MiB.
inline constexpr double kAdaptiveOomBumpRatio = 1.2;
inline constexpr double kAdaptiveOomMinBumpBytes = 100.0 * 1024 * 1024;

StrategyPtr makeAdaptiveStrategy();

}  // namespace attune::recommend
