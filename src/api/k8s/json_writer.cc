#include "api/k8s/json_writer.h"

namespace attune::api {

std::string dumpJson(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::optional<std::string> microTime(const std::optional<Time>& t) {
  if (!t) return std::nullopt;
  return formatRfc3339(*t, 6);
}

Json toJson(const ResourceList& list) {
  Json out = Json::object();
  list.forEach(
      [&out](std::string_view name, const Quantity& q) { out[std::string(name)] = q.toString(); });
  return out;
}

Json toJson(const ResourceRequirements& r) {
  return JsonObject().put("requests", r.requests, "limits", r.limits).take();
}

Json toJson(const ObjectMeta& meta) {
  return JsonObject()
      .put("name", meta.name, "generateName", meta.generateName, "namespace", meta.namespace_,
           "uid", meta.uid, "resourceVersion", meta.resourceVersion, "generation", meta.generation)
      .put("creationTimestamp", meta.creationTimestamp, "deletionTimestamp", meta.deletionTimestamp,
           "labels", meta.labels, "annotations", meta.annotations)
      .put("ownerReferences", jsonArray<OwnerReference>(meta.ownerReferences, toJson))
      .take();
}

Json toJson(const OwnerReference& ref) {
  return JsonObject()
      .put("apiVersion", ref.apiVersion, "kind", ref.kind, "name", ref.name, "uid", ref.uid,
           "controller", ref.controller)
      .take();
}

Json toJson(const ObjectReference& ref) {
  return JsonObject()
      .put("apiVersion", ref.apiVersion, "kind", ref.kind, "namespace", ref.namespace_, "name",
           ref.name, "uid", ref.uid, "resourceVersion", ref.resourceVersion, "fieldPath",
           ref.fieldPath)
      .take();
}

Json toJson(const ApiStatus& status) {
  return JsonObject()
      .put("status", status.status, "message", status.message, "reason", status.reason, "code",
           status.code)
      .take();
}

}  // namespace attune::api
