#include "sim/cluster/object_store.h"

#include <algorithm>
#include <cstdio>

namespace attune::sim {

bool selectorMatches(const api::LabelSelector& selector, const api::StringMap& labels) {
  return api::selectorMatches(selector, labels);
}

bool listMatches(const api::ListOptions& options, const api::ObjectMeta& meta) {
  if (!options.namespace_.empty() && options.namespace_ != meta.namespace_) return false;
  return api::selectorMatches(options.labelSelector, meta.labels);
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
