#include "safety/slo_guardrails.h"

#include "api/policy/policy_defaults.h"

namespace attune::safety {

std::vector<const api::SloGuardrail*> dueGuardrails(const api::UpdateStrategy& strategy,
                                                    Time resizedAt, Time now) {
  std::vector<const api::SloGuardrail*> due;
  for (const api::SloGuardrail& g : strategy.sloGuardrails) {
    if (!api::parseDecimal(g.threshold)) continue;
    const Duration window = g.evaluationWindow.value_or(api::kDefaultSloEvaluationWindow);
    if (now >= resizedAt + window) due.push_back(&g);
  }
  return due;
}

GuardrailReading readingOf(const api::SloGuardrail& guardrail) {
  return {.name = guardrail.name,
          .threshold = api::parseDecimal(guardrail.threshold).value_or(0),
          .comparison = guardrail.comparison.value_or(api::kDefaultSloComparison),
          .value = std::nullopt,
          .error = {}};
}

bool breaches(const GuardrailReading& reading) {
  if (!reading.value) return false;
  return reading.comparison == api::SloComparison::kAbove ? *reading.value > reading.threshold
                                                          : *reading.value < reading.threshold;
}

const GuardrailReading* firstBreach(const std::vector<GuardrailReading>& readings) {
  for (const GuardrailReading& r : readings) {
    if (breaches(r)) return &r;
  }
  return nullptr;
}

std::string sloRevertReason(std::string_view name) { return "slo:" + std::string(name); }

}  // namespace attune::safety
