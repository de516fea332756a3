// The resources a pod's containers should get from a recommendation: which values change and
// how limits follow requests. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "api/k8s/pod.h"
#include "api/policy/attune_policy.h"
#include "recommend/recommendation.h"

namespace attune::rollout {

// Recommended values per container name; only the requests are read (see deriveTarget), and the
// memory limit under LimitRule::kNodeOptimisation.
using ContainerTargets = std::map<std::string, api::ResourceValues, std::less<>>;

// The new requests and limits of one container, per resource (cpu, memory) independently:
//  - the resource is left as it is (request and limit) when the recommendation has no request
//    for it or the container has no request for it: Attune never adds or removes a request or
//    a limit, so a revert can always restore the original exactly;
//  - the request becomes the recommended request, and the limit follows:
//    * Guaranteed pod with RequestsAndLimits: limit = request (they move together);
//    * RequestsAndLimits, limit set: the current limit/request ratio is kept,
//      limit = ceil(request × currentLimit / currentRequest);
//    * otherwise (RequestsOnly, or no limit): the limit stays; a request above it is lowered
//      to it (a request may not exceed its limit). A Guaranteed pod under RequestsOnly thus
//      gets requests below its limits, which the QoS check then blocks.
api::ResourceValues deriveTarget(const api::ResourceValues& current,
                                 const api::ResourceValues& recommended,
                                 api::ControlledValues controlled, bool guaranteedPod);

// One regular container of a pod whose resources would change.
struct ContainerChange {
  std::string name;
  api::ResourceValues current;
  api::ResourceValues target;
};

// Where a container's new limits come from.
enum class LimitRule {
  // deriveTarget with the policy's controlledValues: limits follow the requests.
  kFollowRequests,
  // Node optimisation (node_optimisation.h): the CPU limit stays as it is (the request is capped
  // at it); under memory RequestsAndLimits a container with a memory limit gets the target's
  // memoryLimit (at least the new request), otherwise its memory limit stays.
  kNodeOptimisation,
};

// The containers of `pod` that `targets` would change, in spec order: regular containers only
// (init containers and sidecars are not resized), excluded containers
// (api::isExcludedContainer) never, containers without a target never. Empty when the pod is
// at its target. `policy.spec.cpu/memory.controlledValues` unset means RequestsOnly.
std::vector<ContainerChange> podChanges(const api::Pod& pod, const ContainerTargets& targets,
                                        const api::AttunePolicy& policy,
                                        LimitRule rule = LimitRule::kFollowRequests);

// `pod.spec` with `changes` applied (the pod as it would be after the resize).
api::PodSpec resizedSpec(const api::Pod& pod, const std::vector<ContainerChange>& changes);

}  // namespace attune::rollout
