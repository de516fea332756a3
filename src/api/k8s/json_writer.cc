#include "api/k8s/json_writer.h"

namespace attune::api {

std::string dumpJson(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

void putString(Json& out, std::string_view key, const std::string& value) {
  if (!value.empty()) out[std::string(key)] = value;
}

void putTime(Json& out, std::string_view key, const std::optional<Time>& t, int fractionDigits) {
  if (t) out[std::string(key)] = formatRfc3339(*t, fractionDigits);
}

void putInt(Json& out, std::string_view key, std::int64_t value) {
  if (value != 0) out[std::string(key)] = value;
}

Json toJson(const ResourceList& list) {
  Json out = Json::object();
  list.forEach(
      [&out](std::string_view name, const Quantity& q) { out[std::string(name)] = q.toString(); });
  return out;
}

Json toJson(const ResourceRequirements& r) {
  Json out = Json::object();
  if (!r.requests.empty()) out["requests"] = toJson(r.requests);
  if (!r.limits.empty()) out["limits"] = toJson(r.limits);
  return out;
}

Json toJson(const ObjectMeta& meta) {
  Json out = Json::object();
  putString(out, "name", meta.name);
  putString(out, "generateName", meta.generateName);
  putString(out, "namespace", meta.namespace_);
  putString(out, "uid", meta.uid);
  putString(out, "resourceVersion", meta.resourceVersion);
  putInt(out, "generation", meta.generation);
  putTime(out, "creationTimestamp", meta.creationTimestamp, 0);
  putTime(out, "deletionTimestamp", meta.deletionTimestamp, 0);
  if (!meta.labels.empty()) out["labels"] = meta.labels;
  if (!meta.annotations.empty()) out["annotations"] = meta.annotations;
  for (const OwnerReference& ref : meta.ownerReferences) {
    Json r = Json::object();
    putString(r, "apiVersion", ref.apiVersion);
    putString(r, "kind", ref.kind);
    putString(r, "name", ref.name);
    putString(r, "uid", ref.uid);
    if (ref.controller) r["controller"] = true;
    out["ownerReferences"].push_back(std::move(r));
  }
  return out;
}

Json toJson(const ObjectReference& ref) {
  Json out = Json::object();
  putString(out, "apiVersion", ref.apiVersion);
  putString(out, "kind", ref.kind);
  putString(out, "namespace", ref.namespace_);
  putString(out, "name", ref.name);
  putString(out, "uid", ref.uid);
  putString(out, "resourceVersion", ref.resourceVersion);
  putString(out, "fieldPath", ref.fieldPath);
  return out;
}

Json toJson(const ApiStatus& status) {
  Json out = Json::object();
  putString(out, "status", status.status);
  putString(out, "message", status.message);
  putString(out, "reason", status.reason);
  putInt(out, "code", status.code);
  return out;
}

}  // namespace attune::api
