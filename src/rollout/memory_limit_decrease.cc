#include "rollout/memory_limit_decrease.h"

#include <algorithm>

#include "core/quantity.h"

namespace attune::rollout {
namespace {

bool restartsOnMemoryResize(const api::Container& c) {
  return std::any_of(c.resizePolicy.begin(), c.resizePolicy.end(), [](const auto& p) {
    return p.resourceName == "memory" && p.restartPolicy == "RestartContainer";
  });
}

}  // namespace

std::optional<MemoryLimitDecreaseSkip> checkMemoryLimitDecrease(
    const api::Pod& pod, const std::vector<ContainerChange>& changes,
    const std::optional<api::ServerVersion>& version, const ContainerMemoryUsage& usage,
    int marginPercent) {
  const bool live =
      version && version->atLeast(kLiveMemoryLimitDecreaseMajor, kLiveMemoryLimitDecreaseMinor);
  for (const ContainerChange& c : changes) {
    if (!c.current.memoryLimit || !c.target.memoryLimit) continue;
    const Bytes from = *c.current.memoryLimit;
    const Bytes to = *c.target.memoryLimit;
    if (!(to < from)) continue;
    const api::Container* spec = pod.spec.findContainer(c.name);
    if (spec != nullptr && restartsOnMemoryResize(*spec)) continue;
    const std::string what = "container " + c.name + " of pod " + pod.metadata.name +
                             ": memory limit " + formatMemory(from) + " -> " + formatMemory(to);
    if (!live) {
      const std::string running = version ? "the API server runs " + version->gitVersion
                                          : "the API server's version is "
                                            "unknown";
      return MemoryLimitDecreaseSkip{
          SkipReason::kMemoryLimitDecrease,
          what + ": " + running +
              "; before Kubernetes v1.34 a memory limit is lowered in place only with memory "
              "resizePolicy RestartContainer"};
    }
    const std::optional<Bytes> current = usage ? usage(pod, c.name) : std::nullopt;
    if (!current) {
      return MemoryLimitDecreaseSkip{
          SkipReason::kMemoryLimitUsageFloor,
          what + ": no current memory usage of the container to check the new limit against"};
    }
    const Bytes used = *current;
    const double floor = static_cast<double>(used.value()) * (100.0 + marginPercent) / 100.0;
    if (!(used < to) || static_cast<double>(to.value()) < floor) {
      return MemoryLimitDecreaseSkip{SkipReason::kMemoryLimitUsageFloor,
                                     what + " is below the current usage " + formatMemory(used) +
                                         " plus the " + std::to_string(marginPercent) +
                                         "% margin (decreaseUsageMarginPercent)"};
    }
  }
  return std::nullopt;
}

}  // namespace attune::rollout
