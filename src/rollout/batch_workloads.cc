#include "rollout/batch_workloads.h"

namespace attune::rollout {

bool isBatchWorkload(api::WorkloadKind kind) {
  return kind == api::WorkloadKind::kJob || kind == api::WorkloadKind::kCronJob;
}

std::string batchWorkloadMessage(api::WorkloadKind kind, const std::string& name) {
  return std::string(api::kindName(kind)) + " " + name +
         " is recommend-only: its pods run to completion and are not resized in place; apply "
         "the recommendation to its pod template for later runs";
}

}  // namespace attune::rollout
