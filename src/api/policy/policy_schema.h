// Internal to api/policy: every field name an AttunePolicy document may carry, by object type,
// and where each comes from. The schema is the union of three disjoint tables:
//   - public_schema.h: the public Attune operator's API (attune.io/v1alpha1, its CRD), exactly;
//   - public_schema.h: Kubernetes object metadata (ObjectMeta), which the CRD's `metadata`
//     stands for;
//   - extension_schema.h: fields this project adds, which no version of the public API has.
// The decoder handles the fields it models itself (policy_fields.h) and consults findField() for
// every other key: a known key is accepted (and preserved verbatim), any other key is an error.
#pragma once

#include <optional>
#include <span>
#include <string_view>

namespace attune::api::internal {

// Value types in the tables: an object type name ("ResourceConfig"), "[]T" for a list of objects
// of type T, "{}" for a map of strings, "" for a scalar or a list of scalars, "*" for anything
// (free-form Kubernetes metadata).
inline constexpr std::string_view kAnyValue = "*";
inline constexpr std::string_view kStringMap = "{}";
inline constexpr std::string_view kScalar = "";

// True for a value type that names an object type (not "", "{}", "*" or "[]T").
constexpr bool isObjectType(std::string_view type) {
  return type != kAnyValue && type != kStringMap && type != kScalar && !type.starts_with("[]");
}

// Field `name` of object type `owner` has value type `type`.
struct SchemaField {
  std::string_view owner;
  std::string_view name;
  std::string_view type;
};

// The order every table is sorted in: by owner, then by name.
constexpr bool fieldOrder(const SchemaField& a, const SchemaField& b) {
  return a.owner != b.owner ? a.owner < b.owner : a.name < b.name;
}

enum class FieldOrigin {
  kPublic,      // the public attune.io/v1alpha1 API
  kKubernetes,  // Kubernetes object metadata
  kExtension,   // added by this project; not part of the public API
};

struct KnownField {
  std::string_view type;  // the value type, as in SchemaField
  FieldOrigin origin;
};

// The value type and origin of field `field` of object type `owner` ("AttunePolicySpec",
// "UpdateStrategy", ...), or nullopt when no table lists it.
std::optional<KnownField> findField(std::string_view owner, std::string_view field);

// The fields of `table` (sorted by fieldOrder) whose owner is `owner`, in name order.
std::span<const SchemaField> fieldsOf(std::span<const SchemaField> table, std::string_view owner);

}  // namespace attune::api::internal
