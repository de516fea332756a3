// Reading and writing AttunePolicy documents (YAML or JSON). None of these functions throws.
// Includes the defaulting and validation entry points, so this one header serves a tool that
// decodes, defaults, validates and prints policies.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"
#include "api/policy/policy_defaults.h"
#include "api/policy/policy_validation.h"

namespace attune::api {

// The outcome of decoding one document of a stream.
struct DecodedPolicy {
  // Present when the document is an AttunePolicy (right apiVersion and kind). When `errors` is not
  // empty it is incomplete — each offending field is left unset — and must not be acted on.
  std::optional<AttunePolicy> policy;
  // Every problem found, each with the field path and source position: wrong types, malformed
  // quantities and durations, unknown fields, a wrong apiVersion or kind, YAML syntax errors.
  std::vector<PolicyDiagnostic> errors;
  // Fields of the public Attune API that Attune accepts but does not act on (one warning per
  // field, naming its path). The fields are preserved in policy->preserved.
  std::vector<PolicyDiagnostic> warnings;
  int documentIndex = 0;  // 0-based position of the document in the stream
  int line = 0;           // 1-based line where the document starts; 0 if unknown
};

// Decodes every document of a YAML stream (JSON is accepted as YAML). Empty documents are
// skipped. A `kind: List` (or AttunePolicyList) document yields one result per item, all with the
// list's documentIndex. A YAML syntax error yields a single result holding that error and its
// line, whatever else the stream contains. Unknown fields are errors, never dropped silently.
// Decoding does not default or validate: see applyDefaults() and validatePolicy().
std::vector<DecodedPolicy> decodePolicies(std::string_view yamlOrJson);

// The whole `attune policy validate` pipeline for one stream: decodePolicies(), then
// validatePolicy() and policyWarnings() on a defaulted copy of each decoded policy. Each result's
// errors and warnings hold both kinds; a validation error on a field that already failed to decode
// is dropped. `policy` stays as written (not defaulted).
std::vector<DecodedPolicy> checkPolicies(std::string_view yamlOrJson);

// Encodes `policy` as one YAML document / one JSON object, with a stable field order: apiVersion,
// kind, metadata, spec, status, each struct in declaration order, maps sorted by key. Unset
// optional fields are omitted, durations use formatDuration, quantities their canonical form, and
// preserved public fields are put back at their paths. decodePolicies() of the output yields a
// policy equal to `policy`.
std::string encodePolicyYaml(const AttunePolicy& policy);
std::string encodePolicyJson(const AttunePolicy& policy);

}  // namespace attune::api
