#include "rollout/plan.h"

namespace attune::rollout {

std::string_view toString(SkipReason reason) {
  switch (reason) {
    case SkipReason::kOptOut:
      return "OptOut";
    case SkipReason::kQosChange:
      return "QoSChange";
    case SkipReason::kLimitRange:
      return "LimitRange";
    case SkipReason::kResourceQuota:
      return "ResourceQuota";
    case SkipReason::kNodeCapacity:
      return "NodeCapacity";
    case SkipReason::kCooldown:
      return "Cooldown";
    case SkipReason::kInvalidAnnotation:
      return "InvalidAnnotation";
    case SkipReason::kIncreaseBudget:
      return "IncreaseBudget";
    case SkipReason::kStaleRecommendation:
      return "StaleRecommendation";
    case SkipReason::kBatchWorkload:
      return "BatchWorkload";
    case SkipReason::kMemoryLimitDecrease:
      return "MemoryLimitDecrease";
    case SkipReason::kMemoryLimitUsageFloor:
      return "MemoryLimitUsageFloor";
  }
  return "Unknown";
}

std::string_view toString(DeferReason reason) {
  switch (reason) {
    case DeferReason::kActiveRollout:
      return "ActiveRollout";
    case DeferReason::kPodNotReady:
      return "PodNotReady";
    case DeferReason::kResizePending:
      return "ResizePending";
    case DeferReason::kCanaryObserving:
      return "CanaryObserving";
    case DeferReason::kCanaryWaiting:
      return "CanaryWaiting";
    case DeferReason::kCanaryNotPromoted:
      return "CanaryNotPromoted";
    case DeferReason::kOutsideSchedule:
      return "OutsideSchedule";
  }
  return "Unknown";
}

}  // namespace attune::rollout
