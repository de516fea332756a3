#include "rollout/freshness.h"

#include <algorithm>

#include "api/policy/policy_defaults.h"

namespace attune::rollout {

Duration freshnessBound(const api::MetricsSource& source) {
  return std::max(kMinimumFreshness, 3 * source.queryStep.value_or(api::kDefaultQueryStep));
}

std::optional<std::string> staleness(std::optional<Time> lastDataTime, Time now, Duration bound) {
  if (!lastDataTime || now - *lastDataTime <= bound) return std::nullopt;
  return "the newest usage sample is from " + formatRfc3339(*lastDataTime) + ", " +
         formatDuration(std::chrono::floor<std::chrono::seconds>(now - *lastDataTime)) +
         " ago, older than the freshness bound of " + formatDuration(bound) +
         "; no resize rests on stale data";
}

}  // namespace attune::rollout
