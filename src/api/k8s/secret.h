// core/v1 Secret, as read (policies name one for a Prometheus bearer token).
#pragma once

#include <string>

#include "api/k8s/meta.h"

namespace attune::api {

struct Secret {
  ObjectMeta metadata;
  std::string type;  // e.g. "Opaque"
  // The values of `data`, base64-decoded, with `stringData` (as a stored object given to a
  // server that keeps it, such as the simulator) merged over them as the API server does.
  StringMap data;

  bool operator==(const Secret&) const = default;
};

}  // namespace attune::api
