// The API server's validation of pod resources: of a pod being created, and of the pod `resize`
// subresource (KEP-1287). Pure functions the simulated cluster applies before storing.
#pragma once

#include <span>

#include "api/cluster_api.h"
#include "core/error.h"

namespace attune::sim {

// Returns `pod`'s spec with the requested containers' resources replaced, or kInvalidArgument
// with Error::field set:
// - "spec.containers": no regular container or sidecar init container has that name;
// - "<container>.resources.{requests,limits}.<resource>": a negative quantity, or a change to
//   a resource other than cpu and memory;
// - "<container>.resources.requests": a cpu or memory request above its limit;
// - "spec": the pod's QoS class (status.qosClass, or computed from the spec when unset) would
//   differ from the class computed from the new spec.
// <container> is "spec.containers[i]" or "spec.initContainers[i]". Pure.
Result<api::PodSpec> applyResize(const api::Pod& pod,
                                 std::span<const api::ContainerResize> containers);

// The version rule of the resize subresource for memory limits (KEP-1287): before Kubernetes
// v1.34 a container's memory limit may not decrease unless its memory resizePolicy is
// RestartContainer: kInvalidArgument, field "<container>.resources.limits.memory", message
// "Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer".
// From v1.34 a decrease is accepted (the kubelet guards it against the container's usage:
// kubelet/resize_actuator.h). A limit added or removed is not a decrease. Pure.
Result<void> checkMemoryLimitDecrease(const api::PodSpec& before, const api::PodSpec& after,
                                      const api::ServerVersion& version);

// The resource rules of pod validation on create, over regular and init containers; fails
// with kInvalidArgument and Error::field set: "<container>.resources.{requests,limits}.<name>"
// for a negative quantity, "<container>.resources.requests" for a cpu or memory request above
// its limit. Pure.
Result<void> validatePodResources(const api::PodSpec& spec);

}  // namespace attune::sim
