// The pre-check of live memory limit decreases (KEP-1287), by the API server's Kubernetes
// version:
//  - before v1.34 the resize subresource refuses to lower a container's memory limit unless the
//    container's memory resizePolicy is RestartContainer (the kubelet then restarts it with the
//    new limit);
//  - from v1.34 a decrease is accepted, and the kubelet leaves it in progress (Error) while the
//    container uses more than the new limit; Attune asks more: the new limit must be above the
//    container's current working set plus spec.memory.decreaseUsageMarginPercent (default 10 %).
// An unknown version counts as before v1.34; an unknown or stale current usage fails closed.
// A RestartContainer memory resize policy passes at any version (the restart applies the limit).
// Pure: the version and the usage are inputs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/pod.h"
#include "api/k8s/server_version.h"
#include "core/units.h"
#include "rollout/plan.h"
#include "rollout/pod_targets.h"

namespace attune::rollout {

// The first version that decreases a memory limit in place without restarting the container.
inline constexpr int kLiveMemoryLimitDecreaseMajor = 1;
inline constexpr int kLiveMemoryLimitDecreaseMinor = 34;

// The current working set (bytes) of a container of a pod; nullopt when none is known (or the
// newest sample is too old to count as current). Asked only for the containers whose memory limit
// a resize would lower, so that a pass looks up those, not every container it plans for.
using ContainerMemoryUsage =
    std::function<std::optional<Bytes>(const api::Pod& pod, std::string_view container)>;

struct MemoryLimitDecreaseSkip {
  SkipReason reason = SkipReason::kMemoryLimitDecrease;
  std::string message;
};

// Checks every change of `changes` that lowers a set memory limit of a container of `pod`:
//  - memory resizePolicy RestartContainer: passes;
//  - `version` unknown or before v1.34: Skip(MemoryLimitDecrease);
//  - no usage for the container in `usage`: Skip(MemoryLimitUsageFloor) (fail closed);
//  - new limit <= usage, or below usage × (100 + marginPercent) / 100:
//    Skip(MemoryLimitUsageFloor).
// nullopt when every decrease passes (or there is none).
std::optional<MemoryLimitDecreaseSkip> checkMemoryLimitDecrease(
    const api::Pod& pod, const std::vector<ContainerChange>& changes,
    const std::optional<api::ServerVersion>& version, const ContainerMemoryUsage& usage,
    int marginPercent);

}  // namespace attune::rollout
