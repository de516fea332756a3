// The scale subresource (autoscaling/v1 Scale) of Deployments, StatefulSets and ReplicaSets, as
// `kubectl scale` and the HPA controller use it: GET returns spec.replicas, status.replicas and
// status.selector; PUT (and PATCH, applied to the Scale first) sets the workload's
// spec.replicas, with metadata.resourceVersion as a precondition when given. Call with the
// SimHost's lock held.
#pragma once

#include <string_view>

#include "core/error.h"
#include "sim/engine/simulation.h"
#include "sim/serve/object_handlers.h"

namespace attune::sim::serve {

// Whether `plural` has a scale subresource.
bool hasScaleSubresource(std::string_view plural);

// The Scale of r.name (kNotFound when absent).
Result<Reply> getScale(Simulation& sim, const ResourceRequest& r);
// Writes spec.replicas from a Scale; kInvalidArgument (field "spec.replicas") when it is
// missing or negative.
Result<Reply> updateScale(Simulation& sim, const ResourceRequest& r, std::string_view json);

}  // namespace attune::sim::serve
