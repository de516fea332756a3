// Internal to api/policy: the fields this project adds to the AttunePolicy wire format beyond the
// public Attune API (attune.io/v1alpha1). No version of the public API has them; the shipped CRD
// describes each one as "Extension (not in the public attune.io API): ..." and docs/policy.md
// lists them as extensions.
#pragma once

#include <span>

#include "api/policy/policy_schema.h"

namespace attune::api::internal {

// Every extension field, by owner type, sorted by fieldOrder. Two kinds:
//   - modeled by Attune (policy_fields.h reads and writes them): spec.strategy,
//     spec.nodeOptimization, status bookkeeping (observedGeneration, consecutiveReverts,
//     lastResizeTime), a resize's pod, a recommendation's rationale and status.canary.workloads;
//   - accepted but not implemented (kept verbatim, with a warning under spec): containerPolicies,
//     limitMultiplier, oomBump, surge, hpaTargetBounds, per-minute increase budgets and a few
//     more, so that policies already using them still decode.
std::span<const SchemaField> extensionFields();

}  // namespace attune::api::internal
