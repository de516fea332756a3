#include "rollout/pod_targets.h"

#include <algorithm>

#include "safety/resize_record.h"

namespace attune::rollout {
namespace {

template <typename Amount>
void deriveResource(std::optional<Amount>& request, std::optional<Amount>& limit,
                    const std::optional<Amount>& recommended, bool controlLimits,
                    bool guaranteedPod) {
  if (!recommended || !request) return;
  const Amount current = *request;
  Amount next = *recommended;
  if (limit && controlLimits && guaranteedPod) {
    limit = next;
  } else if (limit && controlLimits && current.value() > 0) {
    const __int128 scaled = static_cast<__int128>(next.value()) * limit->value();
    const __int128 q = scaled / current.value();
    const bool roundUp = q * current.value() != scaled;
    limit = Amount(static_cast<std::int64_t>(q + (roundUp ? 1 : 0)));
  } else if (limit && next > *limit) {
    next = *limit;
  }
  request = next;
}

}  // namespace

api::ResourceValues deriveTarget(const api::ResourceValues& current,
                                 const api::ResourceValues& recommended,
                                 api::ControlledValues controlled, bool guaranteedPod) {
  const bool controlLimits = controlled == api::ControlledValues::kRequestsAndLimits;
  api::ResourceValues out = current;
  deriveResource(out.cpuRequest, out.cpuLimit, recommended.cpuRequest, controlLimits,
                 guaranteedPod);
  deriveResource(out.memoryRequest, out.memoryLimit, recommended.memoryRequest, controlLimits,
                 guaranteedPod);
  return out;
}

std::vector<ContainerChange> podChanges(const api::Pod& pod, const ContainerTargets& targets,
                                        const api::AttunePolicy& policy, LimitRule rule) {
  std::vector<ContainerChange> out;
  if (targets.empty()) return out;
  const bool guaranteed = api::computeQosClass(pod.spec) == api::QosClass::kGuaranteed;
  const bool nodeRule = rule == LimitRule::kNodeOptimisation;
  const auto cpuMode =
      nodeRule ? api::ControlledValues::kRequestsOnly
               : policy.spec.cpu.controlledValues.value_or(api::ControlledValues::kRequestsOnly);
  const auto memoryMode =
      policy.spec.memory.controlledValues.value_or(api::ControlledValues::kRequestsOnly);
  for (const api::Container& c : pod.spec.containers) {
    if (api::isExcludedContainer(policy, c.name)) continue;
    auto it = targets.find(c.name);
    if (it == targets.end()) continue;
    ContainerChange change{c.name, safety::resourceValuesOf(c.resources), {}};
    // cpu and memory may be controlled differently: derive each with its own mode.
    api::ResourceValues cpuOnly;
    cpuOnly.cpuRequest = it->second.cpuRequest;
    api::ResourceValues memoryOnly;
    memoryOnly.memoryRequest = it->second.memoryRequest;
    change.target = deriveTarget(change.current, cpuOnly, cpuMode, guaranteed);
    if (nodeRule && memoryMode == api::ControlledValues::kRequestsAndLimits &&
        it->second.memoryLimit && change.target.memoryLimit && change.target.memoryRequest &&
        it->second.memoryRequest) {
      // The memory limit comes from the target (2 × max(week max, memory at an OOM kill)).
      change.target.memoryRequest = it->second.memoryRequest;
      change.target.memoryLimit = std::max(*it->second.memoryLimit, *it->second.memoryRequest);
    } else {
      change.target =
          deriveTarget(change.target, memoryOnly,
                       nodeRule ? api::ControlledValues::kRequestsOnly : memoryMode, guaranteed);
    }
    if (change.target != change.current) out.push_back(std::move(change));
  }
  return out;
}

api::PodSpec resizedSpec(const api::Pod& pod, const std::vector<ContainerChange>& changes) {
  api::PodSpec spec = pod.spec;
  for (const ContainerChange& change : changes) {
    for (api::Container& c : spec.containers) {
      if (c.name == change.name) {
        c.resources = safety::withResourceValues(c.resources, change.target);
      }
    }
  }
  return spec;
}

}  // namespace attune::rollout
