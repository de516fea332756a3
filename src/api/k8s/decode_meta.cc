// Decoders of the metadata and small structs every kind shares.
#include "api/k8s/decoders.h"

namespace attune::api {

static Status readJson(JsonValue& v, OwnerReference& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "apiVersion") return readJson(value, out.apiVersion);
    if (key == "kind") return readJson(value, out.kind);
    if (key == "name") return readJson(value, out.name);
    if (key == "uid") return readJson(value, out.uid);
    if (key == "controller") return readJson(value, out.controller);
    return {};
  });
}

Status readJson(JsonValue& v, ObjectMeta& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "name") return readJson(value, out.name);
    if (key == "namespace") return readJson(value, out.namespace_);
    if (key == "uid") return readJson(value, out.uid);
    if (key == "resourceVersion") return readJson(value, out.resourceVersion);
    if (key == "generation") return readJson(value, out.generation);
    if (key == "labels") return readJson(value, out.labels);
    if (key == "annotations") return readJson(value, out.annotations);
    if (key == "ownerReferences") return readJson(value, out.ownerReferences);
    if (key == "creationTimestamp") return readJson(value, out.creationTimestamp);
    if (key == "deletionTimestamp") return readJson(value, out.deletionTimestamp);
    if (key == "generateName") return readJson(value, out.generateName);
    return {};
  });
}

Status readJson(JsonValue& v, ObjectReference& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "apiVersion") return readJson(value, out.apiVersion);
    if (key == "kind") return readJson(value, out.kind);
    if (key == "namespace") return readJson(value, out.namespace_);
    if (key == "name") return readJson(value, out.name);
    if (key == "uid") return readJson(value, out.uid);
    if (key == "resourceVersion") return readJson(value, out.resourceVersion);
    if (key == "fieldPath") return readJson(value, out.fieldPath);
    return {};
  });
}

Status readJson(JsonValue& v, Condition& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "type") return readJson(value, out.type);
    if (key == "status") return readJson(value, out.status);
    if (key == "reason") return readJson(value, out.reason);
    if (key == "message") return readJson(value, out.message);
    if (key == "lastTransitionTime") return readJson(value, out.lastTransitionTime);
    if (key == "observedGeneration") return readJson(value, out.observedGeneration);
    return {};
  });
}

static Status readJson(JsonValue& v, LabelSelectorRequirement& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "key") return readJson(value, out.key);
    if (key == "operator") return readJson(value, out.operator_);
    if (key == "values") return readJson(value, out.values);
    return {};
  });
}

Status readJson(JsonValue& v, LabelSelector& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "matchLabels") return readJson(value, out.matchLabels);
    if (key == "matchExpressions") return readJson(value, out.matchExpressions);
    return {};
  });
}

Status readJson(JsonValue& v, ResourceRequirements& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "requests") return readJson(value, out.requests);
    if (key == "limits") return readJson(value, out.limits);
    return {};
  });
}

Status readJson(JsonValue& v, ApiStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "status") return readJson(value, out.status);
    if (key == "message") return readJson(value, out.message);
    if (key == "reason") return readJson(value, out.reason);
    if (key == "code") return readJson(value, out.code);
    return {};
  });
}

}  // namespace attune::api
