#include "safety/observation.h"

#include <algorithm>

namespace attune::safety {

Duration observationPeriod(const api::AttunePolicySpec& spec, const ObservationOptions& options) {
  const api::UpdateStrategy& u = spec.updateStrategy;
  Duration period = kDefaultObservationPeriod;
  if (u.safetyObservationPeriod) {
    period = *u.safetyObservationPeriod;
  } else if (u.canary && u.canary->observationPeriod) {
    period = *u.canary->observationPeriod;
  }
  period = std::max(period, kMinimumObservationPeriod);
  return std::max(period, options.throttleWindow + options.sampleInterval);
}

}  // namespace attune::safety
