// Decoder of autoscaling/v2 HorizontalPodAutoscaler.
#include "api/k8s/decoders.h"

namespace attune::api {

static Status readJson(JsonValue& v, ScaleTargetRef& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "apiVersion") return readJson(value, out.apiVersion);
    if (key == "kind") return readJson(value, out.kind);
    if (key == "name") return readJson(value, out.name);
    return {};
  });
}

static Status readJson(JsonValue& v, MetricValue& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "type") return readJson(value, out.type);
    if (key == "value") return readJson(value, out.value);
    if (key == "averageValue") return readJson(value, out.averageValue);
    if (key == "averageUtilization") return readJson(value, out.averageUtilization);
    return {};
  });
}

static Status readJson(JsonValue& v, MetricIdentifier& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "name") return readJson(value, out.name);
    if (key == "selector") return readJson(value, out.selector);
    return {};
  });
}

// The members every metric source may have; `target` (spec) and `current` (status) both land
// in the source's MetricValue. A source struct without one of these members ignores that key.
template <typename Source>
static Status readMetricSource(JsonValue& v, Source& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "target" || key == "current") return readJson(value, out.target);
    if constexpr (requires { out.name; }) {
      if (key == "name") return readJson(value, out.name);
    }
    if constexpr (requires { out.container; }) {
      if (key == "container") return readJson(value, out.container);
    }
    if constexpr (requires { out.metric; }) {
      if (key == "metric") return readJson(value, out.metric);
    }
    if constexpr (requires { out.describedObject; }) {
      if (key == "describedObject") return readJson(value, out.describedObject);
    }
    return {};
  });
}

static Status readJson(JsonValue& v, MetricSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "type") return readJson(value, out.type);
    if (key == "resource") return readMetricSource(value, out.resource.emplace());
    if (key == "containerResource") {
      return readMetricSource(value, out.containerResource.emplace());
    }
    if (key == "pods") return readMetricSource(value, out.pods.emplace());
    if (key == "object") return readMetricSource(value, out.object.emplace());
    if (key == "external") return readMetricSource(value, out.external.emplace());
    return {};
  });
}

static Status readJson(JsonValue& v, HpaScalingPolicy& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "type") return readJson(value, out.type);
    if (key == "value") return readJson(value, out.value);
    if (key == "periodSeconds") return readJson(value, out.periodSeconds);
    return {};
  });
}

static Status readJson(JsonValue& v, HpaScalingRules& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "stabilizationWindowSeconds") {
      return readJson(value, out.stabilizationWindowSeconds);
    }
    if (key == "selectPolicy") return readJson(value, out.selectPolicy);
    if (key == "policies") return readJson(value, out.policies);
    if (key == "tolerance") return readJson(value, out.tolerance);
    return {};
  });
}

static Status readJson(JsonValue& v, HpaBehavior& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "scaleUp") return readJson(value, out.scaleUp);
    if (key == "scaleDown") return readJson(value, out.scaleDown);
    return {};
  });
}

static Status readJson(JsonValue& v, HpaSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "scaleTargetRef") return readJson(value, out.scaleTargetRef);
    if (key == "minReplicas") return readJson(value, out.minReplicas);
    if (key == "maxReplicas") return readJson(value, out.maxReplicas);
    if (key == "metrics") return readJson(value, out.metrics);
    if (key == "behavior") return readJson(value, out.behavior);
    return {};
  });
}

static Status readJson(JsonValue& v, HpaStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "observedGeneration") return readJson(value, out.observedGeneration);
    if (key == "lastScaleTime") return readJson(value, out.lastScaleTime);
    if (key == "currentReplicas") return readJson(value, out.currentReplicas);
    if (key == "desiredReplicas") return readJson(value, out.desiredReplicas);
    if (key == "currentMetrics") return readJson(value, out.currentMetrics);
    if (key == "conditions") return readJson(value, out.conditions);
    return {};
  });
}

Status readJson(JsonValue& v, HorizontalPodAutoscaler& out) { return readObjectParts(v, out); }

}  // namespace attune::api
