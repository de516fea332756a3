#include "api/k8s/meta.h"

#include <algorithm>

namespace attune::api {

namespace {

bool requirementMatches(const LabelSelectorRequirement& r, const StringMap& labels) {
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

bool selectorMatches(const LabelSelector& selector, const StringMap& labels) {
  for (const auto& [key, value] : selector.matchLabels) {
    auto it = labels.find(key);
    if (it == labels.end() || it->second != value) return false;
  }
  return std::all_of(selector.matchExpressions.begin(), selector.matchExpressions.end(),
                     [&](const auto& r) { return requirementMatches(r, labels); });
}

const Quantity* ResourceList::find(std::string_view name) const {
  if (name == "cpu") return cpu ? &*cpu : nullptr;
  if (name == "memory") return memory ? &*memory : nullptr;
  auto it = other.find(name);
  return it == other.end() ? nullptr : &it->second;
}

void ResourceList::set(std::string_view name, Quantity q) {
  if (name == "cpu") {
    cpu = q;
  } else if (name == "memory") {
    memory = q;
  } else {
    other.insert_or_assign(std::string(name), q);
  }
}

void ResourceList::forEach(const std::function<void(std::string_view, const Quantity&)>& fn) const {
  if (cpu) fn("cpu", *cpu);
  if (memory) fn("memory", *memory);
  for (const auto& [name, q] : other) fn(name, q);
}

const OwnerReference* ObjectMeta::controllerRef() const {
  for (const OwnerReference& ref : ownerReferences) {
    if (ref.controller) return &ref;
  }
  return nullptr;
}

const Condition* findCondition(const std::vector<Condition>& conditions, std::string_view type) {
  for (const Condition& c : conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

}  // namespace attune::api
