#include "api/policy/policy_reader.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <set>

#include "api/policy/policy_schema.h"
#include "api/policy/yaml_scalar.h"
#include "core/quantity.h"

namespace attune::api::internal {
namespace {

using Json = nlohmann::ordered_json;

// Limits on preserved (schema-free) values: yaml-cpp aliases can make a document reference
// itself or expand exponentially, so the walk is bounded in depth and in nodes.
constexpr int kMaxDepth = 64;
constexpr std::size_t kNodeBudget = 100000;

constexpr unsigned bit(ScalarKind kind) { return 1u << static_cast<unsigned>(kind); }

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "\"";
  out += text.size() > kMax ? std::string(text.substr(0, kMax)) + "..." : std::string(text);
  return out + "\"";
}

// "object", "list", "null", or the scalar's kind followed by its text.
std::string describe(const YAML::Node& node) {
  if (node.IsMap()) return "object";
  if (node.IsSequence()) return "list";
  const ScalarKind kind = classify(node);
  if (kind == ScalarKind::kNull) return "null";
  return std::string(kindName(kind)) + " " + quote(node.Scalar());
}

template <typename Int>
std::optional<Int> parseInteger(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  Int value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> parseDouble(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string joinNames(const std::vector<std::string_view>& names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// Why a preserved spec field has no effect, by where it comes from.
std::string noEffectMessage(FieldOrigin origin) {
  if (origin == FieldOrigin::kExtension) {
    return "an Attune extension, not part of the public Attune API, and not implemented by "
           "Attune: it has no effect";
  }
  return "accepted for compatibility with the public Attune API, but not implemented by Attune: "
         "it has no effect";
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
      if (auto value = parseInteger<std::int64_t>(text)) return *value;
      [[fallthrough]];
    case ScalarKind::kFloat:
      if (auto value = parseDouble(text)) return *value;
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

SourcePosition positionOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {};
  return {mark.line + 1, mark.column + 1};
}

PolicyReader::PolicyReader(AttunePolicy& policy, std::vector<PolicyDiagnostic>& errors,
                           std::vector<PolicyDiagnostic>& warnings)
    : policy_(policy), errors_(errors), warnings_(warnings), nodeBudget_(kNodeBudget) {}

void PolicyReader::error(const YAML::Node& at, std::string path, ErrorCode code,
                         std::string message) {
  const SourcePosition pos = positionOf(at);
  errors_.push_back({Error{code, std::move(message), std::move(path)}, pos.line, pos.column});
}

void PolicyReader::warning(const YAML::Node& at, std::string path, ErrorCode code,
                           std::string message) {
  const SourcePosition pos = positionOf(at);
  warnings_.push_back({Error{code, std::move(message), std::move(path)}, pos.line, pos.column});
}

void PolicyReader::object(const YAML::Node& node, const std::string& path, std::string_view type,
                          const std::vector<Field>& fields) {
  if (!node.IsMap()) {
    error(node, path, ErrorCode::kInvalidArgument, "must be an object, got " + describe(node));
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (const auto& entry : node) {
    const YAML::Node& key = entry.first;
    const YAML::Node& value = entry.second;
    if (!key.IsScalar() || !isValidUtf8(key.Scalar())) {
      error(key, path, ErrorCode::kInvalidArgument, "field names must be UTF-8 strings");
      continue;
    }
    const std::string& name = key.Scalar();
    const std::string fieldPath = joinPath(path, name);
    if (!seen.insert(name).second) {
      error(key, fieldPath, ErrorCode::kInvalidArgument, "duplicate field");
      continue;
    }
    policy_.sources.record(fieldPath, positionOf(key));
    const auto handler =
        std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.name == name; });
    if (handler != fields.end()) {
      if (!value.IsNull()) handler->read(value, fieldPath);
    } else if (const auto known = findField(type, name)) {
      if (!value.IsNull()) preserve(value, fieldPath, *known);
    } else {
      error(key, fieldPath, ErrorCode::kInvalidArgument, "unknown field " + quote(name));
    }
  }
}

void PolicyReader::preserve(const YAML::Node& value, const std::string& path,
                            const KnownField& field) {
  const std::size_t errorsBefore = errors_.size();
  const std::size_t warningsBefore = warnings_.size();
  const Json json = capture(*this, nodeBudget_, value, path, field.type, field.origin, 0);
  if (errors_.size() != errorsBefore) {
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

void PolicyReader::list(const YAML::Node& node, const std::string& path,
                        const std::function<void(const YAML::Node&, const std::string&)>& item) {
  if (!node.IsSequence()) {
    error(node, path, ErrorCode::kInvalidArgument, "must be a list, got " + describe(node));
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node element = node[i];
    const std::string itemPath = joinPath(path, "[" + std::to_string(i) + "]");
    policy_.sources.record(itemPath, positionOf(element));
    item(element, itemPath);
  }
}

std::optional<std::string> PolicyReader::text(const YAML::Node& node, const std::string& path,
                                              std::string_view expected, unsigned acceptedKinds) {
  if (node.IsScalar() || node.IsNull()) {
    if ((acceptedKinds & bit(classify(node))) != 0) {
      if (isValidUtf8(node.Scalar())) return node.Scalar();
      error(node, path, ErrorCode::kInvalidArgument, "must be valid UTF-8");
      return std::nullopt;
    }
  }
  error(node, path, ErrorCode::kInvalidArgument,
        "must be " + std::string(expected) + ", got " + describe(node));
  return std::nullopt;
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, std::string& out) {
  if (auto value = text(node, path, "a string", bit(ScalarKind::kString))) out = std::move(*value);
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, bool& out) {
  std::optional<bool> value;
  read(node, path, value);
  if (value) out = *value;
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, std::int64_t& out) {
  std::optional<std::int64_t> value;
  read(node, path, value);
  if (value) out = *value;
}

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::optional<std::string>& out) {
  if (auto value = text(node, path, "a string", bit(ScalarKind::kString))) out = std::move(*value);
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, std::optional<bool>& out) {
  if (auto value = text(node, path, "a boolean", bit(ScalarKind::kBool))) {
    out = plainBoolValue(*value);
  }
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, std::optional<int>& out) {
  std::optional<std::int64_t> wide;
  read(node, path, wide);
  if (!wide) return;
  if (*wide < INT32_MIN || *wide > INT32_MAX) {
    error(node, path, ErrorCode::kOutOfRange,
          "must fit in a 32-bit integer, got " + std::to_string(*wide));
    return;
  }
  out = static_cast<int>(*wide);
}

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::optional<std::int64_t>& out) {
  auto value = text(node, path, "an integer", bit(ScalarKind::kInteger));
  if (!value) return;
  if (auto parsed = parseInteger<std::int64_t>(*value)) {
    out = *parsed;
  } else {
    error(node, path, ErrorCode::kOutOfRange, "must fit in a 64-bit integer, got " + *value);
  }
}

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::optional<double>& out) {
  auto value = text(node, path, "a number", bit(ScalarKind::kInteger) | bit(ScalarKind::kFloat));
  if (!value) return;
  if (auto parsed = parseDouble(*value)) {
    out = *parsed;
  } else {
    error(node, path, ErrorCode::kOutOfRange, "must be a finite number, got " + *value);
  }
}

// Reads a string with `parse` (a core parser returning Result<T>); its error message is kept.
template <typename T, typename Parse>
void parsedString(PolicyReader& reader, const YAML::Node& node, const std::string& path,
                  std::optional<std::string> text, Parse parse, std::optional<T>& out) {
  if (!text) return;
  auto parsed = parse(*text);
  if (parsed) {
    out = *parsed;
  } else {
    reader.error(node, path, parsed.error().code, parsed.error().message);
  }
}

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::optional<Duration>& out) {
  parsedString(*this, node, path,
               text(node, path, "a duration string such as \"5m\"", bit(ScalarKind::kString)),
               parseDuration, out);
}

constexpr unsigned kQuantityKinds =
    bit(ScalarKind::kInteger) | bit(ScalarKind::kFloat) | bit(ScalarKind::kString);

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::optional<Millicores>& out) {
  parsedString(*this, node, path,
               text(node, path, "a CPU quantity such as \"250m\"", kQuantityKinds), parseCpu, out);
}

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::optional<Bytes>& out) {
  parsedString(*this, node, path,
               text(node, path, "a memory quantity such as \"512Mi\"", kQuantityKinds), parseMemory,
               out);
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, std::optional<Time>& out) {
  std::optional<Time> parsed;
  parsedString(*this, node, path,
               text(node, path, "an RFC 3339 timestamp", bit(ScalarKind::kString)), parseRfc3339,
               parsed);
  if (!parsed) return;
  // Kubernetes timestamps are UTC years 0001-9999; an offset can push a parsed time outside.
  const std::chrono::year year =
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(*parsed)).year();
  if (year < std::chrono::year(1) || year > std::chrono::year(9999)) {
    error(node, path, ErrorCode::kOutOfRange, "must be between years 0001 and 9999 in UTC");
    return;
  }
  out = parsed;
}

void PolicyReader::read(const YAML::Node& node, const std::string& path,
                        std::vector<std::string>& out) {
  list(node, path, [&](const YAML::Node& item, const std::string& itemPath) {
    std::optional<std::string> value;
    read(item, itemPath, value);
    if (value) out.push_back(std::move(*value));
  });
}

void PolicyReader::read(const YAML::Node& node, const std::string& path, StringMap& out) {
  if (!node.IsMap()) {
    error(node, path, ErrorCode::kInvalidArgument,
          "must be a map of strings, got " + describe(node));
    return;
  }
  for (const auto& entry : node) {
    auto key = text(entry.first, path, "a string key",
                    bit(ScalarKind::kString) | bit(ScalarKind::kInteger) | bit(ScalarKind::kFloat) |
                        bit(ScalarKind::kBool));
    if (!key) continue;
    const std::string entryPath = joinPath(path, "[" + *key + "]");
    if (out.contains(*key)) {
      error(entry.first, entryPath, ErrorCode::kInvalidArgument, "duplicate key");
      continue;
    }
    policy_.sources.record(entryPath, positionOf(entry.first));
    if (auto value = text(entry.second, entryPath, "a string", bit(ScalarKind::kString))) {
      out.emplace(*key, std::move(*value));
    }
  }
}

std::optional<std::size_t> PolicyReader::enumIndex(const YAML::Node& node, const std::string& path,
                                                   const std::vector<std::string_view>& names) {
  auto value = text(node, path, "one of " + joinNames(names), bit(ScalarKind::kString));
  if (!value) return std::nullopt;
  const auto it = std::find(names.begin(), names.end(), *value);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  error(node, path, ErrorCode::kInvalidArgument,
        "must be one of " + joinNames(names) + "; got " + quote(*value));
  return std::nullopt;
}

}  // namespace attune::api::internal
