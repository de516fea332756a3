// Patch documents Attune sends to the API server: JSON merge patches (RFC 7386) of annotations
// and JSON Patches (RFC 6902), e.g. from the admission webhook.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/k8s/meta.h"
#include "core/error.h"

namespace attune::api {

// Annotation key → new value, or nullopt to delete the annotation.
using AnnotationChanges = std::map<std::string, std::optional<std::string>, std::less<>>;

// {"metadata":{"annotations":{"k":"v","gone":null}}}: a JSON merge patch that sets or deletes
// only the given annotations (others are left as they are).
std::string encodeAnnotationsMergePatch(const AnnotationChanges& changes);

enum class JsonPatchOpType { kAdd, kReplace, kRemove, kTest };

struct JsonPatchOp {
  JsonPatchOpType op = JsonPatchOpType::kAdd;
  std::string path;   // a JSON pointer; build it with jsonPointer() so tokens are escaped
  std::string value;  // JSON text of the value for add, replace and test; unused for remove
};

// Escapes one JSON pointer reference token (RFC 6901): "~" → "~0", "/" → "~1".
std::string escapeJsonPointerToken(std::string_view token);
// "/" followed by the escaped tokens joined with "/":
// jsonPointer({"metadata", "annotations", "attune.io/resized-at"})
//   == "/metadata/annotations/attune.io~1resized-at". No tokens gives "" (the whole document).
std::string jsonPointer(std::initializer_list<std::string_view> tokens);

// JSON text of a string value: quoted and escaped.
std::string jsonString(std::string_view s);
// JSON text of a resource list ({"cpu":"250m","memory":"512Mi"}, canonical quantities) and of
// requirements ({"requests":{...},"limits":{...}}, empty lists omitted).
std::string jsonResourceList(const ResourceList& list);
std::string jsonResourceRequirements(const ResourceRequirements& r);

// The RFC 6902 document [{"op":"add","path":...,"value":...}, ...]. Fails with
// kInvalidArgument at field "[i].value" when a value is not valid JSON text.
Result<std::string> encodeJsonPatch(std::span<const JsonPatchOp> ops);

}  // namespace attune::api
