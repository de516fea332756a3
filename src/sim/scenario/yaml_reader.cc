#include "sim/scenario/yaml_reader.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

#include "api/policy/yaml_scalar.h"

namespace attune::sim::internal {
namespace {

using api::internal::ScalarKind;

constexpr unsigned bit(ScalarKind kind) { return 1u << static_cast<unsigned>(kind); }
constexpr unsigned kNumberKinds = bit(ScalarKind::kInteger) | bit(ScalarKind::kFloat);
constexpr unsigned kQuantityKinds = kNumberKinds | bit(ScalarKind::kString);

std::string quote(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out = "\"";
  out += text.size() > kMax ? std::string(text.substr(0, kMax)) + "..." : std::string(text);
  return out + "\"";
}

// "object", "list", "null", or the scalar's kind and text.
std::string describe(const YAML::Node& node) {
  if (node.IsMap()) return "object";
  if (node.IsSequence()) return "list";
  const ScalarKind kind = api::internal::classify(node);
  if (kind == ScalarKind::kNull) return "null";
  return std::string(api::internal::kindName(kind)) + " " + quote(node.Scalar());
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

std::string joinNames(std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

api::SourcePosition positionOf(const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {};
  return {mark.line + 1, mark.column + 1};
}

void YamlReader::error(const YAML::Node& at, std::string path, std::string message) {
  api::SourcePosition pos = positionOf(at);
  if (pos.line == 0) pos = sources_.find(path);
  errors_.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), std::move(path)},
                     pos.line, pos.column});
}

void YamlReader::error(std::string path, std::string message) {
  const api::SourcePosition pos = sources_.find(path);
  errors_.push_back({Error{ErrorCode::kInvalidArgument, std::move(message), std::move(path)},
                     pos.line, pos.column});
}

void YamlReader::object(const YAML::Node& node, const std::string& path,
                        const std::vector<Field>& fields) {
  if (!node.IsMap()) {
    error(node, path, "must be an object, got " + describe(node));
    return;
  }
  std::set<std::string, std::less<>> seen;
  for (const auto& entry : node) {
    const YAML::Node& key = entry.first;
    if (!key.IsScalar()) {
      error(key, path, "field names must be strings");
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
    if (handler == fields.end()) {
      error(key, fieldPath, "unknown field " + quote(name));
    } else if (!entry.second.IsNull()) {
      handler->read(entry.second, fieldPath);
    }
  }
  for (const Field& f : fields) {
    if (!f.required) continue;
    const YAML::Node value = node[std::string(f.name)];
    if (!value.IsDefined() || value.IsNull()) {
      const std::string fieldPath = joinPath(path, f.name);
      error(value.IsDefined() ? value : node, fieldPath, "required");
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
  if ((node.IsScalar() || node.IsNull()) &&
      (acceptedKinds & bit(api::internal::classify(node))) != 0) {
    if (api::internal::isValidUtf8(node.Scalar())) return node.Scalar();
    error(node, path, "must be valid UTF-8");
    return std::nullopt;
  }
  error(node, path, "must be " + std::string(expected) + ", got " + describe(node));
  return std::nullopt;
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::string& out) {
  if (auto v = scalar(node, path, "a string", bit(ScalarKind::kString))) out = std::move(*v);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, bool& out) {
  if (auto v = scalar(node, path, "a boolean", bit(ScalarKind::kBool))) {
    out = api::internal::plainBoolValue(*v);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::int64_t& out) {
  auto v = scalar(node, path, "an integer", bit(ScalarKind::kInteger));
  if (!v) return;
  if (auto parsed = parseInteger<std::int64_t>(*v)) {
    out = *parsed;
  } else {
    error(node, path, "must fit in a 64-bit integer, got " + *v);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::int32_t& out) {
  std::int64_t wide = 0;
  const std::size_t before = errors_.size();
  read(node, path, wide);
  if (errors_.size() != before) return;
  if (wide < std::numeric_limits<std::int32_t>::min() ||
      wide > std::numeric_limits<std::int32_t>::max()) {
    error(node, path, "must fit in a 32-bit integer, got " + std::to_string(wide));
    return;
  }
  out = static_cast<std::int32_t>(wide);
}

void YamlReader::read(const YAML::Node& node, const std::string& path, std::uint64_t& out) {
  auto v = scalar(node, path, "a non-negative integer", bit(ScalarKind::kInteger));
  if (!v) return;
  if (auto parsed = parseInteger<std::uint64_t>(*v)) {
    out = *parsed;
  } else {
    error(node, path, "must be a non-negative 64-bit integer, got " + *v);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, double& out) {
  auto v = scalar(node, path, "a number", kNumberKinds);
  if (!v) return;
  if (auto parsed = parseDouble(*v)) {
    out = *parsed;
  } else {
    error(node, path, "must be a finite number, got " + *v);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Duration& out) {
  auto v = scalar(node, path, "a duration string such as \"60s\"", bit(ScalarKind::kString));
  if (!v) return;
  if (auto parsed = parseDuration(*v)) {
    out = *parsed;
  } else {
    error(node, path, parsed.error().message);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Time& out) {
  auto v = scalar(node, path, "an RFC 3339 timestamp", bit(ScalarKind::kString));
  if (!v) return;
  if (auto parsed = parseRfc3339(*v)) {
    out = *parsed;
  } else {
    error(node, path, parsed.error().message);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Millicores& out) {
  auto v = scalar(node, path, "a CPU quantity such as \"500m\"", kQuantityKinds);
  if (!v) return;
  if (auto parsed = parseCpu(*v)) {
    out = *parsed;
  } else {
    error(node, path, parsed.error().message);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Bytes& out) {
  auto v = scalar(node, path, "a memory quantity such as \"512Mi\"", kQuantityKinds);
  if (!v) return;
  if (auto parsed = parseMemory(*v)) {
    out = *parsed;
  } else {
    error(node, path, parsed.error().message);
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path, Quantity& out) {
  auto v = scalar(node, path, "a quantity such as \"2\" or \"4Gi\"", kQuantityKinds);
  if (!v) return;
  auto parsed = Quantity::parse(*v);
  if (!parsed) {
    error(node, path, parsed.error().message);
  } else if (parsed->sign() < 0) {
    error(node, path, "must be greater than or equal to 0");
  } else {
    out = *parsed;
  }
}

void YamlReader::read(const YAML::Node& node, const std::string& path,
                      std::vector<std::string>& out) {
  list(node, path, [&](const YAML::Node& item, const std::string& itemPath) {
    std::string value;
    const std::size_t before = errors_.size();
    read(item, itemPath, value);
    if (errors_.size() == before) out.push_back(std::move(value));
  });
}

void YamlReader::read(const YAML::Node& node, const std::string& path, api::StringMap& out) {
  entries(node, path, [&](const std::string& key, const YAML::Node& value, const std::string& p) {
    if (auto v = scalar(value, p, "a string", bit(ScalarKind::kString))) out.emplace(key, *v);
  });
}

void YamlReader::read(const YAML::Node& node, const std::string& path, api::ResourceList& out) {
  entries(node, path, [&](const std::string& key, const YAML::Node& value, const std::string& p) {
    Quantity q;
    const std::size_t before = errors_.size();
    read(value, p, q);
    if (errors_.size() == before) out.set(key, q);
  });
}

void YamlReader::oneOf(const YAML::Node& node, const std::string& path,
                       std::initializer_list<std::string_view> names, std::string& out) {
  auto v = scalar(node, path, "one of " + joinNames(names), bit(ScalarKind::kString));
  if (!v) return;
  if (std::find(names.begin(), names.end(), *v) == names.end()) {
    error(node, path, "must be one of " + joinNames(names) + "; got " + quote(*v));
    return;
  }
  out = std::move(*v);
}

void YamlReader::number(const YAML::Node& node, const std::string& path, std::string_view expected,
                        const std::function<Result<double>(std::string_view)>& parse, double& out) {
  if (node.IsScalar() && (kNumberKinds & bit(api::internal::classify(node))) != 0) {
    read(node, path, out);
    return;
  }
  auto v = scalar(node, path, expected, bit(ScalarKind::kString));
  if (!v) return;
  if (auto parsed = parse(*v)) {
    out = *parsed;
  } else {
    error(node, path, parsed.error().message);
  }
}

}  // namespace attune::sim::internal
