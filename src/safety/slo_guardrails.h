// SLO guardrails (updateStrategy.sloGuardrails, docs/slo-guardrails.md): which guardrails are due
// for a resized pod, and whether the values the caller read breach them. Pure: the values are
// read by the caller (the controller, through a metrics::ScalarQuery) and passed in.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"
#include "core/time.h"

namespace attune::safety {

// One guardrail's reading for one resized pod.
struct GuardrailReading {
  std::string name;
  double threshold = 0;
  api::SloComparison comparison = api::SloComparison::kAbove;
  // The query's value; nullopt when there is none (a query error, an empty result, NaN or Inf):
  // the guardrail then fails open (no breach) and `error` says why.
  std::optional<double> value;
  std::string error;
};

// The guardrails of `strategy` whose evaluationWindow (defaulted: 5m) has passed at `now` for a
// resize at `resizedAt`, in the order listed; a guardrail whose threshold does not parse is left
// out (validation rejects it).
std::vector<const api::SloGuardrail*> dueGuardrails(const api::UpdateStrategy& strategy,
                                                    Time resizedAt, Time now);

// A reading of `guardrail` (value or error set by the caller).
GuardrailReading readingOf(const api::SloGuardrail& guardrail);

// True when the reading has a value beyond its threshold: value > threshold for `above`,
// value < threshold for `below`.
bool breaches(const GuardrailReading& reading);

// The first reading that breaches, or nullptr.
const GuardrailReading* firstBreach(const std::vector<GuardrailReading>& readings);

// The reason of a revert caused by guardrail `name`: "slo:<name>" (the history entry's reason and
// attune_reverts_total's `reason` label).
std::string sloRevertReason(std::string_view name);

}  // namespace attune::safety
