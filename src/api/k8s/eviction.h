// policy/v1 Eviction, posted to a pod's eviction subresource (honours PodDisruptionBudgets).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/k8s/meta.h"

namespace attune::api {

struct DeleteOptions {
  std::optional<std::int64_t> gracePeriodSeconds;
  std::string preconditionUid;              // preconditions.uid
  std::string preconditionResourceVersion;  // preconditions.resourceVersion
  std::vector<std::string> dryRun;          // ["All"] for a dry run

  bool operator==(const DeleteOptions&) const = default;
};

struct Eviction {
  ObjectMeta metadata;  // name and namespace of the pod to evict
  std::optional<DeleteOptions> deleteOptions;

  bool operator==(const Eviction&) const = default;
};

}  // namespace attune::api
