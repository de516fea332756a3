#include "rollout/node_optimisation.h"

#include <algorithm>
#include <set>
#include <type_traits>
#include <utility>

#include "core/quantity.h"
#include "rollout/prechecks.h"

namespace attune::rollout {
namespace {

std::string keyOf(const api::Pod& pod) { return pod.metadata.namespace_ + "/" + pod.metadata.name; }

bool holdsResources(const api::Pod& pod) {
  return !pod.spec.nodeName.empty() && pod.status.phase != "Succeeded" &&
         pod.status.phase != "Failed";
}

template <typename Amount>
Amount bounded(Amount v, const api::ResourcePolicy<Amount>& p) {
  if (p.minAllowed && v < *p.minAllowed) v = *p.minAllowed;
  if (p.maxAllowed && v > *p.maxAllowed) v = *p.maxAllowed;
  return v;
}

// A value within kMinChangePercent of the current one stays: moves that small are not worth a
// resize, and without this every pass would nudge every pod as the statistics move.
template <typename Amount>
Amount sticky(Amount target, const std::optional<Quantity>& current) {
  if (!current) return target;
  const std::int64_t now = std::is_same_v<Amount, Millicores> ? current->toMillicores().value()
                                                              : current->toBytes().value();
  const std::int64_t diff = target.value() > now ? target.value() - now : now - target.value();
  return static_cast<double>(diff) * 100 < kMinChangePercent * static_cast<double>(now)
             ? Amount(now)
             : target;
}

const api::Container* containerOf(const api::Pod& pod, std::string_view name) {
  for (const api::Container& c : pod.spec.containers) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

// The requests of `pod` its sized containers do not account for.
PodRequests unsizedRequests(const OptimisedPod& p) {
  PodRequests total = podRequests(p.pod->spec);
  for (const api::Container& c : p.pod->spec.containers) {
    const bool sized = std::any_of(p.containers.begin(), p.containers.end(),
                                   [&](const OptimisedContainer& o) { return o.name == c.name; });
    if (!sized) continue;
    if (c.resources.requests.cpu) total.cpu -= c.resources.requests.cpu->toMillicores();
    if (c.resources.requests.memory) total.memory -= c.resources.requests.memory->toBytes();
  }
  return total;
}

std::string evictionMessage(const OptimisedPod& p, const std::string& node,
                            const recommend::Eviction& e, const recommend::NodePlan& plan) {
  const bool memory = e.shortage == recommend::Resource::kMemory;
  return "node " + node + " cannot hold its optimised pods' " + (memory ? "memory" : "cpu") +
         " (steady state plus the largest spike headroom above the " +
         (memory ? formatMemory(plan.availableMemory) + " of memory"
                 : formatCpu(plan.availableCpu) + " of cpu") +
         " the other pods leave); evicting " + p.pod->metadata.name + " (eviction ranking " +
         std::string(api::toString(p.ranking)) + ") so that it is recreated on a node with room";
}

}  // namespace

Result<api::EvictionRanking> evictionRanking(const api::ObjectMeta& workload,
                                             const api::AttunePolicy& policy, api::TargetKind kind,
                                             int replicas) {
  if (auto it = workload.annotations.find(kEvictionRankingAnnotation);
      it != workload.annotations.end()) {
    for (std::size_t i = 0; i < api::kEvictionRankingNames.size(); ++i) {
      if (api::kEvictionRankingNames[i] == it->second) return static_cast<api::EvictionRanking>(i);
    }
    return fail(ErrorCode::kInvalidArgument, std::string(kEvictionRankingAnnotation) + " on " +
                                                 workload.name + ": \"" + it->second +
                                                 "\" is not one of Low, Medium, High, NoEviction");
  }
  if (policy.spec.nodeOptimization && policy.spec.nodeOptimization->evictionRanking) {
    return *policy.spec.nodeOptimization->evictionRanking;
  }
  return recommend::defaultEvictionRanking(kind, replicas);
}

NodeOptimisation optimiseNodes(const NodeOptimisationInput& input) {
  NodeOptimisation out;
  // The optimised pods by node, and the keys of every optimised pod.
  std::map<std::string, std::vector<const OptimisedPod*>, std::less<>> byNode;
  std::set<std::string, std::less<>> optimisedKeys;
  for (const OptimisedPod& p : input.optimised) {
    byNode[p.pod->spec.nodeName].push_back(&p);
    optimisedKeys.insert(keyOf(*p.pod));
  }
  // What the other pods reserve on each node that has optimised pods.
  std::map<std::string, PodRequests, std::less<>> reserved;
  for (const api::Pod& pod : input.pods) {
    if (!holdsResources(pod) || !byNode.contains(pod.spec.nodeName)) continue;
    if (optimisedKeys.contains(keyOf(pod))) continue;
    const PodRequests r = podRequests(pod.spec);
    PodRequests& sum = reserved[pod.spec.nodeName];
    sum.cpu += r.cpu;
    sum.memory += r.memory;
  }
  std::map<std::string_view, const api::Node*> nodes;
  for (const api::Node& n : input.nodes) nodes.emplace(n.metadata.name, &n);

  const recommend::HeadroomPlanner planner;
  for (const auto& [nodeName, pods] : byNode) {
    auto node = nodes.find(nodeName);
    if (node == nodes.end()) continue;
    const api::ResourceList& alloc = node->second->status.allocatable;
    if (!alloc.cpu || !alloc.memory) continue;
    recommend::NodeCapacity capacity{.allocatableCpu = alloc.cpu->toMillicores(),
                                     .allocatableMemory = alloc.memory->toBytes(),
                                     .reservedCpu = reserved[nodeName].cpu,
                                     .reservedMemory = reserved[nodeName].memory};
    std::vector<recommend::PodDemand> demands;
    std::map<std::string, const OptimisedPod*, std::less<>> byKey;
    for (const OptimisedPod* p : pods) {
      const PodRequests unsized = unsizedRequests(*p);
      capacity.reservedCpu += unsized.cpu;
      capacity.reservedMemory += unsized.memory;
      recommend::PodDemand d{
          .name = keyOf(*p->pod),
          .workloadKind = p->workloadKind,
          .ranking = p->evictable ? p->ranking : api::EvictionRanking::kNoEviction,
          .containers = {}};
      for (const OptimisedContainer& c : p->containers) {
        d.containers.push_back({.name = c.name,
                                .cpuBase = c.demand.cpuBase,
                                .cpuHeadroom = c.demand.cpuHeadroom,
                                .memoryBase = c.demand.memoryBase,
                                .memoryHeadroom = c.demand.memoryHeadroom});
      }
      byKey.emplace(d.name, p);
      demands.push_back(std::move(d));
    }
    NodeSummary summary{.node = nodeName,
                        .pods = static_cast<int>(pods.size()),
                        .evicted = 0,
                        .plan = planner.plan(capacity, demands)};
    for (const recommend::Eviction& e : summary.plan.evictions) {
      const OptimisedPod& p = *byKey.at(e.pod);
      out.evictions.push_back(EvictAction{
          .workload = p.workload,
          .pod = p.pod->metadata.name,
          .podUid = p.pod->metadata.uid,
          .cause = std::string(e.shortage == recommend::Resource::kMemory ? kNodeMemoryCause
                                                                          : kNodeCpuCause),
          .container = "",
          .workloadAnnotations = {},
          .message = evictionMessage(p, nodeName, e, summary.plan)});
      ++summary.evicted;
    }
    for (const recommend::ContainerPlan& c : summary.plan.containers) {
      const OptimisedPod& p = *byKey.at(c.pod);
      const auto demand =
          std::find_if(p.containers.begin(), p.containers.end(),
                       [&](const OptimisedContainer& o) { return o.name == c.container; });
      const api::AttunePolicySpec& spec = p.policy->spec;
      api::ResourceValues target;
      target.cpuRequest = bounded(c.cpuRequest, spec.cpu);
      target.memoryRequest = bounded(c.memoryRequest, spec.memory);
      target.memoryLimit =
          std::max(bounded(demand->demand.memoryLimit, spec.memory), *target.memoryRequest);
      if (const api::Container* now = containerOf(*p.pod, c.container)) {
        const api::ResourceList& req = now->resources.requests;
        target.cpuRequest = sticky(*target.cpuRequest, req.cpu);
        target.memoryRequest = sticky(*target.memoryRequest, req.memory);
        // A node that still cannot hold its pods gets no increase it has no room for (the
        // kubelet would only defer it): decreases only.
        if (!summary.plan.cpuFits && req.cpu) {
          target.cpuRequest = std::min(*target.cpuRequest, req.cpu->toMillicores());
        }
        if (!summary.plan.memoryFits && req.memory) {
          target.memoryRequest = std::min(*target.memoryRequest, req.memory->toBytes());
        }
        target.memoryLimit = std::max(sticky(*target.memoryLimit, now->resources.limits.memory),
                                      *target.memoryRequest);
      }
      out.targets[c.pod][c.container] = target;
    }
    out.nodes.push_back(std::move(summary));
  }
  return out;
}

}  // namespace attune::rollout
