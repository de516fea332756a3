#include "controller/recommender.h"

#include <algorithm>

#include "api/policy/policy_defaults.h"
#include "core/units.h"
#include "safety/resize_record.h"

namespace attune::controller {
namespace {

template <typename Amount>
void raiseTo(std::optional<Amount>& target, const std::optional<Amount>& v) {
  if (v && (!target || *target < *v)) target = v;
}

}  // namespace

std::vector<WorkloadAdvice> adviseTargets(const std::vector<TargetWorkload>& targets,
                                          const UsageTracker& tracker,
                                          const recommend::Strategy& strategy,
                                          const api::AttunePolicy& policy, Time now,
                                          AdviceCache* cache) {
  std::vector<WorkloadAdvice> out;
  for (const TargetWorkload& target : targets) {
    if (target.pods.empty()) continue;
    WorkloadAdvice advice{.ref = target.ref, .containers = {}, .lastDataTime = std::nullopt};
    const auto& first = target.pods.front()->spec;
    const int containersInPod = static_cast<int>(std::max<std::size_t>(1, first.containers.size()));
    for (const api::Container& c : first.containers) {
      if (api::isExcludedContainer(policy, c.name)) continue;
      ContainerAdvice a{.name = c.name, .current = {}, .recommendation = {}, .dataPoints = 0};
      for (const api::Pod* pod : target.pods) {
        if (const api::Container* pc = pod->spec.findContainer(c.name)) {
          const api::ResourceValues v = safety::resourceValuesOf(pc->resources);
          raiseTo(a.current.cpuRequest, v.cpuRequest);
          raiseTo(a.current.cpuLimit, v.cpuLimit);
          raiseTo(a.current.memoryRequest, v.memoryRequest);
          raiseTo(a.current.memoryLimit, v.memoryLimit);
        }
      }
      if (const TrackedContainer* tracked = tracker.find(target.ref, c.name)) {
        a.dataPoints = static_cast<std::int64_t>(tracked->stats.sampleCount());
        const std::optional<Time> last = tracked->stats.lastSampleTime();
        AdviceCache::Entry* cached = cache ? &cache->at(target.ref, c.name) : nullptr;
        if (cached != nullptr && cached->samples == tracked->stats.sampleCount() &&
            cached->lastSample == last && cached->current == a.current && cached->samples > 0) {
          a.recommendation = cached->recommendation;
        } else {
          const recommend::StrategyInput input{.stats = tracked->stats,
                                               .now = now,
                                               .current = a.current,
                                               .policy = policy.spec,
                                               .containersInPod = containersInPod,
                                               .vpa = &tracked->vpa};
          a.recommendation = strategy.recommend(input);
          if (cached != nullptr) {
            *cached = {tracked->stats.sampleCount(), last, a.current, a.recommendation};
          }
        }
        if (auto last = tracked->stats.lastSampleTime()) {
          if (!advice.lastDataTime || *advice.lastDataTime < *last) advice.lastDataTime = last;
        }
      } else {
        a.recommendation.reason = "no usage data yet";
      }
      advice.containers.push_back(std::move(a));
    }
    out.push_back(std::move(advice));
  }
  return out;
}

api::WorkloadRecommendation toStatus(const WorkloadAdvice& advice, const api::AttunePolicy& policy,
                                     Time now) {
  const int minimum =
      policy.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  api::WorkloadRecommendation w{.workload = advice.ref.name,
                                .kind = advice.ref.kind,
                                .containers = {},
                                .lastDataTime = advice.lastDataTime,
                                .stale = std::nullopt};
  for (const ContainerAdvice& a : advice.containers) {
    api::ContainerRecommendation c{.name = a.name,
                                   .current = a.current,
                                   .recommended = {},
                                   .confidence = std::nullopt,
                                   .dataPoints = static_cast<int>(a.dataPoints),
                                   .lastUpdated = now,
                                   .rationale = {}};
    c.confidence =
        minimum <= 0
            ? 1.0
            : std::min(1.0, static_cast<double>(a.dataPoints) / static_cast<double>(minimum));
    if (a.recommendation.enoughData) {
      c.recommended = a.recommendation.resources;
      c.rationale = recommend::explanationText(a.recommendation);
    } else {
      c.rationale = a.recommendation.reason;
    }
    w.containers.push_back(std::move(c));
  }
  return w;
}

}  // namespace attune::controller
