// How long a resized pod is observed before its resize is declared safe.
#pragma once

#include <chrono>

#include "api/policy/attune_policy.h"
#include "core/time.h"

namespace attune::safety {

// What the throttle check looks at. The throttle ratio is
//   rate(container_cpu_cfs_throttled_periods_total[W]) / rate(container_cpu_cfs_periods_total[W])
// evaluated at the end of the observation period. A rate over (t − W, t] only holds post-resize
// data when its first sample is itself taken after the resize; counters are sampled every
// `sampleInterval`, so the first post-resize sample can come up to one interval after the
// resize. The earliest time the check sees post-resize data only is therefore
//   resizedAt + throttleWindow + sampleInterval.
struct ObservationOptions {
  Duration throttleWindow = std::chrono::minutes(5);  // W
  Duration sampleInterval = std::chrono::minutes(1);  // scrape interval of the cAdvisor counters
};

// The observation period of a resize under `spec`:
//   1. the configured period: updateStrategy.safetyObservationPeriod when set, else
//      updateStrategy.canary.observationPeriod when set, else api::kDefaultSafetyObservationPeriod
//      (5 minutes);
//   2. raised to api::kMinimumObservationPeriod (1 minute);
//   3. raised to throttleWindow + sampleInterval (see ObservationOptions), so that the throttle
//      check at the end of the period never reads pre-resize data;
//   4. raised to the longest updateStrategy.sloGuardrails[].evaluationWindow (default 5m), so
//      that every guardrail is evaluated before the resize is declared safe.
// With the defaults every period is at least 6 minutes. Pure.
Duration observationPeriod(const api::AttunePolicySpec& spec,
                           const ObservationOptions& options = {});

}  // namespace attune::safety
