// encodePolicyYaml() / encodePolicyJson(): AttunePolicy → one ordered JSON tree → text.
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "api/policy/policy_codec.h"
#include "api/policy/yaml_scalar.h"
#include "core/quantity.h"

namespace attune::api {
namespace {

using Json = nlohmann::ordered_json;

// ---- Scalars. Each put() writes `key` only when the value is set (non-empty for strings and
// ---- containers), so an unset field is absent from the output.

std::string formatTime(Time t) {
  const auto fraction = t - std::chrono::floor<std::chrono::seconds>(t);
  int digits = 9;
  if (fraction.count() == 0) {
    digits = 0;
  } else if (fraction.count() % 1'000'000 == 0) {
    digits = 3;
  } else if (fraction.count() % 1'000 == 0) {
    digits = 6;
  }
  return formatRfc3339(t, digits);
}

Json scalar(int v) { return v; }
Json scalar(std::int64_t v) { return v; }
Json scalar(bool v) { return v; }
Json scalar(double v) { return v; }
Json scalar(const std::string& v) { return v; }
Json scalar(Duration v) { return formatDuration(v); }
Json scalar(Millicores v) { return formatCpu(v); }
Json scalar(Bytes v) { return formatMemory(v); }
Json scalar(Time v) { return formatTime(v); }
template <typename E>
  requires std::is_enum_v<E>
Json scalar(E v) {
  return std::string(toString(v));
}

template <typename T>
void put(Json& obj, const char* key, const std::optional<T>& value) {
  if (value) obj[key] = scalar(*value);
}

void put(Json& obj, const char* key, const std::string& value) {
  if (!value.empty()) obj[key] = value;
}

void put(Json& obj, const char* key, const std::vector<std::string>& value) {
  if (!value.empty()) obj[key] = value;
}

void put(Json& obj, const char* key, const StringMap& value) {
  if (value.empty()) return;
  Json& map = obj[key] = Json::object();
  for (const auto& [k, v] : value) map[k] = v;
}

// Writes a nested object: always when `always` (an optional struct that is present), otherwise
// only when it has content.
void putObject(Json& obj, const char* key, Json child, bool always = false) {
  if (always || !child.empty()) obj[key] = std::move(child);
}

template <typename T, typename Encode>
void putList(Json& obj, const char* key, const std::vector<T>& items, Encode encode) {
  if (items.empty()) return;
  Json& list = obj[key] = Json::array();
  for (const T& item : items) list.push_back(encode(item));
}

// ---- Objects, fields in declaration order.

Json encode(const LabelSelector& s) {
  Json out = Json::object();
  put(out, "matchLabels", s.matchLabels);
  putList(out, "matchExpressions", s.matchExpressions, [](const LabelSelectorRequirement& r) {
    Json item = Json::object();
    put(item, "key", r.key);
    put(item, "operator", r.operator_);
    put(item, "values", r.values);
    return item;
  });
  return out;
}

Json encode(const SecretKeyRef& s) {
  Json out = Json::object();
  put(out, "name", s.name);
  put(out, "key", s.key);
  return out;
}

Json encode(const PrometheusSource& s) {
  Json out = Json::object();
  put(out, "address", s.address);
  put(out, "headers", s.headers);
  if (s.bearerTokenSecret) putObject(out, "bearerTokenSecret", encode(*s.bearerTokenSecret), true);
  if (s.insecureSkipVerify) out["tls"] = Json{{"insecureSkipVerify", *s.insecureSkipVerify}};
  return out;
}

Json encode(const MetricsSource& s) {
  Json out = Json::object();
  if (s.prometheus) putObject(out, "prometheus", encode(*s.prometheus), true);
  put(out, "historyWindow", s.historyWindow);
  put(out, "minimumDataPoints", s.minimumDataPoints);
  put(out, "queryStep", s.queryStep);
  put(out, "rateWindow", s.rateWindow);
  put(out, "podAggregation", s.podAggregation);
  return out;
}

template <typename Amount>
Json encode(const ResourcePolicy<Amount>& r) {
  Json out = Json::object();
  put(out, "percentile", r.percentile);
  put(out, "overhead", r.overhead);
  put(out, "minAllowed", r.minAllowed);
  put(out, "maxAllowed", r.maxAllowed);
  put(out, "controlledValues", r.controlledValues);
  put(out, "allowDecrease", r.allowDecrease);
  put(out, "maxChangePercent", r.maxChangePercent);
  return out;
}

Json encode(const UpdateStrategy& s) {
  Json out = Json::object();
  put(out, "type", s.type);
  if (s.canary) {
    Json canary = Json::object();
    put(canary, "percentage", s.canary->percentage);
    put(canary, "observationPeriod", s.canary->observationPeriod);
    put(canary, "autoPromote", s.canary->autoPromote);
    putObject(out, "canary", std::move(canary), true);
  }
  put(out, "cooldown", s.cooldown);
  put(out, "autoRevert", s.autoRevert);
  put(out, "safetyObservationPeriod", s.safetyObservationPeriod);
  put(out, "maxConcurrentResizes", s.maxConcurrentResizes);
  return out;
}

Json encode(const AttunePolicySpec& s) {
  Json out = Json::object();
  Json target = Json::object();
  put(target, "kind", s.targetRef.kind);
  put(target, "name", s.targetRef.name);
  if (s.targetRef.selector) putObject(target, "selector", encode(*s.targetRef.selector), true);
  putObject(out, "targetRef", std::move(target));
  putObject(out, "metricsSource", encode(s.metricsSource));
  putObject(out, "cpu", encode(s.cpu));
  putObject(out, "memory", encode(s.memory));
  putObject(out, "updateStrategy", encode(s.updateStrategy));
  put(out, "excludedContainers", s.excludedContainers);
  put(out, "excludeKnownSidecars", s.excludeKnownSidecars);
  put(out, "paused", s.paused);
  put(out, "weight", s.weight);
  put(out, "strategy", s.strategy);
  return out;
}

Json encode(const ResourceValues& v) {
  Json out = Json::object();
  put(out, "cpuRequest", v.cpuRequest);
  put(out, "cpuLimit", v.cpuLimit);
  put(out, "memoryRequest", v.memoryRequest);
  put(out, "memoryLimit", v.memoryLimit);
  return out;
}

Json encode(const ContainerRecommendation& c) {
  Json out = Json::object();
  put(out, "name", c.name);
  putObject(out, "current", encode(c.current));
  putObject(out, "recommended", encode(c.recommended));
  put(out, "confidence", c.confidence);
  put(out, "dataPoints", c.dataPoints);
  put(out, "lastUpdated", c.lastUpdated);
  put(out, "rationale", c.rationale);
  return out;
}

Json encode(const WorkloadRecommendation& w) {
  Json out = Json::object();
  put(out, "workload", w.workload);
  put(out, "kind", w.kind);
  putList(out, "containers", w.containers,
          [](const ContainerRecommendation& c) { return encode(c); });
  put(out, "lastDataTime", w.lastDataTime);
  put(out, "stale", w.stale);
  return out;
}

Json encode(const ResizeHistoryEntry& e) {
  Json out = Json::object();
  put(out, "timestamp", e.timestamp);
  put(out, "workload", e.workload);
  put(out, "pod", e.pod);
  put(out, "container", e.container);
  put(out, "resource", e.resource);
  put(out, "from", e.from);
  put(out, "to", e.to);
  put(out, "method", e.method);
  put(out, "result", e.result);
  put(out, "reason", e.reason);
  return out;
}

Json encode(const Condition& c) {
  Json out = Json::object();
  put(out, "type", c.type);
  put(out, "status", c.status);
  put(out, "reason", c.reason);
  put(out, "message", c.message);
  put(out, "lastTransitionTime", c.lastTransitionTime);
  if (c.observedGeneration != 0) out["observedGeneration"] = c.observedGeneration;
  return out;
}

Json encode(const AttunePolicyStatus& s) {
  Json out = Json::object();
  putList(out, "conditions", s.conditions, [](const Condition& c) { return encode(c); });
  putList(out, "recommendations", s.recommendations,
          [](const WorkloadRecommendation& w) { return encode(w); });
  putList(out, "resizeHistory", s.resizeHistory,
          [](const ResizeHistoryEntry& e) { return encode(e); });
  put(out, "consecutiveReverts", s.consecutiveReverts);
  put(out, "lastResizeTime", s.lastResizeTime);
  put(out, "observedGeneration", s.observedGeneration);
  return out;
}

Json encode(const ObjectMeta& m) {
  Json out = Json::object();
  put(out, "name", m.name);
  put(out, "generateName", m.generateName);
  put(out, "namespace", m.namespace_);
  put(out, "uid", m.uid);
  put(out, "resourceVersion", m.resourceVersion);
  if (m.generation != 0) out["generation"] = m.generation;
  put(out, "creationTimestamp", m.creationTimestamp);
  put(out, "deletionTimestamp", m.deletionTimestamp);
  put(out, "labels", m.labels);
  put(out, "annotations", m.annotations);
  putList(out, "ownerReferences", m.ownerReferences, [](const OwnerReference& ref) {
    Json item = Json::object();
    put(item, "apiVersion", ref.apiVersion);
    put(item, "kind", ref.kind);
    put(item, "name", ref.name);
    put(item, "uid", ref.uid);
    if (ref.controller) item["controller"] = true;
    return item;
  });
  return out;
}

// Puts a preserved value back at its path ("spec.cpu.startupBoost", "status.x[0].y"), creating
// missing objects on the way.
void restore(Json& root, const PreservedField& field) {
  Json* at = &root;
  std::string_view path = field.path;
  while (!path.empty()) {
    if (path.front() == '.') path.remove_prefix(1);
    if (path.front() == '[') {
      const auto close = path.find(']');
      std::size_t index = 0;
      std::from_chars(path.data() + 1, path.data() + close, index);
      if (!at->is_array()) *at = Json::array();
      while (at->size() <= index) at->push_back(Json::object());
      at = &(*at)[index];
      path.remove_prefix(close + 1);
    } else {
      const auto end = std::min(path.find_first_of(".["), path.size());
      if (!at->is_object()) *at = Json::object();
      at = &(*at)[std::string(path.substr(0, end))];
      path.remove_prefix(end);
    }
  }
  *at = Json::parse(field.json);
}

Json encodeDocument(const AttunePolicy& p) {
  Json doc = Json::object();
  doc["apiVersion"] = kPolicyApiVersion;
  doc["kind"] = kPolicyKind;
  putObject(doc, "metadata", encode(p.metadata));
  putObject(doc, "spec", encode(p.spec));
  putObject(doc, "status", encode(p.status));
  for (const PreservedField& field : p.preserved) restore(doc, field);
  return doc;
}

// ---- YAML emission of the JSON tree. Strings that YAML 1.1 would read as something else, or
// ---- that hold control or non-ASCII characters, are double-quoted with escapes; floats always
// ---- carry a '.' or exponent so they stay floats.

std::string formatDouble(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string text(buf, ec == std::errc() ? end : buf);
  if (text.find_first_of(".eE") == std::string::npos) text += ".0";
  return text;
}

void emitString(YAML::Emitter& out, const std::string& text) {
  if (internal::needsQuotes(text)) out << YAML::DoubleQuoted;
  out << text;
}

void emit(YAML::Emitter& out, const Json& value) {
  switch (value.type()) {
    case Json::value_t::object:
      if (value.empty()) out << YAML::Flow;
      out << YAML::BeginMap;
      for (const auto& [key, child] : value.items()) {
        out << YAML::Key;
        emitString(out, key);
        out << YAML::Value;
        emit(out, child);
      }
      out << YAML::EndMap;
      break;
    case Json::value_t::array:
      if (value.empty()) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const Json& child : value) emit(out, child);
      out << YAML::EndSeq;
      break;
    case Json::value_t::string:
      emitString(out, value.get<std::string>());
      break;
    case Json::value_t::boolean:
      out << (value.get<bool>() ? "true" : "false");
      break;
    case Json::value_t::number_integer:
      out << std::to_string(value.get<std::int64_t>());
      break;
    case Json::value_t::number_unsigned:
      out << std::to_string(value.get<std::uint64_t>());
      break;
    case Json::value_t::number_float:
      out << formatDouble(value.get<double>());
      break;
    default:
      out << YAML::Null;
      break;
  }
}

}  // namespace

std::string encodePolicyYaml(const AttunePolicy& policy) {
  try {
    YAML::Emitter out;
    out.SetOutputCharset(YAML::EscapeNonAscii);  // see needsQuotes()
    emit(out, encodeDocument(policy));
    return std::string(out.c_str()) + "\n";
  } catch (const std::exception&) {
    return {};  // unreachable: the tree is built from valid values
  }
}

std::string encodePolicyJson(const AttunePolicy& policy) {
  try {
    // ASCII only: YAML readers treat some raw characters (NEL, LS, PS) as line breaks.
    return encodeDocument(policy).dump(2, ' ', true, nlohmann::json::error_handler_t::replace) +
           "\n";
  } catch (const std::exception&) {
    return {};  // unreachable: the tree is built from valid values
  }
}

}  // namespace attune::api
