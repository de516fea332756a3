// decodePolicies(): YAML/JSON documents → AttunePolicy, on top of PolicyReader.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <exception>

#include "api/policy/policy_codec.h"
#include "api/policy/policy_reader.h"
#include "api/policy/yaml_stream.h"

namespace attune::api {
namespace {

using internal::PolicyReader;
using YAML::Node;
using Path = std::string;

void readSelector(PolicyReader& r, const Node& n, const Path& p, LabelSelector& out) {
  r.object(n, p, "LabelSelector",
           {r.field("matchLabels", out.matchLabels),
            {"matchExpressions", [&](const Node& v, const Path& vp) {
               r.objects<LabelSelectorRequirement>(
                   v, vp, out.matchExpressions,
                   [&](const Node& item, const Path& ip, LabelSelectorRequirement& req) {
                     r.object(item, ip, "LabelSelectorRequirement",
                              {r.field("key", req.key), r.field("operator", req.operator_),
                               r.field("values", req.values)});
                   });
             }}});
}

void readTargetRef(PolicyReader& r, const Node& n, const Path& p, TargetRef& out) {
  r.object(n, p, "TargetRef",
           {r.field("kind", out.kind), r.field("name", out.name),
            {"selector", [&](const Node& v, const Path& vp) {
               readSelector(r, v, vp, out.selector.emplace());
             }}});
}

void readSecretKeyRef(PolicyReader& r, const Node& n, const Path& p, SecretKeyRef& out) {
  r.object(n, p, "SecretKeyRef", {r.field("name", out.name), r.field("key", out.key)});
}

void readPrometheus(PolicyReader& r, const Node& n, const Path& p, PrometheusSource& out) {
  r.object(n, p, "PrometheusConfig",
           {r.field("address", out.address), r.field("headers", out.headers),
            {"bearerTokenSecret",
             [&](const Node& v, const Path& vp) {
               readSecretKeyRef(r, v, vp, out.bearerTokenSecret.emplace());
             }},
            {"tls", [&](const Node& v, const Path& vp) {
               r.object(v, vp, "TLSConfig",
                        {r.field("insecureSkipVerify", out.insecureSkipVerify)});
             }}});
}

void readMetricsSource(PolicyReader& r, const Node& n, const Path& p, MetricsSource& out) {
  r.object(n, p, "MetricsSource",
           {{"prometheus",
             [&](const Node& v, const Path& vp) { readPrometheus(r, v, vp, out.prometheus.emplace()); }},
            r.field("historyWindow", out.historyWindow),
            r.field("minimumDataPoints", out.minimumDataPoints), r.field("queryStep", out.queryStep),
            r.field("rateWindow", out.rateWindow), r.field("podAggregation", out.podAggregation)});
}

template <typename Amount>
void readResource(PolicyReader& r, const Node& n, const Path& p, ResourcePolicy<Amount>& out) {
  r.object(n, p, "ResourceConfig",
           {r.field("percentile", out.percentile), r.field("overhead", out.overhead),
            r.field("minAllowed", out.minAllowed), r.field("maxAllowed", out.maxAllowed),
            r.field("controlledValues", out.controlledValues),
            r.field("allowDecrease", out.allowDecrease),
            r.field("maxChangePercent", out.maxChangePercent)});
}

void readUpdateStrategy(PolicyReader& r, const Node& n, const Path& p, UpdateStrategy& out) {
  r.object(n, p, "UpdateStrategy",
           {r.field("type", out.type),
            {"canary",
             [&](const Node& v, const Path& vp) {
               CanaryConfig& canary = out.canary.emplace();
               r.object(v, vp, "CanaryConfig",
                        {r.field("percentage", canary.percentage),
                         r.field("observationPeriod", canary.observationPeriod),
                         r.field("autoPromote", canary.autoPromote)});
             }},
            r.field("cooldown", out.cooldown), r.field("autoRevert", out.autoRevert),
            r.field("safetyObservationPeriod", out.safetyObservationPeriod),
            r.field("maxConcurrentResizes", out.maxConcurrentResizes)});
}

void readSpec(PolicyReader& r, const Node& n, const Path& p, AttunePolicySpec& out) {
  auto nested = [&](auto& target, auto reader) {
    return [&r, &target, reader](const Node& v, const Path& vp) { reader(r, v, vp, target); };
  };
  r.object(n, p, "AttunePolicySpec",
           {{"targetRef", nested(out.targetRef, readTargetRef)},
            {"metricsSource", nested(out.metricsSource, readMetricsSource)},
            {"cpu", nested(out.cpu, readResource<Millicores>)},
            {"memory", nested(out.memory, readResource<Bytes>)},
            {"updateStrategy", nested(out.updateStrategy, readUpdateStrategy)},
            r.field("excludedContainers", out.excludedContainers),
            r.field("excludeKnownSidecars", out.excludeKnownSidecars),
            r.field("paused", out.paused), r.field("weight", out.weight),
            r.field("strategy", out.strategy)});
}

void readResourceValues(PolicyReader& r, const Node& n, const Path& p, ResourceValues& out) {
  r.object(n, p, "ResourceValues",
           {r.field("cpuRequest", out.cpuRequest), r.field("cpuLimit", out.cpuLimit),
            r.field("memoryRequest", out.memoryRequest), r.field("memoryLimit", out.memoryLimit)});
}

void readContainerRecommendation(PolicyReader& r, const Node& n, const Path& p,
                                 ContainerRecommendation& out) {
  r.object(n, p, "ContainerRecommendation",
           {r.field("name", out.name),
            {"current",
             [&](const Node& v, const Path& vp) { readResourceValues(r, v, vp, out.current); }},
            {"recommended",
             [&](const Node& v, const Path& vp) { readResourceValues(r, v, vp, out.recommended); }},
            r.field("confidence", out.confidence), r.field("dataPoints", out.dataPoints),
            r.field("lastUpdated", out.lastUpdated), r.field("rationale", out.rationale)});
}

void readWorkloadRecommendation(PolicyReader& r, const Node& n, const Path& p,
                                WorkloadRecommendation& out) {
  r.object(n, p, "WorkloadRecommendation",
           {r.field("workload", out.workload), r.field("kind", out.kind),
            {"containers",
             [&](const Node& v, const Path& vp) {
               r.objects<ContainerRecommendation>(
                   v, vp, out.containers,
                   [&](const Node& item, const Path& ip, ContainerRecommendation& c) {
                     readContainerRecommendation(r, item, ip, c);
                   });
             }},
            r.field("lastDataTime", out.lastDataTime), r.field("stale", out.stale)});
}

void readResizeHistoryEntry(PolicyReader& r, const Node& n, const Path& p,
                            ResizeHistoryEntry& out) {
  r.object(n, p, "ResizeHistoryEntry",
           {r.field("timestamp", out.timestamp), r.field("workload", out.workload),
            r.field("pod", out.pod), r.field("container", out.container),
            r.field("resource", out.resource), r.field("from", out.from), r.field("to", out.to),
            r.field("method", out.method), r.field("result", out.result),
            r.field("reason", out.reason)});
}

void readCondition(PolicyReader& r, const Node& n, const Path& p, Condition& out) {
  r.object(n, p, "Condition",
           {r.field("type", out.type), r.field("status", out.status), r.field("reason", out.reason),
            r.field("message", out.message), r.field("lastTransitionTime", out.lastTransitionTime),
            r.field("observedGeneration", out.observedGeneration)});
}

void readStatus(PolicyReader& r, const Node& n, const Path& p, AttunePolicyStatus& out) {
  r.object(n, p, "AttunePolicyStatus",
           {{"conditions",
             [&](const Node& v, const Path& vp) {
               r.objects<Condition>(v, vp, out.conditions,
                                    [&](const Node& item, const Path& ip, Condition& c) {
                                      readCondition(r, item, ip, c);
                                    });
             }},
            {"recommendations",
             [&](const Node& v, const Path& vp) {
               r.objects<WorkloadRecommendation>(
                   v, vp, out.recommendations,
                   [&](const Node& item, const Path& ip, WorkloadRecommendation& w) {
                     readWorkloadRecommendation(r, item, ip, w);
                   });
             }},
            {"resizeHistory",
             [&](const Node& v, const Path& vp) {
               r.objects<ResizeHistoryEntry>(
                   v, vp, out.resizeHistory,
                   [&](const Node& item, const Path& ip, ResizeHistoryEntry& e) {
                     readResizeHistoryEntry(r, item, ip, e);
                   });
             }},
            r.field("consecutiveReverts", out.consecutiveReverts),
            r.field("lastResizeTime", out.lastResizeTime),
            r.field("observedGeneration", out.observedGeneration)});
}

void readMetadata(PolicyReader& r, const Node& n, const Path& p, ObjectMeta& out) {
  r.object(
      n, p, "ObjectMeta",
      {r.field("name", out.name), r.field("generateName", out.generateName),
       r.field("namespace", out.namespace_), r.field("uid", out.uid),
       r.field("resourceVersion", out.resourceVersion), r.field("generation", out.generation),
       r.field("labels", out.labels), r.field("annotations", out.annotations),
       r.field("creationTimestamp", out.creationTimestamp),
       r.field("deletionTimestamp", out.deletionTimestamp),
       {"ownerReferences", [&](const Node& v, const Path& vp) {
          r.objects<OwnerReference>(
              v, vp, out.ownerReferences,
              [&](const Node& item, const Path& ip, OwnerReference& ref) {
                r.object(item, ip, "OwnerReference",
                         {r.field("apiVersion", ref.apiVersion), r.field("kind", ref.kind),
                          r.field("name", ref.name), r.field("uid", ref.uid),
                          r.field("controller", ref.controller)});
              });
        }}});
}

// The value of `key` in mapping `map`, if present.
std::optional<Node> lookup(const Node& map, std::string_view key) {
  for (const auto& entry : map) {
    if (entry.first.IsScalar() && entry.first.Scalar() == key) return entry.second;
  }
  return std::nullopt;
}

// Checks that a document declares `field: expected`; reports and returns false otherwise.
bool expectHeader(PolicyReader& r, const Node& doc, const char* field, std::string_view expected) {
  const auto value = lookup(doc, field);
  if (!value) {
    r.error(doc, field, ErrorCode::kInvalidArgument, "required");
    return false;
  }
  std::string text;
  r.read(*value, field, text);
  if (text == expected) return true;
  if (!text.empty()) {
    r.error(*value, field, ErrorCode::kInvalidArgument,
            "must be " + std::string(expected) + ", got \"" + text + "\"");
  }
  return false;
}

DecodedPolicy decodeDocument(const Node& doc, int index) {
  DecodedPolicy out;
  out.documentIndex = index;
  out.line = internal::positionOf(doc).line;
  AttunePolicy policy;
  PolicyReader r(policy, out.errors, out.warnings);
  if (!doc.IsMap()) {
    r.error(doc, "", ErrorCode::kInvalidArgument, "a policy document must be a mapping");
    return out;
  }
  const bool apiVersionOk = expectHeader(r, doc, "apiVersion", kPolicyApiVersion);
  const bool kindOk = expectHeader(r, doc, "kind", kPolicyKind);
  if (!apiVersionOk || !kindOk) return out;

  auto ignore = [](const Node&, const Path&) {};
  r.object(doc, "", "AttunePolicy",
           {{"apiVersion", ignore},
            {"kind", ignore},
            {"metadata", [&](const Node& v, const Path& vp) { readMetadata(r, v, vp, policy.metadata); }},
            {"spec", [&](const Node& v, const Path& vp) { readSpec(r, v, vp, policy.spec); }},
            {"status", [&](const Node& v, const Path& vp) { readStatus(r, v, vp, policy.status); }}});
  // Canonical order, so that a policy equals its re-decoded encoding (which may move fields).
  std::sort(policy.preserved.begin(), policy.preserved.end(),
            [](const PreservedField& a, const PreservedField& b) { return a.path < b.path; });
  out.policy = std::move(policy);
  return out;
}

bool isList(const Node& doc) {
  if (!doc.IsMap()) return false;
  const auto kind = lookup(doc, "kind");
  return kind && kind->IsScalar() && (kind->Scalar() == "List" || kind->Scalar() == "AttunePolicyList");
}

void decodeList(const Node& doc, int index, std::vector<DecodedPolicy>& out) {
  const auto items = lookup(doc, "items");
  if (!items || items->IsNull()) return;
  if (!items->IsSequence()) {
    DecodedPolicy& bad = out.emplace_back();
    bad.documentIndex = index;
    bad.line = internal::positionOf(doc).line;
    const SourcePosition pos = internal::positionOf(*items);
    bad.errors.push_back({Error{ErrorCode::kInvalidArgument, "must be a list", "items"}, pos.line,
                          pos.column});
    return;
  }
  for (const Node& item : *items) out.push_back(decodeDocument(item, index));
}

DecodedPolicy streamError(std::string message, int line, int column) {
  DecodedPolicy out;
  out.errors.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), ""}, line, column});
  out.line = line;
  return out;
}

// True if `path` is `prefix` or lies under it.
bool isUnder(std::string_view path, std::string_view prefix) {
  if (!path.starts_with(prefix)) return false;
  return path.size() == prefix.size() || path[prefix.size()] == '.' || path[prefix.size()] == '[';
}

}  // namespace

std::vector<DecodedPolicy> decodePolicies(std::string_view yamlOrJson) {
  std::vector<DecodedPolicy> out;
  try {
    const std::vector<Node> docs = internal::loadDocuments(std::string(yamlOrJson));
    for (std::size_t i = 0; i < docs.size(); ++i) {
      if (docs[i].IsNull()) continue;
      if (isList(docs[i])) {
        decodeList(docs[i], static_cast<int>(i), out);
      } else {
        out.push_back(decodeDocument(docs[i], static_cast<int>(i)));
      }
    }
  } catch (const YAML::Exception& e) {
    const bool known = !e.mark.is_null();
    return {streamError("invalid YAML: " + e.msg, known ? e.mark.line + 1 : 0,
                        known ? e.mark.column + 1 : 0)};
  } catch (const std::exception& e) {
    return {streamError(std::string("cannot decode policy: ") + e.what(), 0, 0)};
  }
  return out;
}

std::vector<DecodedPolicy> checkPolicies(std::string_view yamlOrJson) {
  std::vector<DecodedPolicy> results = decodePolicies(yamlOrJson);
  for (DecodedPolicy& result : results) {
    if (!result.policy) continue;
    AttunePolicy defaulted = *result.policy;
    applyDefaults(defaulted);
    std::vector<std::string> failedPaths;
    for (const PolicyDiagnostic& e : result.errors) failedPaths.push_back(e.error.field);
    for (PolicyDiagnostic& e : validatePolicy(defaulted)) {
      const bool alreadyReported =
          std::any_of(failedPaths.begin(), failedPaths.end(), [&](const std::string& failed) {
            return !failed.empty() && isUnder(e.error.field, failed);
          });
      if (!alreadyReported) result.errors.push_back(std::move(e));
    }
    for (PolicyDiagnostic& w : policyWarnings(defaulted)) result.warnings.push_back(std::move(w));
    sortBySourceLine(result.errors);
    sortBySourceLine(result.warnings);
  }
  return results;
}

}  // namespace attune::api
