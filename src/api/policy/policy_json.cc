// decodePolicyJson(): nlohmann::json → AttunePolicy through the field lists of policy_fields.h,
// declining whatever the YAML decoder (policy_decode.cc) would read differently.
#include "api/policy/policy_json.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "api/policy/policy_codec.h"
#include "api/policy/policy_fields.h"
#include "api/policy/policy_reader.h"
#include "api/yaml/yaml_scalar.h"
#include "core/quantity.h"
#include "core/time.h"

namespace attune::api {
namespace {

using Json = nlohmann::json;

// ---- Scalars: each accepts only the JSON type and text the YAML decoder reads without an error
// and to the same value (yaml_reader.cc); false declines.

bool read(const Json& v, std::string& out) {
  if (!v.is_string()) return false;
  out = v.get_ref<const std::string&>();
  return true;
}

bool read(const Json& v, bool& out) {
  if (!v.is_boolean()) return false;
  out = v.get<bool>();
  return true;
}

bool read(const Json& v, std::int64_t& out) {
  if (v.is_number_unsigned()) {
    const auto value = v.get<std::uint64_t>();
    if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
    out = static_cast<std::int64_t>(value);
    return true;
  }
  if (!v.is_number_integer()) return false;
  out = v.get<std::int64_t>();
  return true;
}

bool read(const Json& v, std::int32_t& out) {
  std::int64_t wide = 0;
  if (!read(v, wide) || wide < std::numeric_limits<std::int32_t>::min() ||
      wide > std::numeric_limits<std::int32_t>::max()) {
    return false;
  }
  out = static_cast<std::int32_t>(wide);
  return true;
}

bool read(const Json& v, double& out) {
  if (!v.is_number()) return false;
  out = v.get<double>();
  return true;
}

// A string `parse` (a core parser returning Result<T>) accepts.
template <typename T, typename Parse>
bool readParsed(const Json& v, Parse parse, T& out) {
  if (!v.is_string()) return false;
  auto parsed = parse(v.get_ref<const std::string&>());
  if (!parsed) return false;
  out = *parsed;
  return true;
}

bool read(const Json& v, Duration& out) { return readParsed(v, parseDuration, out); }
bool read(const Json& v, Millicores& out) { return readParsed(v, parseCpu, out); }
bool read(const Json& v, Bytes& out) { return readParsed(v, parseMemory, out); }

bool read(const Json& v, Time& out) {
  Time parsed{};
  if (!readParsed(v, parseRfc3339, parsed)) return false;
  const std::chrono::year year =
      std::chrono::year_month_day(std::chrono::floor<std::chrono::days>(parsed)).year();
  if (year < std::chrono::year(1) || year > std::chrono::year(9999)) return false;
  out = parsed;
  return true;
}

template <typename E>
requires std::is_enum_v<E>
bool read(const Json& v, E& out) {
  if (!v.is_string()) return false;
  const std::string& text = v.get_ref<const std::string&>();
  for (int i = 0; !toString(static_cast<E>(i)).empty(); ++i) {
    if (toString(static_cast<E>(i)) == text) {
      out = static_cast<E>(i);
      return true;
    }
  }
  return false;
}

template <typename T>
bool read(const Json& v, std::optional<T>& out) {
  T value{};
  if (!read(v, value)) return false;
  out = std::move(value);
  return true;
}

bool read(const Json& v, std::vector<std::string>& out) {
  if (!v.is_array()) return false;
  for (const Json& item : v) {
    if (!item.is_string()) return false;
    out.push_back(item.get_ref<const std::string&>());
  }
  return true;
}

// PolicyReader::stringMap's rules: a key YAML would not read as null and isMapKey allows, string
// values.
bool read(const Json& v, StringMap& out) {
  if (!v.is_object()) return false;
  for (const auto& [key, value] : v.items()) {
    if (!internal::isMapKey(key) || internal::classifyPlain(key) == internal::ScalarKind::kNull ||
        !value.is_string()) {
      return false;
    }
    out.emplace(key, value.get_ref<const std::string&>());
  }
  return true;
}

// ---- Objects.

// A visitor for internal::fields(): reads one JSON object's fields into a struct. A null value is
// an unset field, as in the YAML decoder. done() is false when a field declined or a key is none
// of the fields.
class FieldReader {
 public:
  explicit FieldReader(const Json& object) : object_(object) {}

  void type(std::string_view /*type*/) {}
  template <typename T>
  void operator()(const char* name, T& member) {
    if (const Json* v = take(name)) ok_ = ok_ && read(*v, member);
  }
  template <typename T>
  void object(const char* name, T& member) {
    if (const Json* v = take(name)) ok_ = ok_ && readStruct(*v, member);
  }
  template <typename T>
  void object(const char* name, std::optional<T>& member) {
    if (const Json* v = take(name)) ok_ = ok_ && readStruct(*v, member.emplace());
  }
  template <typename T>
  void list(const char* name, std::vector<T>& member) {
    const Json* v = take(name);
    if (v == nullptr) return;
    if (!v->is_array()) {
      ok_ = false;
      return;
    }
    for (const Json& item : *v) {
      if (!readStruct(item, member.emplace_back())) {
        ok_ = false;
        return;
      }
    }
  }
  template <typename Body>
  void inlined(const char* name, std::string_view /*type*/, Body body) {
    const Json* v = take(name);
    if (v == nullptr) return;
    if (!v->is_object()) {
      ok_ = false;
      return;
    }
    FieldReader inner(*v);
    body(inner);
    ok_ = ok_ && inner.done();
  }

  // Counts `name` as read when the object has it (the header fields the caller checks itself).
  const Json* take(const char* name) {
    if (!ok_) return nullptr;
    auto it = object_.find(name);
    if (it == object_.end()) return nullptr;
    ++read_;
    return it->is_null() ? nullptr : &*it;
  }
  bool done() const { return ok_ && read_ == object_.size(); }

  template <typename T>
  static bool readStruct(const Json& object, T& out) {
    if (!object.is_object()) return false;
    FieldReader reader(object);
    internal::fields(reader, out);
    return reader.done();
  }

 private:
  const Json& object_;
  std::size_t read_ = 0;  // keys of object_ visited
  bool ok_ = true;
};

// `name` holds the string `expected`.
bool header(FieldReader& reader, const char* name, std::string_view expected) {
  const Json* v = reader.take(name);
  return v != nullptr && v->is_string() && v->get_ref<const std::string&>() == expected;
}

}  // namespace

std::optional<AttunePolicy> decodePolicyJson(const Json& object) {
  if (!object.is_object()) return std::nullopt;
  FieldReader reader(object);
  if (!header(reader, "apiVersion", kPolicyApiVersion) || !header(reader, "kind", kPolicyKind)) {
    return std::nullopt;
  }
  AttunePolicy policy;
  internal::fields(reader, policy);
  if (!reader.done()) return std::nullopt;
  return policy;
}

}  // namespace attune::api
