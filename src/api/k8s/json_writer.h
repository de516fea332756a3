// Internal to api/k8s: helpers that build nlohmann::json documents for the encoders. They omit
// empty values so that encoded objects stay minimal and decode back to the same values.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

#include "api/k8s/meta.h"

namespace attune::api {

using Json = nlohmann::json;

// Compact text; invalid UTF-8 is replaced rather than thrown on.
std::string dumpJson(const Json& j);

// Set out[key] only when the value is non-empty / set / non-zero.
void putString(Json& out, std::string_view key, const std::string& value);
void putTime(Json& out, std::string_view key, const std::optional<Time>& t, int fractionDigits);
void putInt(Json& out, std::string_view key, std::int64_t value);

Json toJson(const ResourceList& list);
// {"requests":{...},"limits":{...}} with empty lists omitted.
Json toJson(const ResourceRequirements& r);
Json toJson(const ObjectMeta& meta);
Json toJson(const ObjectReference& ref);
Json toJson(const ApiStatus& status);

}  // namespace attune::api
