// Copies of the objects of an api::SharedList, for comparing a shared list with a listed one.
#pragma once

#include <memory>
#include <vector>

#include "api/cluster_api.h"

namespace attune::testing {

template <typename T>
std::vector<T> objectsOf(const std::vector<std::shared_ptr<const T>>& list) {
  std::vector<T> out;
  out.reserve(list.size());
  for (const auto& object : list) out.push_back(*object);
  return out;
}

}  // namespace attune::testing
