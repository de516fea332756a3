// The one container-resources type: the cpu and memory requests and limits of one container,
// as the spec holds them, a strategy recommends them, a resize record keeps the originals and
// the policy status reports them.
#pragma once

#include <optional>

#include "core/units.h"

namespace attune::api {

// Container requests and limits; an unset value means "not set on the container".
struct ResourceValues {
  std::optional<Millicores> cpuRequest;
  std::optional<Millicores> cpuLimit;
  std::optional<Bytes> memoryRequest;
  std::optional<Bytes> memoryLimit;
  bool operator==(const ResourceValues&) const = default;
};

}  // namespace attune::api
