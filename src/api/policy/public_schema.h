// Internal to api/policy: the field names of the public Attune operator's AttunePolicy API
// (attune.io/v1alpha1), by object type. The decoder consults it for every key it does not model:
// a key listed here is accepted (and preserved verbatim), any other key is an error.
#pragma once

#include <optional>
#include <string_view>

namespace attune::api::internal {

// Value types in the table: an object type name ("ResourceConfig"), "[]T" for a list of objects
// of type T, "{}" for a map of strings, "" for a scalar or a list of scalars, "*" for anything
// (free-form Kubernetes metadata).
inline constexpr std::string_view kAnyValue = "*";
inline constexpr std::string_view kStringMap = "{}";
inline constexpr std::string_view kScalar = "";

// The value type of field `field` of public object type `owner` ("AttunePolicySpec",
// "UpdateStrategy", ...), or nullopt when the public API has no such field.
std::optional<std::string_view> publicFieldType(std::string_view owner, std::string_view field);

}  // namespace attune::api::internal
