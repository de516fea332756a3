// AttuneDefaults / AttuneNamespaceDefaults: decoding and encoding through the AttunePolicy codec
// (the shared spec fields are the policy's, with the same field lists, rules and messages),
// validation, selection and the merge into a policy.
#include "api/policy/attune_defaults.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <exception>
#include <nlohmann/json.hpp>
#include <utility>

#include "api/policy/policy_codec.h"
#include "api/policy/policy_emit.h"
#include "api/policy/policy_yaml.h"
#include "api/yaml/yaml_reader.h"
#include "api/yaml/yaml_stream.h"

namespace attune::api {
namespace {

using Json = nlohmann::ordered_json;

// The spec fields a defaults object shares with a policy, and the one it adds.
constexpr std::array<std::string_view, 5> kSharedSpecFields = {
    "metricsSource", "cpu", "memory", "updateStrategy", "excludeKnownSidecars"};
constexpr std::string_view kCostPricing = "costPricing";
constexpr std::array<std::string_view, 4> kDocumentFields = {"apiVersion", "kind", "metadata",
                                                             "spec"};
// The metrics providers: exactly one tier supplies them (see mergeDefaults()).
constexpr std::array<std::string_view, 4> kProviderPaths = {
    "spec.metricsSource.prometheus", "spec.metricsSource.datadog", "spec.metricsSource.cloudwatch",
    "spec.metricsSource.vpa"};

bool isUnder(std::string_view path, std::string_view prefix) {
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

bool isProviderPath(std::string_view path) {
  return std::any_of(kProviderPaths.begin(), kProviderPaths.end(),
                     [&](std::string_view p) { return isUnder(path, p); });
}

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

PolicyDiagnostic diagnostic(const YAML::Node& at, std::string path, std::string message,
                            ErrorCode code = ErrorCode::kInvalidArgument) {
  const SourcePosition pos = internal::positionOf(at);
  return {Error{code, std::move(message), std::move(path)}, pos.line, pos.column};
}

std::optional<YAML::Node> lookup(const YAML::Node& map, std::string_view key) {
  for (const auto& entry : map) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return std::nullopt;
}

// spec.costPricing: a mapping of two optional decimal strings.
void readCostPricing(const YAML::Node& node, AttuneDefaults& out,
                     std::vector<PolicyDiagnostic>& errors) {
  const std::string path = "spec.costPricing";
  if (node.IsNull()) return;
  if (!node.IsMap()) {
    errors.push_back(diagnostic(node, path, "must be an object"));
    return;
  }
  out.sources.record(path, internal::positionOf(node));
  CostPricing& pricing = out.spec.costPricing.emplace();
  for (const auto& entry : node) {
    const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
    const std::string fieldPath = path + "." + name;
    std::optional<std::string>* field = name == "cpuPerCoreHour"     ? &pricing.cpuPerCoreHour
                                        : name == "memoryPerGiBHour" ? &pricing.memoryPerGiBHour
                                                                     : nullptr;
    if (field == nullptr) {
      errors.push_back(diagnostic(entry.first, fieldPath, "unknown field \"" + name + "\""));
      continue;
    }
    out.sources.record(fieldPath, internal::positionOf(entry.first));
    if (entry.second.IsNull()) continue;
    if (!entry.second.IsScalar()) {
      errors.push_back(diagnostic(entry.second, fieldPath, "must be a string such as \"0.031\""));
      continue;
    }
    *field = entry.second.Scalar();
  }
}

DecodedDefaults decodeDocument(const YAML::Node& doc, int index, DefaultsScope scope) {
  DecodedDefaults out;
  out.documentIndex = index;
  out.line = internal::positionOf(doc).line;
  // The same document as an AttunePolicy holding only the shared spec fields: the policy decoder
  // reads it with the policy's rules, paths and positions (the nodes keep their marks).
  YAML::Node asPolicy(YAML::NodeType::Map);
  asPolicy["kind"] = std::string(kPolicyKind);
  YAML::Node costPricing;
  for (const auto& entry : doc) {
    const std::string name = entry.first.IsScalar() ? entry.first.Scalar() : std::string();
    if (!contains(kDocumentFields, name)) {
      out.errors.push_back(diagnostic(entry.first, name, "unknown field \"" + name + "\""));
      continue;
    }
    if (name == "kind") continue;
    if (name != "spec") {
      asPolicy[name] = entry.second;
      continue;
    }
    if (entry.second.IsNull()) continue;
    if (!entry.second.IsMap()) {
      out.errors.push_back(diagnostic(entry.second, "spec", "must be an object"));
      continue;
    }
    YAML::Node spec(YAML::NodeType::Map);
    for (const auto& field : entry.second) {
      const std::string fieldName = field.first.IsScalar() ? field.first.Scalar() : std::string();
      if (fieldName == kCostPricing) {
        costPricing = field.second;
      } else if (contains(kSharedSpecFields, fieldName)) {
        spec[fieldName] = field.second;
      } else {
        out.errors.push_back(diagnostic(field.first, "spec." + fieldName,
                                        "unknown field \"" + fieldName + "\" (" +
                                            std::string(kindOf(scope)) + " has " +
                                            "costPricing, cpu, excludeKnownSidecars, memory, " +
                                            "metricsSource and updateStrategy)"));
      }
    }
    asPolicy["spec"] = spec;
  }
  DecodedPolicy decoded = decodePolicyNode(asPolicy, index);
  for (PolicyDiagnostic& e : decoded.errors) out.errors.push_back(std::move(e));
  for (PolicyDiagnostic& w : decoded.warnings) out.warnings.push_back(std::move(w));
  if (!decoded.policy) return out;
  AttuneDefaults defaults;
  defaults.scope = scope;
  AttunePolicy& p = *decoded.policy;
  defaults.metadata = std::move(p.metadata);
  defaults.spec.metricsSource = std::move(p.spec.metricsSource);
  defaults.spec.cpu = std::move(p.spec.cpu);
  defaults.spec.memory = std::move(p.spec.memory);
  defaults.spec.updateStrategy = std::move(p.spec.updateStrategy);
  defaults.spec.excludeKnownSidecars = p.spec.excludeKnownSidecars;
  defaults.preserved = std::move(p.preserved);
  defaults.sources = std::move(p.sources);
  if (costPricing) readCostPricing(costPricing, defaults, out.errors);
  sortBySourceLine(out.errors);
  out.defaults = std::move(defaults);
  return out;
}

DecodedDefaults streamError(std::string message, int line, int column) {
  DecodedDefaults out;
  out.errors.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), ""}, line, column});
  out.line = line;
  return out;
}

// The shared spec fields as a policy (no target): for the policy encoder and validator.
AttunePolicy asPolicy(const AttuneDefaults& d) {
  AttunePolicy p;
  p.metadata = d.metadata;
  p.spec.metricsSource = d.spec.metricsSource;
  p.spec.cpu = d.spec.cpu;
  p.spec.memory = d.spec.memory;
  p.spec.updateStrategy = d.spec.updateStrategy;
  p.spec.excludeKnownSidecars = d.spec.excludeKnownSidecars;
  p.preserved = d.preserved;
  p.sources = d.sources;
  return p;
}

Json encodeDocument(const AttuneDefaults& d) {
  Json policy = Json::parse(encodePolicyJson(asPolicy(d)));
  Json out = Json::object();
  out["apiVersion"] = kPolicyApiVersion;
  out["kind"] = kindOf(d.scope);
  if (policy.contains("metadata")) out["metadata"] = policy["metadata"];
  Json spec = policy.contains("spec") ? policy["spec"] : Json::object();
  if (d.spec.costPricing) {
    Json& pricing = spec[std::string(kCostPricing)] = Json::object();
    if (d.spec.costPricing->cpuPerCoreHour) {
      pricing["cpuPerCoreHour"] = *d.spec.costPricing->cpuPerCoreHour;
    }
    if (d.spec.costPricing->memoryPerGiBHour) {
      pricing["memoryPerGiBHour"] = *d.spec.costPricing->memoryPerGiBHour;
    }
  }
  if (!spec.empty()) out["spec"] = std::move(spec);
  return out;
}

// ---- Merge helpers: fill what `to` leaves unset from `from`.

template <typename T>
void fill(std::optional<T>& to, const std::optional<T>& from) {
  if (!to && from) to = from;
}

template <typename Amount>
void fillResource(ResourcePolicy<Amount>& to, const ResourcePolicy<Amount>& from) {
  if ((!to.percentile || *to.percentile == 0) && from.percentile && *from.percentile != 0) {
    to.percentile = from.percentile;
  }
  if ((!to.overhead || to.overhead->empty()) && from.overhead && !from.overhead->empty()) {
    to.overhead = from.overhead;
  }
  fill(to.minAllowed, from.minAllowed);
  fill(to.maxAllowed, from.maxAllowed);
  fill(to.controlledValues, from.controlledValues);
  fill(to.allowDecrease, from.allowDecrease);
  fill(to.maxChangePercent, from.maxChangePercent);
  fill(to.startupBoost, from.startupBoost);  // a whole value (spec.cpu only)
  fill(to.decreaseUsageMarginPercent, from.decreaseUsageMarginPercent);
}

bool hasProvider(const MetricsSource& m, const std::vector<PreservedField>& preserved) {
  if (m.prometheus && !m.prometheus->address.empty()) return true;
  return std::any_of(preserved.begin(), preserved.end(),
                     [](const PreservedField& f) { return isProviderPath(f.path); });
}

void fillFrom(AttunePolicy& p, const AttuneDefaults& d) {
  AttunePolicySpec& s = p.spec;
  const AttuneDefaultsSpec& from = d.spec;

  const bool providerFromDefaults =
      !hasProvider(s.metricsSource, p.preserved) && hasProvider(from.metricsSource, d.preserved);
  if (providerFromDefaults) {
    s.metricsSource.prometheus = from.metricsSource.prometheus;
    std::erase_if(p.preserved, [](const PreservedField& f) { return isProviderPath(f.path); });
    for (const PreservedField& f : d.preserved) {
      if (isProviderPath(f.path)) p.preserved.push_back(f);
    }
  }
  fill(s.metricsSource.historyWindow, from.metricsSource.historyWindow);
  fill(s.metricsSource.minimumDataPoints, from.metricsSource.minimumDataPoints);
  fill(s.metricsSource.queryStep, from.metricsSource.queryStep);
  fill(s.metricsSource.rateWindow, from.metricsSource.rateWindow);
  fill(s.metricsSource.podAggregation, from.metricsSource.podAggregation);

  fillResource(s.cpu, from.cpu);
  fillResource(s.memory, from.memory);

  UpdateStrategy& u = s.updateStrategy;
  const UpdateStrategy& fu = from.updateStrategy;
  fill(u.type, fu.type);
  if (fu.canary) {
    if (!u.canary) {
      u.canary = fu.canary;
    } else {
      fill(u.canary->percentage, fu.canary->percentage);
      fill(u.canary->observationPeriod, fu.canary->observationPeriod);
      fill(u.canary->autoPromote, fu.canary->autoPromote);
    }
  }
  fill(u.cooldown, fu.cooldown);
  fill(u.autoRevert, fu.autoRevert);
  fill(u.safetyObservationPeriod, fu.safetyObservationPeriod);
  fill(u.maxConcurrentResizes, fu.maxConcurrentResizes);
  // The schedule is one unit (its windows, days and zone belong together); the budgets are not.
  fill(u.schedule, fu.schedule);
  fill(u.maxTotalCpuIncrease, fu.maxTotalCpuIncrease);
  fill(u.maxTotalMemoryIncrease, fu.maxTotalMemoryIncrease);
  if (u.sloGuardrails.empty()) u.sloGuardrails = fu.sloGuardrails;  // the list as a whole
  fill(u.resizeMethod, fu.resizeMethod);

  fill(s.excludeKnownSidecars, from.excludeKnownSidecars);

  // Preserved values other than the provider: whole values, where the policy has none on the
  // same path, above it or below it.
  for (const PreservedField& f : d.preserved) {
    if (isProviderPath(f.path) || !f.path.starts_with("spec.")) continue;
    const bool taken = std::any_of(p.preserved.begin(), p.preserved.end(), [&](const auto& own) {
      return isUnder(own.path, f.path) || isUnder(f.path, own.path);
    });
    if (!taken) p.preserved.push_back(f);
  }
}

}  // namespace

std::string_view kindOf(DefaultsScope scope) {
  return scope == DefaultsScope::kCluster ? kDefaultsKind : kNamespaceDefaultsKind;
}

bool isDefaultsKind(std::string_view kind) {
  return kind == kDefaultsKind || kind == kNamespaceDefaultsKind;
}

std::vector<DecodedDefaults> decodeDefaults(std::string_view yamlOrJson) {
  std::vector<DecodedDefaults> out;
  try {
    const std::vector<YAML::Node> docs = internal::loadDocuments(std::string(yamlOrJson));
    for (std::size_t i = 0; i < docs.size(); ++i) {
      const YAML::Node& doc = docs[i];
      if (!doc.IsMap()) continue;
      const auto kind = lookup(doc, "kind");
      if (!kind || !kind->IsScalar() || !isDefaultsKind(kind->Scalar())) continue;
      const DefaultsScope scope =
          kind->Scalar() == kDefaultsKind ? DefaultsScope::kCluster : DefaultsScope::kNamespace;
      out.push_back(decodeDocument(doc, static_cast<int>(i), scope));
    }
  } catch (const YAML::Exception& e) {
    const bool known = !e.mark.is_null();
    return {streamError("invalid YAML: " + e.msg, known ? e.mark.line + 1 : 0,
                        known ? e.mark.column + 1 : 0)};
  } catch (const std::exception& e) {
    return {streamError(std::string("cannot decode defaults: ") + e.what(), 0, 0)};
  }
  return out;
}

std::vector<PolicyDiagnostic> validateDefaults(const AttuneDefaults& defaults) {
  std::vector<PolicyDiagnostic> out;
  for (PolicyDiagnostic& e : validatePolicy(asPolicy(defaults))) {
    // A defaults object has no target; every other rule of the shared fields applies.
    if (isUnder(e.error.field, "spec.targetRef")) continue;
    out.push_back(std::move(e));
  }
  if (const auto& pricing = defaults.spec.costPricing) {
    const auto check = [&](const std::optional<std::string>& price, const char* name) {
      if (!price || parsePercent(*price)) return;
      const std::string path = std::string("spec.costPricing.") + name;
      const SourcePosition pos = defaults.sources.find(path);
      out.push_back(
          {Error{ErrorCode::kInvalidArgument,
                 "must be a non-negative decimal such as \"0.031\", got \"" + *price + "\"", path},
           pos.line, pos.column});
    };
    check(pricing->cpuPerCoreHour, "cpuPerCoreHour");
    check(pricing->memoryPerGiBHour, "memoryPerGiBHour");
  }
  sortBySourceLine(out);
  return out;
}

std::vector<DecodedDefaults> checkDefaults(std::string_view yamlOrJson) {
  std::vector<DecodedDefaults> results = decodeDefaults(yamlOrJson);
  for (DecodedDefaults& result : results) {
    if (!result.defaults || !result.errors.empty()) continue;
    for (PolicyDiagnostic& e : validateDefaults(*result.defaults)) {
      result.errors.push_back(std::move(e));
    }
  }
  return results;
}

std::string encodeDefaultsYaml(const AttuneDefaults& defaults) {
  return internal::emitYaml(encodeDocument(defaults));
}

std::string encodeDefaultsJson(const AttuneDefaults& defaults) {
  return encodeDocument(defaults).dump(2, ' ', true, nlohmann::json::error_handler_t::replace) +
         "\n";
}

AttunePolicy mergeDefaults(AttunePolicy policy, const AttuneDefaults* namespaceDefaults,
                           const AttuneDefaults* clusterDefaults) {
  AttunePolicy out = std::move(policy);
  if (namespaceDefaults != nullptr) fillFrom(out, *namespaceDefaults);
  if (clusterDefaults != nullptr) fillFrom(out, *clusterDefaults);
  std::sort(out.preserved.begin(), out.preserved.end(),
            [](const PreservedField& a, const PreservedField& b) { return a.path < b.path; });
  return out;
}

}  // namespace attune::api
