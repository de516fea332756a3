// Validation of AttunePolicy: every rule, all errors at once, each with its field path and (for
// decoded policies) source position. docs/policy.md lists the rules.
#pragma once

#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"

namespace attune::api {

// Returns every rule `policy` breaks; empty means valid. Pure. Messages read
// "must be at least 1m, got 30s" with the path in error.field, e.g.
// "spec.updateStrategy.safetyObservationPeriod". Meant for a defaulted policy (applyDefaults()
// first); on an undefaulted one, unset defaulted fields are simply not checked. Covers single
// fields (bounds, enumerated integers, formats, required fields) and cross-field rules
// (minAllowed ≤ maxAllowed, rateWindow ≤ historyWindow, canary settings when type is Canary,
// name or selector in targetRef, ...). Lines come from policy.sources: the field's own position,
// else its nearest written ancestor's. Errors are ordered by line (rule order where unknown).
std::vector<PolicyDiagnostic> validatePolicy(const AttunePolicy& policy);

// Orders diagnostics by source line (stable; unknown lines last).
void sortBySourceLine(std::vector<PolicyDiagnostic>& diagnostics);

// Settings that are valid but probably not what the author meant (a canary block while type is
// not Canary, TLS verification disabled). Pure.
std::vector<PolicyDiagnostic> policyWarnings(const AttunePolicy& policy);

}  // namespace attune::api
