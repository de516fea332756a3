// Decoders of core/v1 Pod and the pod template of workloads.
#include "api/k8s/decoders.h"

namespace attune::api {

static Status readJson(JsonValue& v, ContainerResizePolicy& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "resourceName") return readJson(value, out.resourceName);
    if (key == "restartPolicy") return readJson(value, out.restartPolicy);
    return {};
  });
}

static Status readJson(JsonValue& v, Container& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "name") return readJson(value, out.name);
    if (key == "image") return readJson(value, out.image);
    if (key == "resources") return readJson(value, out.resources);
    if (key == "resizePolicy") return readJson(value, out.resizePolicy);
    if (key == "restartPolicy") return readJson(value, out.restartPolicy);
    return {};
  });
}

static Status readJson(JsonValue& v, Toleration& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "key") return readJson(value, out.key);
    if (key == "operator") return readJson(value, out.operator_);
    if (key == "value") return readJson(value, out.value);
    if (key == "effect") return readJson(value, out.effect);
    if (key == "tolerationSeconds") return readJson(value, out.tolerationSeconds);
    return {};
  });
}

Status readJson(JsonValue& v, PodSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "containers") return readJson(value, out.containers);
    if (key == "initContainers") return readJson(value, out.initContainers);
    if (key == "nodeName") return readJson(value, out.nodeName);
    if (key == "priority") return readJson(value, out.priority);
    if (key == "priorityClassName") return readJson(value, out.priorityClassName);
    if (key == "schedulerName") return readJson(value, out.schedulerName);
    if (key == "restartPolicy") return readJson(value, out.restartPolicy);
    if (key == "nodeSelector") return readJson(value, out.nodeSelector);
    if (key == "tolerations") return readJson(value, out.tolerations);
    if (key == "overhead") return readJson(value, out.overhead);
    if (key == "resources") return readJson(value, out.resources);
    return {};
  });
}

static Status readJson(JsonValue& v, ContainerStateWaiting& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "reason") return readJson(value, out.reason);
    if (key == "message") return readJson(value, out.message);
    return {};
  });
}

static Status readJson(JsonValue& v, ContainerStateRunning& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "startedAt") return readJson(value, out.startedAt);
    return {};
  });
}

static Status readJson(JsonValue& v, ContainerStateTerminated& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "exitCode") return readJson(value, out.exitCode);
    if (key == "reason") return readJson(value, out.reason);
    if (key == "message") return readJson(value, out.message);
    if (key == "startedAt") return readJson(value, out.startedAt);
    if (key == "finishedAt") return readJson(value, out.finishedAt);
    return {};
  });
}

static Status readJson(JsonValue& v, ContainerState& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "waiting") return readJson(value, out.waiting);
    if (key == "running") return readJson(value, out.running);
    if (key == "terminated") return readJson(value, out.terminated);
    return {};
  });
}

static Status readJson(JsonValue& v, ContainerStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "name") return readJson(value, out.name);
    if (key == "ready") return readJson(value, out.ready);
    if (key == "started") return readJson(value, out.started);
    if (key == "restartCount") return readJson(value, out.restartCount);
    if (key == "state") return readJson(value, out.state);
    if (key == "lastState") return readJson(value, out.lastState);
    if (key == "resources") return readJson(value, out.resources);
    if (key == "allocatedResources") return readJson(value, out.allocatedResources);
    return {};
  });
}

Status readJson(JsonValue& v, PodStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "phase") return readJson(value, out.phase);
    if (key == "qosClass") return readJson(value, out.qosClass);
    if (key == "conditions") return readJson(value, out.conditions);
    if (key == "containerStatuses") return readJson(value, out.containerStatuses);
    if (key == "initContainerStatuses") return readJson(value, out.initContainerStatuses);
    if (key == "observedGeneration") return readJson(value, out.observedGeneration);
    if (key == "startTime") return readJson(value, out.startTime);
    if (key == "reason") return readJson(value, out.reason);
    if (key == "message") return readJson(value, out.message);
    if (key == "resize") return readJson(value, out.resize);
    return {};
  });
}

Status readJson(JsonValue& v, Pod& out) { return readObjectParts(v, out); }

Status readJson(JsonValue& v, PodTemplateSpec& out) { return readObjectParts(v, out); }

}  // namespace attune::api
