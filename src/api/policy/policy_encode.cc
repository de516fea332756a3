// encodePolicyYaml() / encodePolicyJson(): AttunePolicy → one ordered JSON tree (field lists of
// policy_fields.h) → text.
#include <yaml-cpp/yaml.h>

#include <charconv>
#include <nlohmann/json.hpp>

#include "api/policy/policy_codec.h"
#include "api/policy/policy_emit.h"
#include "api/policy/policy_fields.h"
#include "api/yaml/yaml_scalar.h"
#include "core/quantity.h"

namespace attune::api {
namespace {

using Json = nlohmann::ordered_json;

// ---- Scalars.

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
requires std::is_enum_v<E> Json scalar(E v) { return std::string(toString(v)); }

// A visitor for internal::fields(): writes one struct as a JSON object. Unset optionals, empty
// strings and containers, false and 0 are left out, so decoding the output gives the value back.
class JsonWriter {
 public:
  void type(std::string_view) {}

  template <typename T>
  void operator()(const char* key, const std::optional<T>& value) {
    if (value) out_[key] = scalar(*value);
  }
  void operator()(const char* key, const std::string& value) {
    if (!value.empty()) out_[key] = value;
  }
  void operator()(const char* key, bool value) {
    if (value) out_[key] = true;
  }
  void operator()(const char* key, std::int64_t value) {
    if (value != 0) out_[key] = value;
  }
  void operator()(const char* key, const std::vector<std::string>& value) {
    if (!value.empty()) out_[key] = value;
  }
  void operator()(const char* key, const StringMap& value) {
    if (value.empty()) return;
    Json& map = out_[key] = Json::object();
    for (const auto& [k, v] : value) map[k] = v;
  }

  // A struct is written when it has content; an optional one whenever it is present.
  template <typename T>
  void object(const char* key, const T& value) {
    Json child = write(value);
    if (!child.empty()) out_[key] = std::move(child);
  }
  template <typename T>
  void object(const char* key, const std::optional<T>& value) {
    if (value) out_[key] = write(*value);
  }
  template <typename T>
  void list(const char* key, const std::vector<T>& items) {
    if (items.empty()) return;
    Json& array = out_[key] = Json::array();
    for (const T& item : items) array.push_back(write(item));
  }
  template <typename Body>
  void inlined(const char* key, std::string_view, Body body) {
    JsonWriter inner;
    body(inner);
    if (!inner.out_.empty()) out_[key] = std::move(inner.out_);
  }

  template <typename T>
  static Json write(const T& value) {
    JsonWriter writer;
    internal::fields(writer, const_cast<T&>(value));  // the writer only reads
    return std::move(writer.out_);
  }

  Json out_ = Json::object();
};

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
  JsonWriter writer;
  writer.out_["apiVersion"] = kPolicyApiVersion;
  writer.out_["kind"] = kPolicyKind;
  internal::fields(writer, const_cast<AttunePolicy&>(p));  // the writer only reads
  for (const PreservedField& field : p.preserved) restore(writer.out_, field);
  return std::move(writer.out_);
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

std::string internal::emitYaml(const nlohmann::ordered_json& document) {
  try {
    YAML::Emitter out;
    out.SetOutputCharset(YAML::EscapeNonAscii);  // see needsQuotes()
    emit(out, document);
    return std::string(out.c_str()) + "\n";
  } catch (const std::exception&) {
    return {};  // unreachable: the tree is built from valid values
  }
}

std::string encodePolicyYaml(const AttunePolicy& policy) {
  return internal::emitYaml(encodeDocument(policy));
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
