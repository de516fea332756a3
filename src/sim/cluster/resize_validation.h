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

// The resource rules of pod validation on create, over regular and init containers; fails
// with kInvalidArgument and Error::field set: "<container>.resources.{requests,limits}.<name>"
// for a negative quantity, "<container>.resources.requests" for a cpu or memory request above
// its limit. Pure.
Result<void> validatePodResources(const api::PodSpec& spec);

}  // namespace attune::sim
