// Applying PATCH bodies to JSON objects the way the API server does, for the patch types
// kubectl and client-go send (by Content-Type):
//   application/merge-patch+json           RFC 7386 JSON merge patch;
//   application/strategic-merge-patch+json a strategic merge patch: a merge patch whose lists of
//                                          objects merge by "name" (containers, ports, env...)
//                                          or "type" (conditions), honouring the directives
//                                          $patch (replace, delete), $setElementOrder/ and
//                                          $retainKeys (both accepted and dropped);
//   application/json-patch+json            RFC 6902 JSON Patch.
// Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "core/error.h"

namespace attune::sim::serve {

enum class PatchType { kMerge, kStrategicMerge, kJsonPatch };

// The patch type of a Content-Type value (parameters ignored); kInvalidArgument (415 at the
// HTTP layer) for any other media type, e.g. server-side apply's application/apply-patch+yaml.
Result<PatchType> patchTypeOf(std::string_view contentType);

// `document` (one JSON object) with `patch` applied. kInvalidArgument when either is not valid
// JSON, the patch has the wrong shape for its type, or a JSON Patch operation fails (its index
// in the field path).
Result<std::string> applyPatch(std::string_view document, std::string_view patch, PatchType type);

}  // namespace attune::sim::serve
