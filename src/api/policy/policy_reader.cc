#include "api/policy/policy_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>

#include "api/policy/policy_schema.h"
#include "api/yaml/yaml_scalar.h"

namespace attune::api::internal {
namespace {

using Json = nlohmann::ordered_json;

// Limits on preserved (schema-free) values: yaml-cpp aliases can make a document reference
// itself or expand exponentially, so the walk is bounded in depth and in nodes.
constexpr int kMaxDepth = 64;
constexpr std::size_t kNodeBudget = 100000;

// The example values policy messages quote.
constexpr YamlReader::Examples kPolicyExamples{.duration = "5m", .cpu = "250m"};

// Why a preserved spec field has no effect, by where it comes from.
std::string noEffectMessage(FieldOrigin origin) {
  if (origin == FieldOrigin::kExtension) {
    return "an Attune extension, not part of the public Attune API, and not implemented by "
           "Attune: it has no effect";
  }
  return "accepted for compatibility with the public Attune API, but not implemented by Attune: "
         "it has no effect";
}

bool isObjectType(std::string_view type) {
  return type != kAnyValue && type != kStringMap && type != kScalar && !type.starts_with("[]");
}

// Converts a preserved value to JSON, checking keys of object types against the schema
// (policy_schema.h). An extension key under spec inside a value that is not itself an extension
// gets its own warning. Reports through `reader`; `budget` counts down the nodes still allowed.
Json capture(PolicyReader& reader, std::size_t& budget, const YAML::Node& node,
             const std::string& path, std::string_view type, FieldOrigin origin, int depth) {
  if (budget == 0 || depth > kMaxDepth) {
    reader.error(node, path, ErrorCode::kOutOfRange, "value is nested too deeply or is too large");
    budget = 0;
    return nullptr;
  }
  --budget;
  if (node.IsMap()) {
    Json object = Json::object();
    for (const auto& entry : node) {
      const YAML::Node& key = entry.first;
      if (!key.IsScalar() || !isValidUtf8(key.Scalar())) {
        reader.error(key, path, ErrorCode::kInvalidArgument, "field names must be UTF-8 strings");
        continue;
      }
      const std::string& name = key.Scalar();
      const std::string childPath = joinPath(path, name);
      std::string_view childType = type == kStringMap ? kScalar : kAnyValue;
      FieldOrigin childOrigin = origin;
      if (isObjectType(type)) {
        const auto known = findField(type, name);
        if (!known) {
          reader.error(key, childPath, ErrorCode::kInvalidArgument, "unknown field " + quote(name));
          continue;
        }
        childType = known->type;
        if (known->origin == FieldOrigin::kExtension && origin != FieldOrigin::kExtension &&
            childPath.starts_with("spec.")) {
          reader.warning(key, childPath, ErrorCode::kUnsupported,
                         noEffectMessage(FieldOrigin::kExtension));
          childOrigin = FieldOrigin::kExtension;
        }
      }
      if (object.contains(name)) {
        reader.error(key, childPath, ErrorCode::kInvalidArgument, "duplicate field");
        continue;
      }
      object[name] =
          capture(reader, budget, entry.second, childPath, childType, childOrigin, depth + 1);
    }
    return object;
  }
  if (node.IsSequence()) {
    const std::string_view itemType = type.starts_with("[]") ? type.substr(2) : kAnyValue;
    Json array = Json::array();
    for (std::size_t i = 0; i < node.size(); ++i) {
      array.push_back(capture(reader, budget, node[i],
                              joinPath(path, "[" + std::to_string(i) + "]"), itemType, origin,
                              depth + 1));
    }
    return array;
  }
  const std::string& text = node.Scalar();
  switch (classify(node)) {
    case ScalarKind::kNull:
      return nullptr;
    case ScalarKind::kBool:
      return plainBoolValue(text);
    case ScalarKind::kInteger:
      if (auto value = integerValue<std::int64_t>(text)) return *value;
      [[fallthrough]];
    case ScalarKind::kFloat:
      if (auto value = numberValue(text)) return *value;
      [[fallthrough]];
    case ScalarKind::kString:
      break;
  }
  if (!isValidUtf8(text)) {
    reader.error(node, path, ErrorCode::kInvalidArgument, "must be valid UTF-8");
    return nullptr;
  }
  return text;
}

}  // namespace

PolicyReader::PolicyReader(AttunePolicy& policy, std::vector<PolicyDiagnostic>& errors,
                           std::vector<PolicyDiagnostic>& warnings)
    : YamlReader(errors, policy.sources, kPolicyExamples),
      policy_(policy),
      warnings_(warnings),
      nodeBudget_(kNodeBudget) {}

void PolicyReader::object(const YAML::Node& node, const std::string& path, std::string_view type,
                          const std::vector<Field>& fields) {
  YamlReader::object(node, path, fields,
                     [&](const YAML::Node&, const std::string& name, const YAML::Node& value,
                         const std::string& fieldPath) {
                       const auto known = findField(type, name);
                       if (!known) return false;
                       if (!value.IsNull()) preserve(value, fieldPath, *known);
                       return true;
                     });
}

void PolicyReader::warning(const YAML::Node& at, std::string path, ErrorCode code,
                           std::string message) {
  const SourcePosition pos = positionOf(at);
  warnings_.push_back({Error{code, std::move(message), std::move(path)}, pos.line, pos.column});
}

void PolicyReader::preserve(const YAML::Node& value, const std::string& path,
                            const KnownField& field) {
  const std::size_t errorsBefore = errorCount();
  const std::size_t warningsBefore = warnings_.size();
  const Json json = capture(*this, nodeBudget_, value, path, field.type, field.origin, 0);
  if (errorCount() != errorsBefore) {
    warnings_.resize(warningsBefore);
    return;
  }
  policy_.preserved.push_back(
      {path, json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)});
  if (path.starts_with("spec.")) {
    const SourcePosition pos = policy_.sources.find(path);
    warnings_.insert(warnings_.begin() + static_cast<std::ptrdiff_t>(warningsBefore),
                     {Error{ErrorCode::kUnsupported, noEffectMessage(field.origin), path}, pos.line,
                      pos.column});
  }
}

namespace {

// The longest key of a string map: the longest Kubernetes label or annotation key (a 253-character
// DNS prefix, "/" and a 63-character name). With no control characters (which JSON writes as
// 6-character escapes), every key fits in the 1024 characters YAML allows an implicit key even as
// encodePolicyJson escapes it, so the JSON decodes back.
constexpr std::size_t kMaxMapKeyLength = 317;

}  // namespace

bool isMapKey(std::string_view key) {
  return key.size() <= kMaxMapKeyLength && std::none_of(key.begin(), key.end(), [](char c) {
           const auto u = static_cast<unsigned char>(c);
           return u < 0x20 || u == 0x7f;
         });
}

void PolicyReader::stringMap(const YAML::Node& node, const std::string& path, StringMap& out) {
  if (!node.IsMap()) {
    error(node, path, "must be a map of strings, got " + describe(node));
    return;
  }
  for (const auto& entry : node) {
    auto key = scalar(entry.first, path, "a string key",
                      kindBit(ScalarKind::kString) | kindBit(ScalarKind::kInteger) |
                          kindBit(ScalarKind::kFloat) | kindBit(ScalarKind::kBool));
    if (!key) continue;
    const std::string entryPath = joinPath(path, "[" + *key + "]");
    if (!isMapKey(*key)) {
      error(entry.first, entryPath,
            "a key must be at most " + std::to_string(kMaxMapKeyLength) +
                " characters long, without control characters");
      continue;
    }
    if (out.contains(*key)) {
      error(entry.first, entryPath, "duplicate key");
      continue;
    }
    policy_.sources.record(entryPath, positionOf(entry.first));
    if (auto value = scalar(entry.second, entryPath, "a string", kindBit(ScalarKind::kString))) {
      out.emplace(*key, std::move(*value));
    }
  }
}

}  // namespace attune::api::internal
