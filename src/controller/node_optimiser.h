// The controller's side of continuous node optimisation (rollout/node_optimisation.h): which
// pods of the policies that opted in are optimised this reconcile, with what demand, and the
// per-node decisions every such policy's pass then plans from (PolicyPass::finish).
#pragma once

#include <chrono>
#include <span>

#include "controller/cluster_snapshot.h"
#include "core/time.h"
#include "rollout/node_optimisation.h"

namespace attune::controller {

class PolicyPass;

// Runs node optimisation for one reconcile over `passes` (prepared; those without
// spec.nodeOptimization.enabled are ignored). A pod is optimised when its policy sizes pods this
// pass (PolicyPass::sizesPods: a resizing mode, not paused, usage read), neither it nor its
// workload is opted out (attune.io/skip), it is Running on a node, and every container the
// policy sizes has at least minimumDataPoints samples and a CruiseKube demand
// (recommend::cruisekubeDemand; the memory limit also covers twice the memory recorded at an OOM
// kill, rollout::recordedOomMemory). Any other pod of the cluster counts with its current
// requests. A pod under observation (carrying a resize record), a pod that started less than
// kMinimumPodAgeToEvict ago, and the pods of a workload whose attune.io/eviction-ranking
// annotation does not parse are never evicted this pass.
inline constexpr Duration kMinimumPodAgeToEvict = std::chrono::minutes(30);
rollout::NodeOptimisation optimiseNodes(const ClusterSnapshot& snapshot,
                                        std::span<const PolicyPass* const> passes);

}  // namespace attune::controller
