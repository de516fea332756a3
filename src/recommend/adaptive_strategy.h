// The adaptive strategy, the default of `attune backtest`: requests that follow what each
// container needed lately, react to what it shows now, and move in one step once a day of
// history says where the container runs. Per resource (docs/strategies.md gives the formulas and
// the reasons):
//  - CPU: the policy percentile of a decaying histogram of the PSI-adjusted CPU usage (a sample
//    weighs half as much every 6 hours), raised to the recent P75; × (1 + 30%);
//  - memory: the policy percentile of a decaying histogram of the working set (half-life
//    24 hours), raised to the recent P75; after an OOM kill at least VPA's bump
//    max(m + 100Mi, 1.2 m); × (1 + 15%);
//  - then the policy's bounds, allowDecrease, a 10% minimum change for decreases (an increase
//    of any size is made), decreases capped at the policy's maxChangePercent during the first
//    day of data only (increases never), and the limit rule (controlledValues).
// Every window it reads must hold a sample, else enoughData = false. Without its per-container
// histograms (a caller that keeps none) the history window's percentile stands in for them.
#pragma once

#include "core/time.h"
#include "recommend/strategy.h"

namespace attune::recommend {

// The half-life of the CPU histogram: a burst a day old weighs 1/16 of one now. On a node
// packed by requests a request held for an idle container is CPU its busy neighbours cannot be
// granted: their increases wait Deferred. On the 30-day Bitbrains backtest (docs/strategies.md)
// the week's percentile and busy hours held requests for a week; 24, 12 and 6 hours each
// lowered the share of samples with CPU above request and raised the CPU saved.
inline constexpr Duration kAdaptiveCpuHalfLife = std::chrono::hours(6);
// The half-life of the memory histogram (VPA's).
inline constexpr Duration kAdaptiveMemoryHalfLife = std::chrono::hours(24);
// Decreases are capped at the policy's maxChangePercent while the container has less data than
// this (days).
inline constexpr double kAdaptiveCappedDecreaseDays = 1;
// The CPU margin: +30%. On a cluster packed by requests a container's request is the CPU it
// is sure to get when its neighbours burst.
inline constexpr double kAdaptiveCpuMargin = 0.30;
// The memory margin: +15%, as VPA's and krr's.
inline constexpr double kAdaptiveMemoryMargin = 0.15;
// VPA's OOM bump: the memory at an OOM kill × 1.2, and at least + 100 MiB.
inline constexpr double kAdaptiveOomBumpRatio = 1.2;
inline constexpr double kAdaptiveOomMinBumpBytes = 100.0 * 1024 * 1024;

StrategyPtr makeAdaptiveStrategy();

}  // namespace attune::recommend
