#include "sim/cluster/object_store.h"

#include <algorithm>
#include <cstdio>

namespace attune::sim {
namespace {

bool requirementMatches(const api::LabelSelectorRequirement& r, const api::StringMap& labels) {
  auto it = labels.find(r.key);
  const bool present = it != labels.end();
  const bool inValues =
      present && std::find(r.values.begin(), r.values.end(), it->second) != r.values.end();
  if (r.operator_ == "In") return inValues;
  if (r.operator_ == "NotIn") return !inValues;
  if (r.operator_ == "Exists") return present;
  if (r.operator_ == "DoesNotExist") return !present;
  return false;
}

}  // namespace

bool selectorMatches(const api::LabelSelector& selector, const api::StringMap& labels) {
  for (const auto& [key, value] : selector.matchLabels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(selector.matchExpressions.begin(), selector.matchExpressions.end(),
                     [&](const auto& r) { return requirementMatches(r, labels); });
}

bool listMatches(const api::ListOptions& options, const api::ObjectMeta& meta) {
  if (!options.namespace_.empty() && options.namespace_ != meta.namespace_) return false;
  return selectorMatches(options.labelSelector, meta.labels);
}

void Versioner::nameFromGenerateName(api::ObjectMeta& meta) {
  if (meta.name.empty() && !meta.generateName.empty()) {
    meta.name = meta.generateName + std::to_string(uids_ + 1);
  }
}

void Versioner::stampCreate(api::ObjectMeta& meta) {
  char uid[40];
  std::snprintf(uid, sizeof uid, "00000000-0000-4000-8000-%012llx",
                static_cast<unsigned long long>(++uids_));
  meta.uid = uid;
  meta.creationTimestamp = clock_.now();
  meta.deletionTimestamp.reset();
  meta.generation = 1;
  meta.resourceVersion = std::to_string(++rv_);
}

void Versioner::stampUpdate(api::ObjectMeta& meta, bool specChanged) {
  meta.resourceVersion = std::to_string(++rv_);
  if (specChanged) ++meta.generation;
}

Error notFoundError(std::string_view resource, std::string_view name) {
  return Error{
      ErrorCode::kNotFound, std::string(resource) + " \"" + std::string(name) + "\" not found", {}};
}

Result<void> checkResourceVersion(const api::ObjectMeta& meta, std::string_view precondition,
                                  std::string_view resource) {
  if (precondition.empty() || precondition == meta.resourceVersion) return {};
  return fail(ErrorCode::kConflict,
              "Operation cannot be fulfilled on " + std::string(resource) + " \"" + meta.name +
                  "\": the object has been modified; please apply your changes to the latest "
                  "version and try again");
}

}  // namespace attune::sim
