// core/v1 Pod: the parts Attune reads to right-size containers in place (KEP-1287) and to
// judge how a resized pod is doing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/meta.h"
#include "api/k8s/node.h"

namespace attune::api {

// Condition types the kubelet and API server set on a pod while a resize is pending or running.
inline constexpr std::string_view kPodResizePending = "PodResizePending";
inline constexpr std::string_view kPodResizeInProgress = "PodResizeInProgress";

// spec.containers[].resizePolicy[]: whether resizing a resource restarts the container.
struct ContainerResizePolicy {
  std::string resourceName;   // "cpu" or "memory"
  std::string restartPolicy;  // "NotRequired" or "RestartContainer"

  bool operator==(const ContainerResizePolicy&) const = default;
};

struct Container {
  std::string name;
  std::string image;
  ResourceRequirements resources;
  std::vector<ContainerResizePolicy> resizePolicy;
  // Only on init containers: "Always" makes it a sidecar that runs for the pod's lifetime.
  std::string restartPolicy;

  bool isSidecar() const { return restartPolicy == "Always"; }
  bool operator==(const Container&) const = default;
};

// Desired resources for one container in a resize request. Only cpu and memory requests and
// limits may differ from the container's current resources.
struct ContainerResize {
  std::string name;
  ResourceRequirements resources;
  // The container is one of the pod's init containers (a sidecar), not a regular one: the
  // resize request names it under spec.initContainers. PodSpec::resizeOf sets it.
  bool initContainer = false;
};

struct PodSpec {
  std::vector<Container> containers;
  std::vector<Container> initContainers;
  std::string nodeName;
  std::optional<std::int32_t> priority;
  std::string priorityClassName;
  std::string schedulerName;
  std::string restartPolicy;  // Always, OnFailure, Never
  StringMap nodeSelector;
  std::vector<Toleration> tolerations;
  ResourceList overhead;
  // Pod-level resources (KEP-2837); when set they decide the QoS class.
  std::optional<ResourceRequirements> resources;

  // The container (regular or init) named `name`, or nullptr.
  const Container* findContainer(std::string_view name) const;
  // A resize of `c`, one of this spec's containers or init containers, to `resources`.
  ContainerResize resizeOf(const Container& c, ResourceRequirements resources) const;
  bool operator==(const PodSpec&) const = default;
};

struct ContainerStateWaiting {
  std::string reason;  // e.g. CrashLoopBackOff, ContainerCreating
  std::string message;
  bool operator==(const ContainerStateWaiting&) const = default;
};

struct ContainerStateRunning {
  std::optional<Time> startedAt;
  bool operator==(const ContainerStateRunning&) const = default;
};

struct ContainerStateTerminated {
  std::int32_t exitCode = 0;
  std::string reason;  // e.g. OOMKilled, Error, Completed
  std::string message;
  std::optional<Time> startedAt;
  std::optional<Time> finishedAt;
  bool operator==(const ContainerStateTerminated&) const = default;
};

// At most one member is set in a well-formed status; none when the state is unknown.
struct ContainerState {
  std::optional<ContainerStateWaiting> waiting;
  std::optional<ContainerStateRunning> running;
  std::optional<ContainerStateTerminated> terminated;
  bool operator==(const ContainerState&) const = default;
};

struct ContainerStatus {
  std::string name;
  bool ready = false;
  std::optional<bool> started;
  std::int32_t restartCount = 0;
  ContainerState state;
  ContainerState lastState;
  // What the kubelet has actually applied (status.containerStatuses[].resources), when reported.
  std::optional<ResourceRequirements> resources;
  // What the node has allocated for the container.
  ResourceList allocatedResources;

  bool operator==(const ContainerStatus&) const = default;
};

struct PodStatus {
  std::string phase;     // Pending, Running, Succeeded, Failed, Unknown
  std::string qosClass;  // Guaranteed, Burstable, BestEffort (immutable once set)
  std::string reason;    // e.g. Evicted
  std::string message;
  std::vector<Condition> conditions;
  std::int64_t observedGeneration = 0;
  std::optional<Time> startTime;
  std::vector<ContainerStatus> containerStatuses;
  std::vector<ContainerStatus> initContainerStatuses;
  // Deprecated (before Kubernetes 1.33): "Proposed", "InProgress", "Deferred", "Infeasible".
  std::string resize;

  // The status of container (regular or init) `name`, or nullptr.
  const ContainerStatus* findContainerStatus(std::string_view name) const;
  bool operator==(const PodStatus&) const = default;
};

struct Pod {
  ObjectMeta metadata;
  PodSpec spec;
  PodStatus status;

  bool operator==(const Pod&) const = default;
};

// metadata + spec of the pods a workload creates.
struct PodTemplateSpec {
  ObjectMeta metadata;
  PodSpec spec;

  bool operator==(const PodTemplateSpec&) const = default;
};

// True when the pod's Ready condition is True (podutil.IsPodReady). Pure.
bool isPodReady(const Pod& pod);

enum class QosClass { kBestEffort, kBurstable, kGuaranteed };

// "BestEffort", "Burstable", "Guaranteed".
std::string_view qosClassName(QosClass qos);

// The QoS class Kubernetes assigns to a pod with this spec (ComputePodQOS, Kubernetes 1.34+),
// looking at cpu and memory only, an absent amount counting as zero. One set of requirements
// is Guaranteed when requests equal limits and both are non-zero for cpu and for memory,
// BestEffort when all four are zero, Burstable otherwise. Pod-level resources, when set, decide
// alone; otherwise every init and regular container is classified and the pod takes their
// common class, or Burstable when they differ. A pod without containers is BestEffort. Pure.
QosClass computeQosClass(const PodSpec& spec);

}  // namespace attune::api
