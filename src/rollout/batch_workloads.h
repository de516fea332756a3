// Batch targets (Jobs and CronJobs) are recommend-only, whatever the policy's mode: their pods
// run to completion and are never resized in place nor evicted by Attune. Their recommendations
// are for the Job or CronJob template of later runs (the public operator's rule). Pure.
#pragma once

#include <string>

#include "api/k8s/workload_ref.h"

namespace attune::rollout {

// True for Job and CronJob.
bool isBatchWorkload(api::WorkloadKind kind);

// The message of the BatchWorkload skip of workload `name` of kind `kind`.
std::string batchWorkloadMessage(api::WorkloadKind kind, const std::string& name);

}  // namespace attune::rollout
