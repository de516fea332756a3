// The head of one watch line: its event type and its object's namespace and resourceVersion,
// read without decoding the rest of the object. A sharded controller's watch streams use it to
// pass over the events of namespaces it does not own (kube::WatchStream), decoding in full only
// those it keeps.
#pragma once

#include <string>
#include <string_view>

#include "api/k8s/meta.h"
#include "core/error.h"

namespace attune::api {

struct WatchEventHead {
  WatchEventType type = WatchEventType::kAdded;
  std::string namespace_;       // object.metadata.namespace ("" for cluster-scoped objects)
  std::string resourceVersion;  // object.metadata.resourceVersion
};

// The head of `json`, a watch line as decodeWatchEvent reads it (the fields in either order);
// only "type" and the object's "metadata" are read, everything else is skipped unparsed. An
// error names what is wrong as decodeWatchEvent would.
Result<WatchEventHead> decodeWatchEventHead(std::string_view json);

}  // namespace attune::api
