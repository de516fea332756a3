// autoscaling/v2 HorizontalPodAutoscaler: what Attune needs to coexist with HPAs (KEP-1610
// ContainerResource metrics) and to model them in the simulator.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/k8s/meta.h"

namespace attune::api {

// autoscaling/v2 CrossVersionObjectReference.
struct ScaleTargetRef {
  std::string apiVersion;
  std::string kind;
  std::string name;

  bool operator==(const ScaleTargetRef&) const = default;
};

// A metric target (spec: MetricTarget) or a current value (status: MetricValueStatus, where
// `type` stays empty). Which of the three amounts is set depends on `type`: Utilization →
// averageUtilization (percent of the request), AverageValue → averageValue, Value → value.
struct MetricValue {
  std::string type;
  std::optional<Quantity> value;
  std::optional<Quantity> averageValue;
  std::optional<std::int32_t> averageUtilization;

  bool operator==(const MetricValue&) const = default;
};

// autoscaling/v2 MetricIdentifier.
struct MetricIdentifier {
  std::string name;
  std::optional<LabelSelector> selector;

  bool operator==(const MetricIdentifier&) const = default;
};

// A metric source (spec.metrics[] or status.currentMetrics[]). `type` is Resource,
// ContainerResource, Pods, Object or External; a type this build does not know decodes with no
// source set. In spec.metrics the MetricValue members hold `target`, in status.currentMetrics
// they hold `current`.
struct ResourceMetricSource {
  std::string name;  // cpu, memory
  MetricValue target;
  bool operator==(const ResourceMetricSource&) const = default;
};

struct ContainerResourceMetricSource {
  std::string name;  // cpu, memory
  std::string container;
  MetricValue target;
  bool operator==(const ContainerResourceMetricSource&) const = default;
};

// Pods and External metrics.
struct NamedMetricSource {
  MetricIdentifier metric;
  MetricValue target;
  bool operator==(const NamedMetricSource&) const = default;
};

struct ObjectMetricSource {
  ScaleTargetRef describedObject;
  MetricIdentifier metric;
  MetricValue target;
  bool operator==(const ObjectMetricSource&) const = default;
};

struct MetricSpec {
  std::string type;
  std::optional<ResourceMetricSource> resource;
  std::optional<ContainerResourceMetricSource> containerResource;
  std::optional<NamedMetricSource> pods;
  std::optional<ObjectMetricSource> object;
  std::optional<NamedMetricSource> external;

  bool operator==(const MetricSpec&) const = default;
};

struct HpaScalingPolicy {
  std::string type;  // Pods or Percent
  std::int32_t value = 0;
  std::int32_t periodSeconds = 0;
  bool operator==(const HpaScalingPolicy&) const = default;
};

struct HpaScalingRules {
  std::optional<std::int32_t> stabilizationWindowSeconds;
  std::string selectPolicy;  // Max, Min, Disabled
  std::vector<HpaScalingPolicy> policies;
  std::optional<Quantity> tolerance;
  bool operator==(const HpaScalingRules&) const = default;
};

struct HpaBehavior {
  std::optional<HpaScalingRules> scaleUp;
  std::optional<HpaScalingRules> scaleDown;
  bool operator==(const HpaBehavior&) const = default;
};

struct HpaSpec {
  ScaleTargetRef scaleTargetRef;
  std::optional<std::int32_t> minReplicas;  // Kubernetes defaults to 1
  std::int32_t maxReplicas = 0;
  std::vector<MetricSpec> metrics;
  std::optional<HpaBehavior> behavior;
  bool operator==(const HpaSpec&) const = default;
};

struct HpaStatus {
  std::int64_t observedGeneration = 0;
  std::optional<Time> lastScaleTime;
  std::int32_t currentReplicas = 0;
  std::int32_t desiredReplicas = 0;
  std::vector<MetricSpec> currentMetrics;
  std::vector<Condition> conditions;  // AbleToScale, ScalingActive, ScalingLimited
  bool operator==(const HpaStatus&) const = default;
};

struct HorizontalPodAutoscaler {
  ObjectMeta metadata;
  HpaSpec spec;
  HpaStatus status;
  bool operator==(const HorizontalPodAutoscaler&) const = default;
};

}  // namespace attune::api
