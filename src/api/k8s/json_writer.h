// Internal to api/k8s: how the encoders write JSON. JsonObject builds one object and omits empty
// values, so that encoded objects stay minimal and decode back to the same values; the toJson
// functions are the Kubernetes types more than one encoder writes.
#pragma once

#include <nlohmann/json.hpp>

#include <concepts>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/k8s/meta.h"

namespace attune::api {

using Json = nlohmann::json;

// Compact text; invalid UTF-8 is replaced rather than thrown on.
std::string dumpJson(const Json& j);

Json toJson(const ResourceList& list);
// {"requests":{...},"limits":{...}} with empty lists omitted.
Json toJson(const ResourceRequirements& r);
Json toJson(const ObjectMeta& meta);
Json toJson(const OwnerReference& ref);
Json toJson(const ObjectReference& ref);
Json toJson(const ApiStatus& status);

// The JSON value of a field: times in RFC 3339 with whole seconds, quantities and resource lists
// in their canonical text, anything else as nlohmann::json converts it.
template <typename V>
Json jsonValue(const V& value) {
  if constexpr (std::is_same_v<V, Time>) {
    return formatRfc3339(value, 0);
  } else if constexpr (std::is_same_v<V, Quantity>) {
    return value.toString();
  } else if constexpr (std::is_same_v<V, ResourceList>) {
    return toJson(value);
  } else {
    return Json(value);
  }
}

// A time with microseconds (MicroTime), unset when `t` is.
std::optional<std::string> microTime(const std::optional<Time>& t);

// [encode(item), ...] in order; [] for no items.
template <typename T>
Json jsonArray(const std::vector<T>& items, Json (*encode)(const T&)) {
  Json out = Json::array();
  for (const T& item : items) out.push_back(encode(item));
  return out;
}

// One JSON object, written field by field. Nothing here throws on valid UTF-8 keys.
class JsonObject {
 public:
  JsonObject() : json_(Json::object()) {}

  // Writes each (key, value) pair unless the value is empty: an empty string, list, map or
  // JSON value, a zero number, false, an unset optional. A set optional is written even when
  // its value is empty or zero.
  template <typename V, typename... Rest>
  JsonObject& put(std::string_view key, const V& value, const Rest&... rest) {
    if (!isEmpty(value)) json_[std::string(key)] = present(value);
    if constexpr (sizeof...(rest) > 0) put(rest...);
    return *this;
  }

  // Writes each (key, value) pair as it is, empty or not (not with an optional value).
  template <typename V, typename... Rest>
  JsonObject& set(std::string_view key, const V& value, const Rest&... rest) {
    json_[std::string(key)] = present(value);
    if constexpr (sizeof...(rest) > 0) set(rest...);
    return *this;
  }

  // Moves the object written so far out; the builder is left empty.
  Json take() { return std::exchange(json_, Json::object()); }
  std::string dump() const { return dumpJson(json_); }

 private:
  template <typename V>
  static bool isEmpty(const V& value) {
    if constexpr (std::is_same_v<V, bool>) {
      return !value;
    } else if constexpr (std::is_arithmetic_v<V>) {
      return value == 0;
    } else if constexpr (requires { value.has_value(); }) {
      return !value.has_value();
    } else {
      return value.empty();
    }
  }
  template <typename V>
  static Json present(const V& value) {
    if constexpr (requires { value.has_value(); }) {
      return jsonValue(*value);
    } else {
      return jsonValue(value);
    }
  }

  Json json_;
};

}  // namespace attune::api
