#include "safety/observation.h"

#include <algorithm>

#include "api/policy/policy_defaults.h"

namespace attune::safety {

Duration observationPeriod(const api::AttunePolicySpec& spec, const ObservationOptions& options) {
  const api::UpdateStrategy& u = spec.updateStrategy;
  Duration period = api::kDefaultSafetyObservationPeriod;
  if (u.safetyObservationPeriod) {
    period = *u.safetyObservationPeriod;
  } else if (u.canary && u.canary->observationPeriod) {
    period = *u.canary->observationPeriod;
  }
  period = std::max(period, api::kMinimumObservationPeriod);
  for (const api::SloGuardrail& g : u.sloGuardrails) {
    period = std::max(period, g.evaluationWindow.value_or(api::kDefaultSloEvaluationWindow));
  }
  return std::max(period, options.throttleWindow + options.sampleInterval);
}

}  // namespace attune::safety
