// Stale recommendations are not applied: a recommendation rests on the usage samples read so
// far, and when the newest of a workload's samples is older than the freshness bound the
// metrics have stopped arriving (a broken scrape, a relabelled series, a source that answers
// with nothing). The planner then skips the workload with reason StaleRecommendation, and the
// status marks its recommendation `stale`. Pure.
#pragma once

#include <optional>
#include <string>

#include "api/policy/attune_policy.h"
#include "core/time.h"

namespace attune::rollout {

// The least freshness bound: 15 minutes.
inline constexpr Duration kMinimumFreshness = std::chrono::minutes(15);

// How old the newest sample may be: max(15 minutes, 3 × metricsSource.queryStep) (queryStep
// unset: its default).
Duration freshnessBound(const api::MetricsSource& source);

// Why a recommendation whose newest sample is at `lastDataTime` must not be applied at `now`
// (older than `bound`); nullopt when it is fresh or there is no sample time.
std::optional<std::string> staleness(std::optional<Time> lastDataTime, Time now, Duration bound);

}  // namespace attune::rollout
