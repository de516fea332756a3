#include "controller/node_optimiser.h"

#include <algorithm>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "controller/policy_pass.h"
#include "rollout/oom_recovery.h"
#include "rollout/prechecks.h"
#include "safety/resize_record.h"

namespace attune::controller {
namespace {

constexpr std::int64_t kMemoryLimitFactor = 2;

// Whether `pod` has run long enough to be evicted: its replacement would otherwise be judged on
// the same workload statistics moments later, and a node that cannot hold a workload would evict
// pod after pod of it.
bool oldEnoughToEvict(const api::Pod& pod, Time now) {
  const std::optional<Time> started =
      pod.status.startTime ? pod.status.startTime : pod.metadata.creationTimestamp;
  return started && now - *started >= kMinimumPodAgeToEvict;
}

// The containers of `pod` the pass sizes, each with its demand; nullopt when one lacks it.
std::optional<std::vector<rollout::OptimisedContainer>> demandsOf(const PolicyPass& pass,
                                                                  const TargetWorkload& target,
                                                                  const api::Pod& pod) {
  const api::AttunePolicy& policy = pass.policy();
  const int minimum =
      policy.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  const RecommendedWorkload* recommended = nullptr;
  for (const RecommendedWorkload& r : pass.recommended()) {
    if (r.ref == target.ref) recommended = &r;
  }
  if (recommended == nullptr) return std::nullopt;
  std::vector<rollout::OptimisedContainer> out;
  for (const api::Container& c : pod.spec.containers) {
    if (api::isExcludedContainer(policy, c.name)) continue;
    const auto rc = std::find_if(recommended->containers.begin(), recommended->containers.end(),
                                 [&](const RecommendedContainer& r) { return r.name == c.name; });
    if (rc == recommended->containers.end() || rc->dataPoints < minimum) return std::nullopt;
    const usage::ContainerUsage* tracked = pass.usage().find(target.ref, c.name);
    if (tracked == nullptr) return std::nullopt;
    auto demand = recommend::cruisekubeDemand(tracked->stats(), pass.now());
    if (!demand) return std::nullopt;
    const Bytes oom = rollout::recordedOomMemory(target.metadata->annotations, c.name);
    demand->memoryLimit = std::max(demand->memoryLimit, Bytes(kMemoryLimitFactor * oom.value()));
    out.push_back({.name = c.name, .demand = *demand});
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

rollout::NodeOptimisation optimiseNodes(const ClusterSnapshot& snapshot,
                                        std::span<const PolicyPass* const> passes) {
  rollout::NodeOptimisationInput input{
      .nodes = snapshot.nodes(), .pods = snapshot.pods(), .optimised = {}};
  for (const PolicyPass* pass : passes) {
    if (!pass->nodeOptimised() || !pass->sizesPods()) continue;
    const api::AttunePolicy& policy = pass->policy();
    const api::TargetKind kind = policy.spec.targetRef.kind.value_or(api::TargetKind::kDeployment);
    for (const TargetWorkload& target : pass->targets()) {
      if (target.metadata == nullptr || rollout::optedOut(*target.metadata)) continue;
      const auto ranking =
          rollout::evictionRanking(*target.metadata, policy, kind, target.replicas);
      for (const api::Pod* pod : target.pods) {
        if (rollout::optedOut(pod->metadata) || pod->metadata.deletionTimestamp ||
            pod->spec.nodeName.empty()) {
          continue;
        }
        auto containers = demandsOf(*pass, target, *pod);
        if (!containers) continue;
        input.optimised.push_back({.pod = pod,
                                   .workload = target.ref,
                                   .workloadKind = kind,
                                   .ranking = ranking.value_or(api::EvictionRanking::kNoEviction),
                                   .evictable = ranking.has_value() &&
                                                !safety::hasResizeRecord(*pod) &&
                                                oldEnoughToEvict(*pod, pass->now()),
                                   .containers = std::move(*containers),
                                   .policy = &policy});
      }
    }
  }
  return rollout::optimiseNodes(input);
}

}  // namespace attune::controller
