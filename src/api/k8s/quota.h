// Namespace resource policy Attune must respect before resizing: core/v1 LimitRange and
// ResourceQuota.
#pragma once

#include <string>
#include <vector>

#include "api/k8s/meta.h"

namespace attune::api {

// One spec.limits[] entry of a LimitRange.
struct LimitRangeItem {
  std::string type;  // Container, Pod or PersistentVolumeClaim
  ResourceList min;
  ResourceList max;
  ResourceList default_;  // default limits
  ResourceList defaultRequest;
  ResourceList maxLimitRequestRatio;

  bool operator==(const LimitRangeItem&) const = default;
};

struct LimitRange {
  ObjectMeta metadata;
  std::vector<LimitRangeItem> limits;

  bool operator==(const LimitRange&) const = default;
};

struct ResourceQuota {
  ObjectMeta metadata;
  ResourceList specHard;  // spec.hard (keys like "requests.cpu", "limits.memory", "pods")
  std::vector<std::string> scopes;
  ResourceList hard;  // status.hard
  ResourceList used;  // status.used

  bool operator==(const ResourceQuota&) const = default;
};

}  // namespace attune::api
