// The attune strategy: the policy's percentile over the history window (and over each
// hour of the day), plus overhead, widened while history is short, clamped to the policy's
// bounds, then the change rules (allowDecrease, 10% minimum change, maxChangePercent cap) and
// the limit rule (controlledValues). docs/strategies.md gives the formulas.
#pragma once

#include "recommend/strategy.h"

namespace attune::recommend {

// Changes smaller than this (percent of the current value) keep the current value.
inline constexpr double kMinChangePercent = 10;
// The largest short-history widening (+50%).
inline constexpr double kMaxWidening = 0.5;

// The fraction added while history is short: with d days of data in a history window of H
// days, min(kMaxWidening, 1/sqrt(d) - 1/sqrt(H)) for 0 < d < H, kMaxWidening for d <= 0, and 0
// for d >= H. It shrinks like the standard error of a percentile (1/sqrt of the data) and
// reaches 0 exactly when the window is full: 1 day of 7 → +50%, 2 → +33%, 4 → +12%, 7 → 0.
double shortHistoryWidening(double days, double historyDays);

StrategyPtr makeAttuneStrategy();

}  // namespace attune::recommend
