#include "api/yaml/yaml_reader.h"

#include <algorithm>
#include <chrono>
#include <limits>
#include <set>

#include "api/yaml/yaml_scalar.h"

namespace attune::api::internal {
namespace {

constexpr unsigned kNumberKinds = kindBit(ScalarKind::kInteger) | kindBit(ScalarKind::kFloat);
constexpr unsigned kQuantityKinds = kNumberKinds | kindBit(ScalarKind::kString);

std::string joinNames(std::span<const std::string_view> names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// Parses `text` (when set) with `parse`, a core parser returning Result<T>; its error code and
// message are kept.
template <typename T, typename Parse>
void readParsed(YamlReader& reader, const YAML::Node& node, const std::string& path,
                const std::optional<std::string>& text, Parse parse, T& out) {
  if (!text) return;
  auto parsed = parse(*text);
  if (parsed) {
    out = *parsed;
  } else {
    reader.error(node, path, parsed.error().code, parsed.error().message);
  }
}

}  // namespace

SourcePosition positionOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {};
  return {mark.line + 1, mark.column + 1};
}

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "\"";
  out += text.size() > kMax ? std::string(text.substr(0, kMax)) + "..." : std::string(text);
  return out + "\"";
}

std::string describe(const YAML::Node& node) {
  if (node.IsMap()) return "object";
  if (node.IsSequence()) return "list";
  const ScalarKind kind = classify(node);
  if (kind == ScalarKind::kNull) return "null";
  return std::string(kindName(kind)) + " " + quote(node.Scalar());
}

void YamlReader::error(const YAML::Node& at, std::string path, ErrorCode code,
                       std::string message) {
  SourcePosition pos = positionOf(at);
  if (pos.line == 0) pos = sources_.find(path);
  errors_.push_back({Error{code, std::move(message), std::move(path)}, pos.line, pos.column});
}

void YamlReader::error(const YAML::Node& at, std::string path, std::string message) {
  error(at, std::move(path), ErrorCode::kInvalidArgument, std::move(message));
}

void YamlReader::error(std::string path, std::string message) {
  const SourcePosition pos = sources_.find(path);
  errors_.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), std::move(path)},
                     pos.line, pos.column});
}

void YamlReader::object(const YAML::Node& node, const std::string& path,
                        const std::vector<Field>& fields, const OtherFieldFn& other) {
  if (!node.IsMap()) {
    error(node, path, "must be an object, got " + describe(node));
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (const auto& entry : node) {
    const YAML::Node& key = entry.first;
    const YAML::Node& value = entry.second;
    if (!key.IsScalar() || !isValidUtf8(key.Scalar())) {
      error(key, path, "field names must be UTF-8 strings");
      continue;
    }
    const std::string& name = key.Scalar();
    const std::string fieldPath = joinPath(path, name);
    if (!seen.insert(name).second) {
      error(key, fieldPath, "duplicate field");
      continue;
    }
    sources_.record(fieldPath, positionOf(key));
    const auto handler =
        std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.name == name; });
    if (handler != fields.end()) {
      if (!value.IsNull()) handler->read(value, fieldPath);
    } else if (!other || !other(key, name, value, fieldPath)) {
      error(key, fieldPath, "unknown field " + quote(name));
    }
  }
  for (const Field& f : fields) {
    if (!f.required) continue;
    const YAML::Node value = node[std::string(f.name)];
    if (!value.IsDefined() || value.IsNull()) {
      error(value.IsDefined() ? value : node, joinPath(path, f.name), "required");
    }
  }
}

void YamlReader::list(const YAML::Node& node, const std::string& path,
                      const std::function<void(const YAML::Node&, const std::string&)>& item) {
  if (!node.IsSequence()) {
    error(node, path, "must be a list, got " + describe(node));
    return;
  }
  for (std::size_t i = 0; i < node.size(); ++i) {
    const YAML::Node element = node[i];
    const std::string itemPath = joinPath(path, "[" + std::to_string(i) + "]");
    sources_.record(itemPath, positionOf(element));
    item(element, itemPath);
  }
}

void YamlReader::entries(
    const YAML::Node& node, const std::string& path,
    const std::function<void(const std::string&, const YAML::Node&, const std::string&)>& entry) {
  if (!node.IsMap()) {
    error(node, path, "must be an object, got " + describe(node));
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (const auto& e : node) {
    if (!e.first.IsScalar()) {
      error(e.first, path, "keys must be strings");
      continue;
    }
    const std::string& key = e.first.Scalar();
    const std::string entryPath = joinPath(path, key);
    if (!seen.insert(key).second) {
      error(e.first, entryPath, "duplicate key");
      continue;
    }
    sources_.record(entryPath, positionOf(e.first));
    entry(key, e.second, entryPath);
  }
}

std::optional<std::string> YamlReader::scalar(const YAML::Node& node, const std::string& path,
                                              std::string_view expected, unsigned acceptedKinds) {
  if ((node.IsScalar() || node.IsNull()) && (acceptedKinds & kindBit(classify(node))) != 0) {
    if (isValidUtf8(node.Scalar())) return node.Scalar();
    error(node, path, "must be valid UTF-8");
    return std::nullopt;
  }
  error(node, path, "must be " + std::string(expected) + ", got " + describe(node));
  return std::nullopt;
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::string& out) {
  if (auto v = scalar(node, path, "a string", kindBit(ScalarKind::kString))) out = std::move(*v);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, bool& out) {
  if (auto v = scalar(node, path, "a boolean", kindBit(ScalarKind::kBool))) {
    out = plainBoolValue(*v);
  }
}

template <typename Int>
void YamlReader::readInteger(const YAML::Node& node, const std::string& path,
                             std::string_view expected, std::string_view range, Int& out) {
  auto v = scalar(node, path, expected, kindBit(ScalarKind::kInteger));
  if (!v) return;
  if (auto parsed = integerValue<Int>(*v)) {
    out = *parsed;
  } else {
    error(node, path, ErrorCode::kOutOfRange, "must " + std::string(range) + ", got " + *v);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::int64_t& out) {
  readInteger(node, path, "an integer", "fit in a 64-bit integer", out);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::int32_t& out) {
  std::optional<std::int64_t> wide;
  read(node, path, wide);
  if (!wide) return;
  if (*wide < std::numeric_limits<std::int32_t>::min() ||
      *wide > std::numeric_limits<std::int32_t>::max()) {
    error(node, path, ErrorCode::kOutOfRange,
          "must fit in a 32-bit integer, got " + std::to_string(*wide));
    return;
  }
  out = static_cast<std::int32_t>(*wide);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::uint64_t& out) {
  readInteger(node, path, "a non-negative integer", "be a non-negative 64-bit integer", out);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, double& out) {
  auto v = scalar(node, path, "a number", kNumberKinds);
  if (!v) return;
  if (auto parsed = numberValue(*v)) {
    out = *parsed;
  } else {
    error(node, path, ErrorCode::kOutOfRange, "must be a finite number, got " + *v);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Duration& out) {
  const std::string expected =
      "a duration string such as \"" + std::string(examples_.duration) + "\"";
  readParsed(*this, node, path, scalar(node, path, expected, kindBit(ScalarKind::kString)),
             parseDuration, out);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Time& out) {
  std::optional<Time> parsed;
  readParsed(*this, node, path,
             scalar(node, path, "an RFC 3339 timestamp", kindBit(ScalarKind::kString)),
             parseRfc3339, parsed);
  if (!parsed) return;
  // Kubernetes timestamps are UTC years 0001-9999; an offset can push a parsed time outside.
  const std::chrono::year year =
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(*parsed)).year();
  if (year < std::chrono::year(1) || year > std::chrono::year(9999)) {
    error(node, path, ErrorCode::kOutOfRange, "must be between years 0001 and 9999 in UTC");
    return;
  }
  out = *parsed;
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Millicores& out) {
  const std::string expected = "a CPU quantity such as \"" + std::string(examples_.cpu) + "\"";
  readParsed(*this, node, path, scalar(node, path, expected, kQuantityKinds), parseCpu, out);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Bytes& out) {
  readParsed(*this, node, path,
             scalar(node, path, "a memory quantity such as \"512Mi\"", kQuantityKinds), parseMemory,
             out);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Quantity& out) {
  auto v = scalar(node, path, "a quantity such as \"2\" or \"4Gi\"", kQuantityKinds);
  if (!v) return;
  auto parsed = Quantity::parse(*v);
  if (!parsed) {
    error(node, path, parsed.error().code, parsed.error().message);
  } else if (parsed->sign() < 0) {
    error(node, path, ErrorCode::kOutOfRange, "must be greater than or equal to 0");
  } else {
    out = *parsed;
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path,
                      std::vector<std::string>& out) {
  list(node, path, [&](const YAML::Node& item, const std::string& itemPath) {
    std::optional<std::string> value;
    read(item, itemPath, value);
    if (value) out.push_back(std::move(*value));
  });
}

void YamlReader::read(const YAML::Node& node, const std::string& path, StringMap& out) {
  entries(node, path, [&](const std::string& key, const YAML::Node& value, const std::string& p) {
    if (auto v = scalar(value, p, "a string", kindBit(ScalarKind::kString))) out.emplace(key, *v);
  });
}

void YamlReader::read(const YAML::Node& node, const std::string& path, ResourceList& out) {
  entries(node, path, [&](const std::string& key, const YAML::Node& value, const std::string& p) {
    std::optional<Quantity> q;
    read(value, p, q);
    if (q) out.set(key, *q);
  });
}

void YamlReader::oneOf(const YAML::Node& node, const std::string& path,
                       std::initializer_list<std::string_view> names, std::string& out) {
  if (auto index = nameIndex(node, path, names)) out = *(names.begin() + *index);
}

std::optional<std::size_t> YamlReader::nameIndex(const YAML::Node& node, const std::string& path,
                                                 std::span<const std::string_view> names) {
  auto v = scalar(node, path, "one of " + joinNames(names), kindBit(ScalarKind::kString));
  if (!v) return std::nullopt;
  const auto it = std::find(names.begin(), names.end(), *v);
  if (it != names.end()) return static_cast<std::size_t>(it - names.begin());
  error(node, path, "must be one of " + joinNames(names) + "; got " + quote(*v));
  return std::nullopt;
}

void YamlReader::number(const YAML::Node& node, const std::string& path, std::string_view expected,
                        const std::function<Result<double>(std::string_view)>& parse, double& out) {
  if (node.IsScalar() && (kNumberKinds & kindBit(classify(node))) != 0) {
    read(node, path, out);
    return;
  }
  readParsed(*this, node, path, scalar(node, path, expected, kindBit(ScalarKind::kString)), parse,
             out);
}

}  // namespace attune::api::internal
