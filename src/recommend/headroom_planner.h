// Node-level headroom sharing and eviction ranking (seeds/cruisekube-algorithm.md, continuous
// optimisation steps 1–6): the optimisable pods of one node must fit in sum(base) +
// max(headroom); the largest headroom is shared among all containers in proportion to their own
// headroom; when they do not fit, pods are marked for eviction — memory first, then CPU.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "api/policy/attune_policy.h"
#include "core/units.h"
#include "recommend/recommendation.h"

namespace attune::recommend {

// Per-workload eviction priority: Low goes first, then Medium, then High; NoEviction never (the
// policy API's enumeration: spec.nodeOptimization.evictionRanking).
using EvictionRanking = api::EvictionRanking;

// The seed's default ranking: Medium for StatefulSets and single-replica workloads, else Low.
EvictionRanking defaultEvictionRanking(api::TargetKind kind, int replicas);

// One container's steady-state demand and spike headroom (see cruisekubeDemand).
struct ContainerDemand {
  std::string name;
  Millicores cpuBase;
  Millicores cpuHeadroom;
  Bytes memoryBase;
  Bytes memoryHeadroom;
};

// An optimisable pod on the node. DaemonSet pods are never evicted, whatever their ranking.
struct PodDemand {
  std::string name;  // unique among the node's pods (e.g. "namespace/name")
  api::TargetKind workloadKind = api::TargetKind::kDeployment;
  EvictionRanking ranking = EvictionRanking::kLow;
  std::vector<ContainerDemand> containers;
};

struct NodeCapacity {
  Millicores allocatableCpu;
  Bytes allocatableMemory;
  // Sum of the requests of the node's pods that are not optimised.
  Millicores reservedCpu;
  Bytes reservedMemory;
};

// A surviving container's new requests: base + its share of the node's largest headroom.
struct ContainerPlan {
  std::string pod;
  std::string container;
  Millicores cpuRequest;
  Bytes memoryRequest;
};

struct Eviction {
  std::string pod;
  Resource shortage;  // the resource that did not fit when this pod was chosen
};

struct NodePlan {
  std::vector<ContainerPlan> containers;  // surviving pods' containers, in input order
  std::vector<Eviction> evictions;        // in the order chosen
  // False when the survivors still do not fit after every evictable pod is gone.
  bool memoryFits = true;
  bool cpuFits = true;
  Millicores availableCpu;  // allocatable - reserved
  Bytes availableMemory;
  Millicores sharedCpuHeadroom;  // the largest surviving container headroom
  Bytes sharedMemoryHeadroom;
};

class HeadroomPlanner {
 public:
  // Plans one node. Steps: (3) while sum(pod memory base) + max(pod max memory headroom) >
  // available memory, evict the first evictable pod in the order: ranking Low < Medium < High,
  // then larger max memory headroom first, then input order — DaemonSets and NoEviction pods
  // never; (4) the same for CPU with CPU headroom; (5) every surviving container gets base +
  // floor(maxHeadroom × headroom / totalHeadroom) — shares rounded down so the node's sum never
  // exceeds sum(base) + max(headroom). Pure; thread-safe.
  NodePlan plan(const NodeCapacity& node, std::span<const PodDemand> pods) const;
};

}  // namespace attune::recommend
