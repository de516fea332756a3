// The krr strategy (robusta-dev/krr's "simple" strategy): CPU request = p95 of usage over the
// history window, no CPU limit; memory request = memory limit = max usage × (1 + 15%), where the
// max is the larger of the history-window maximum and the last week's maximum.
#pragma once

#include "recommend/strategy.h"

namespace attune::recommend {

inline constexpr double kKrrCpuPercentile = 0.95;
inline constexpr double kKrrMemoryBuffer = 0.15;

StrategyPtr makeKrrStrategy();

}  // namespace attune::recommend
