// Continuous node optimisation (CruiseKube's Phase 2, seeds/cruisekube-algorithm.md, "Detailed
// Algorithm"): one node at a time, the pods of policies that opted in
// (spec.nodeOptimization.enabled) are sized together against what the rest of the node leaves.
// Pure: values in, per-pod targets and evictions out; the rollout planner then applies the
// targets in place with every pre-check (planner.h, WorkloadInput::podTargets) and the safety
// monitor judges them like any other resize.
//
// Per node:
//  1. available = allocatable − the requests of every other pod bound to the node (not
//     Succeeded or Failed; a terminating pod still holds its resources) − the requests of the
//     optimised pods' containers that are not sized (excluded sidecars, init sidecars, overhead);
//  2. per sized container: base = P75 of the recent window (CPU 10 min of PSI-adjusted usage,
//     memory 30 min), headroom = hour-of-week peak − base (recommend::cruisekubeDemand);
//  3. memory first: while sum(base) + max(pod headroom) > available memory, the first pod in
//     eviction order is evicted; 4. then the same for CPU (recommend::HeadroomPlanner). Eviction
//     order: ranking Low < Medium < High, ties by the larger headroom; DaemonSet pods, pods ranked
//     NoEviction and pods not evictable this pass (OptimisedPod::evictable) never;
//  5. every surviving container gets base + floor(max headroom × its headroom / total
//     headroom) of CPU and memory requests;
//     A request (or memory limit) within kMinChangePercent of the container's current one is
//     left as it is; on a node that cannot hold its pods even after the evictions (no pod left
//     that may be evicted) a request is never raised for the resource that does not fit;
//  6. memory limit = 2 × max(7-day max, memory at the last OOM kill) (the demand's memoryLimit),
//     written only under memory RequestsAndLimits on a container that has a limit; the CPU
//     limit is never set (rollout::LimitRule::kNodeOptimisation). Requests and the memory limit
//     are clamped to the policy's minAllowed / maxAllowed.
// A node missing from the input's nodes, or without allocatable cpu or memory, is not optimised
// (its pods get no targets: fail closed).
#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "api/k8s/node.h"
#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "recommend/cruisekube_strategy.h"
#include "recommend/headroom_planner.h"
#include "rollout/plan.h"
#include "rollout/pod_targets.h"

namespace attune::rollout {

// Why the node optimiser evicts a pod: the resource that did not fit (the EvictAction's cause).
inline constexpr std::string_view kNodeMemoryCause = "NodeMemoryShortage";
inline constexpr std::string_view kNodeCpuCause = "NodeCPUShortage";

inline constexpr double kMinChangePercent = 10;

// One container the node optimiser sizes.
struct OptimisedContainer {
  std::string name;
  recommend::CruisekubeDemand demand;
};

// A running pod of a policy with node optimisation, every container it sizes with a demand.
struct OptimisedPod {
  const api::Pod* pod = nullptr;
  api::WorkloadRef workload;
  api::TargetKind workloadKind = api::TargetKind::kDeployment;
  api::EvictionRanking ranking = api::EvictionRanking::kLow;
  // False: kept whatever its ranking (e.g. a pod under observation, or its policy's mode does
  // not resize).
  bool evictable = true;
  std::vector<OptimisedContainer> containers;
  const api::AttunePolicy* policy = nullptr;  // defaulted; its bounds clamp the targets
};

struct NodeOptimisationInput {
  std::span<const api::Node> nodes;
  std::span<const api::Pod> pods;  // every pod of the cluster: the rest of each node
  std::vector<OptimisedPod> optimised;
};

// What the optimiser decided for one node.
struct NodeSummary {
  std::string node;
  int pods = 0;  // optimised pods on it
  int evicted = 0;
  recommend::NodePlan plan;
};

struct NodeOptimisation {
  // The targets of every surviving optimised pod, by "namespace/name".
  std::map<std::string, ContainerTargets, std::less<>> targets;
  // One eviction per evicted pod, in the order chosen per node (nodes in name order); the
  // workload annotations are empty.
  std::vector<EvictAction> evictions;
  std::vector<NodeSummary> nodes;  // the nodes with optimised pods, in name order
};

NodeOptimisation optimiseNodes(const NodeOptimisationInput& input);

// The pod's eviction ranking: the workload's attune.io/eviction-ranking annotation, else the
// policy's spec.nodeOptimization.evictionRanking, else the seed's default (Medium for
// StatefulSets and single-replica workloads, Low for the rest). An annotation that does not name
// a ranking is an error (the caller reports it and does not evict).
inline constexpr std::string_view kEvictionRankingAnnotation = "attune.io/eviction-ranking";
Result<api::EvictionRanking> evictionRanking(const api::ObjectMeta& workload,
                                             const api::AttunePolicy& policy, api::TargetKind kind,
                                             int replicas);

}  // namespace attune::rollout
