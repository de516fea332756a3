#include "api/policy/policy_schema.h"

#include <algorithm>

#include "api/policy/extension_schema.h"
#include "api/policy/public_schema.h"

namespace attune::api::internal {
namespace {

// The entry for (owner, field) in `table`, or nullptr.
const SchemaField* lookup(std::span<const SchemaField> table, std::string_view owner,
                          std::string_view field) {
  const SchemaField key{owner, field, {}};
  const auto it = std::lower_bound(table.begin(), table.end(), key, fieldOrder);
  if (it == table.end() || it->owner != owner || it->name != field) return nullptr;
  return &*it;
}

}  // namespace

std::optional<KnownField> findField(std::string_view owner, std::string_view field) {
  if (const SchemaField* f = lookup(publicFields(), owner, field)) {
    return KnownField{f->type, FieldOrigin::kPublic};
  }
  if (const SchemaField* f = lookup(kubernetesMetadataFields(), owner, field)) {
    return KnownField{f->type, FieldOrigin::kKubernetes};
  }
  if (const SchemaField* f = lookup(extensionFields(), owner, field)) {
    return KnownField{f->type, FieldOrigin::kExtension};
  }
  return std::nullopt;
}

std::span<const SchemaField> fieldsOf(std::span<const SchemaField> table, std::string_view owner) {
  const auto byOwner = [](const SchemaField& a, const SchemaField& b) { return a.owner < b.owner; };
  const auto [first, last] =
      std::equal_range(table.begin(), table.end(), SchemaField{owner, {}, {}}, byOwner);
  return {first, last};
}

}  // namespace attune::api::internal
