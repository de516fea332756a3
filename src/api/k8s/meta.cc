#include "api/k8s/meta.h"

namespace attune::api {

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
