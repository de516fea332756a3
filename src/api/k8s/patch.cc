#include "api/k8s/patch.h"

#include "api/k8s/json_writer.h"

namespace attune::api {

std::string encodeAnnotationsMergePatch(const AnnotationChanges& changes) {
  Json annotations = Json::object();
  for (const auto& [key, value] : changes) {
    annotations[key] = value ? Json(*value) : Json(nullptr);
  }
  return dumpJson(Json{{"metadata", {{"annotations", std::move(annotations)}}}});
}

std::string escapeJsonPointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string jsonPointer(std::initializer_list<std::string_view> tokens) {
  std::string out;
  for (std::string_view token : tokens) {
    out += '/';
    out += escapeJsonPointerToken(token);
  }
  return out;
}

std::string jsonString(std::string_view s) { return dumpJson(Json(std::string(s))); }

std::string jsonResourceList(const ResourceList& list) { return dumpJson(toJson(list)); }

std::string jsonResourceRequirements(const ResourceRequirements& r) { return dumpJson(toJson(r)); }

static std::string_view opName(JsonPatchOpType op) {
  switch (op) {
    case JsonPatchOpType::kAdd:
      return "add";
    case JsonPatchOpType::kReplace:
      return "replace";
    case JsonPatchOpType::kRemove:
      return "remove";
    case JsonPatchOpType::kTest:
      return "test";
  }
  return "add";
}

Result<std::string> encodeJsonPatch(std::span<const JsonPatchOp> ops) {
  Json doc = Json::array();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const JsonPatchOp& op = ops[i];
    Json entry = {{"op", std::string(opName(op.op))}, {"path", op.path}};
    if (op.op != JsonPatchOpType::kRemove) {
      Json value = Json::parse(op.value, nullptr, /*allow_exceptions=*/false);
      if (value.is_discarded()) {
        std::string message = "not valid JSON text: ";
        message += op.value;
        std::string field = "[";
        field += std::to_string(i);
        field += "].value";
        return fail(ErrorCode::kInvalidArgument, std::move(message), std::move(field));
      }
      entry["value"] = std::move(value);
    }
    doc.push_back(std::move(entry));
  }
  return dumpJson(doc);
}

}  // namespace attune::api
