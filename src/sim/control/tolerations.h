// Pod tolerations against node taints, as the scheduler's TaintToleration filter judges them.
#pragma once

#include <vector>

#include "api/k8s/node.h"

namespace attune::sim {

// The first NoSchedule or NoExecute taint of `node` that no toleration tolerates, or nullptr.
// PreferNoSchedule taints never block. Pure.
const api::Taint* untoleratedTaint(const api::Node& node,
                                   const std::vector<api::Toleration>& tolerations);

}  // namespace attune::sim
