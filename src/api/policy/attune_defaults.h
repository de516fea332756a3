// The defaults APIs (attune.io/v1alpha1): AttuneDefaults (cluster-scoped) and
// AttuneNamespaceDefaults (namespaced). Both carry the same spec, the public operator's
// AttuneDefaultsSpec: the parts of an AttunePolicy spec a policy may inherit (metricsSource, cpu,
// memory, updateStrategy, excludeKnownSidecars) and costPricing, which only defaults have.
//
// A policy's effective spec is merged field by field: policy > namespace defaults > cluster
// defaults > built-in defaults (applyDefaults(), policy_defaults.h). mergeDefaults() is that
// merge; docs/policy.md ("Defaults in three tiers") states its rules.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"

namespace attune::api {

inline constexpr std::string_view kDefaultsKind = "AttuneDefaults";
inline constexpr std::string_view kNamespaceDefaultsKind = "AttuneNamespaceDefaults";

enum class DefaultsScope { kCluster, kNamespace };

// spec.costPricing: prices for savings estimates, as decimal strings ("0.031"). Attune does not
// write cost estimates; the values are validated and kept.
struct CostPricing {
  std::optional<std::string> cpuPerCoreHour;
  std::optional<std::string> memoryPerGiBHour;
  bool operator==(const CostPricing&) const = default;
};

struct AttuneDefaultsSpec {
  MetricsSource metricsSource;
  CpuPolicy cpu;
  MemoryPolicy memory;
  UpdateStrategy updateStrategy;
  std::optional<bool> excludeKnownSidecars;
  std::optional<CostPricing> costPricing;
  bool operator==(const AttuneDefaultsSpec&) const = default;
};

// One AttuneDefaults or AttuneNamespaceDefaults object. `preserved` holds the public fields
// Attune accepts without modelling them (spec.updateStrategy.export,
// spec.metricsSource.datadog, ...), with absolute paths as in AttunePolicy; they are inherited
// like modelled fields.
struct AttuneDefaults {
  DefaultsScope scope = DefaultsScope::kCluster;
  ObjectMeta metadata;
  AttuneDefaultsSpec spec;
  std::vector<PreservedField> preserved;  // sorted by path
  SourceMap sources;
  bool operator==(const AttuneDefaults&) const = default;
};

// An AttuneNamespaceDefaults object: the same data, a distinct type for the typed APIs (lists,
// stores, encoders); scope is always kNamespace.
struct AttuneNamespaceDefaults : AttuneDefaults {
  AttuneNamespaceDefaults() { scope = DefaultsScope::kNamespace; }
  explicit AttuneNamespaceDefaults(AttuneDefaults d) : AttuneDefaults(std::move(d)) {
    scope = DefaultsScope::kNamespace;
  }
};

std::string_view kindOf(DefaultsScope scope);

// ---- Codec

struct DecodedDefaults {
  std::optional<AttuneDefaults> defaults;  // present when the document is one of the two kinds
  std::vector<PolicyDiagnostic> errors;
  std::vector<PolicyDiagnostic> warnings;
  int documentIndex = 0;
  int line = 0;
};

// True when a document of this apiVersion and kind is a defaults object.
bool isDefaultsKind(std::string_view kind);

// Decodes every AttuneDefaults and AttuneNamespaceDefaults document of a YAML stream (documents
// of other kinds are skipped) with the rules, messages and field paths of an AttunePolicy:
// unknown fields are errors, public fields Attune does not model are preserved with a warning. A
// YAML syntax error yields one result holding it. Does not validate. Never throws.
std::vector<DecodedDefaults> decodeDefaults(std::string_view yamlOrJson);

// Validation: the AttunePolicy rules for the fields a defaults spec shares with a policy (field
// paths "spec.cpu.percentile", ...), and costPricing's prices. Pure.
std::vector<PolicyDiagnostic> validateDefaults(const AttuneDefaults& defaults);

// decodeDefaults() then validateDefaults(): every error and warning of each document.
std::vector<DecodedDefaults> checkDefaults(std::string_view yamlOrJson);

std::string encodeDefaultsYaml(const AttuneDefaults& defaults);
std::string encodeDefaultsJson(const AttuneDefaults& defaults);

// ---- Merge

// Of several defaults objects of one scope, the one that applies: the lexicographically
// smallest metadata.name (the public operator's rule). nullptr when `candidates` is empty.
template <typename D>
const D* selectDefaults(const std::vector<D>& candidates) {
  const D* best = nullptr;
  for (const D& d : candidates) {
    if (best == nullptr || d.metadata.name < best->metadata.name) best = &d;
  }
  return best;
}
// The same among the objects in namespace `namespace_` (others are ignored).
template <typename D>
const D* selectNamespaceDefaults(const std::vector<D>& candidates, std::string_view namespace_) {
  const D* best = nullptr;
  for (const D& d : candidates) {
    if (d.metadata.namespace_ != namespace_) continue;
    if (best == nullptr || d.metadata.name < best->metadata.name) best = &d;
  }
  return best;
}

// The policy with every field it leaves unset taken from `namespaceDefaults`, then from
// `clusterDefaults` (either may be null); built-in defaults are left to applyDefaults(). Pure.
// Rules:
//  - scalars, enumerations, quantities and durations are inherited one by one; percentile 0 and
//    an empty overhead count as unset;
//  - updateStrategy.canary is merged field by field, updateStrategy.schedule as one value;
//  - cpu.startupBoost and updateStrategy.sloGuardrails are inherited as whole values (the list
//    only when the policy has no guardrail);
//  - the metrics provider is one unit: `metricsSource.prometheus` (address, headers,
//    bearerTokenSecret, tls) and the preserved datadog, cloudwatch and vpa blocks come together
//    from the highest tier that sets a provider (a prometheus block counts when it has an
//    address), so a token never travels to another tier's address;
//  - preserved public fields (export, ...) are inherited as whole values at
//    their paths;
//  - costPricing is not part of a policy and is not merged into it.
AttunePolicy mergeDefaults(AttunePolicy policy, const AttuneDefaults* namespaceDefaults,
                           const AttuneDefaults* clusterDefaults);

}  // namespace attune::api
