#include "controller/workload_recommendations.h"

#include <algorithm>

#include "api/policy/policy_defaults.h"
#include "core/units.h"
#include "rollout/freshness.h"
#include "safety/resize_record.h"

namespace attune::controller {
namespace {

template <typename Amount>
void raiseTo(std::optional<Amount>& target, const std::optional<Amount>& v) {
  if (v && (!target || *target < *v)) target = v;
}

}  // namespace

std::vector<RecommendedWorkload> recommendTargets(const std::vector<TargetWorkload>& targets,
                                                  const usage::UsageHistory& history,
                                                  const recommend::Strategy& strategy,
                                                  const api::AttunePolicy& policy, Time now,
                                                  RecommendationCache* cache) {
  std::vector<RecommendedWorkload> out;
  for (const TargetWorkload& target : targets) {
    if (target.pods.empty()) continue;
    RecommendedWorkload workload{.ref = target.ref, .containers = {}, .lastDataTime = std::nullopt};
    const auto& first = target.pods.front()->spec;
    const int containersInPod = static_cast<int>(std::max<std::size_t>(1, first.containers.size()));
    for (const api::Container& c : first.containers) {
      if (api::isExcludedContainer(policy, c.name)) continue;
      RecommendedContainer a{.name = c.name,
                             .current = {},
                             .recommendation = {},
                             .dataPoints = 0,
                             .explanationText = nullptr};
      for (const api::Pod* pod : target.pods) {
        if (const api::Container* pc = pod->spec.findContainer(c.name)) {
          const api::ResourceValues v = safety::resourceValuesOf(pc->resources);
          raiseTo(a.current.cpuRequest, v.cpuRequest);
          raiseTo(a.current.cpuLimit, v.cpuLimit);
          raiseTo(a.current.memoryRequest, v.memoryRequest);
          raiseTo(a.current.memoryLimit, v.memoryLimit);
        }
      }
      if (const usage::ContainerUsage* tracked = history.find(target.ref, c.name)) {
        const stats::ContainerStats& stats = tracked->stats();
        a.dataPoints = static_cast<std::int64_t>(stats.sampleCount());
        const std::optional<Time> last = stats.lastSampleTime();
        RecommendationCache::Entry* cached = cache ? &cache->at(target.ref, c.name) : nullptr;
        if (cached != nullptr && cached->samples == stats.sampleCount() &&
            cached->lastSample == last && cached->current == a.current && cached->samples > 0) {
          a.recommendation = cached->recommendation;
          a.explanationText = cached->explanationText;
        } else {
          a.recommendation = usage::recommendFor(strategy, *tracked,
                                                 {.now = now,
                                                  .current = a.current,
                                                  .policy = policy.spec,
                                                  .containersInPod = containersInPod});
          if (cached != nullptr) {
            // Kept as its text only: the steps are not copied at every pass that reuses it.
            a.explanationText =
                std::make_shared<const std::string>(recommend::explanationText(a.recommendation));
            a.recommendation.explanation.clear();
            *cached = {stats.sampleCount(), last, a.current, a.recommendation, a.explanationText};
          }
        }
        if (last && (!workload.lastDataTime || *workload.lastDataTime < *last)) {
          workload.lastDataTime = last;
        }
      } else {
        a.recommendation.reason = "no usage data yet";
      }
      workload.containers.push_back(std::move(a));
    }
    out.push_back(std::move(workload));
  }
  return out;
}

api::WorkloadRecommendation toStatus(const RecommendedWorkload& workload,
                                     const api::AttunePolicy& policy, Time now) {
  const int minimum =
      policy.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  api::WorkloadRecommendation w{.workload = workload.ref.name,
                                .kind = workload.ref.kind,
                                .containers = {},
                                .lastDataTime = workload.lastDataTime,
                                .stale = std::nullopt};
  // A recommendation whose newest sample is past the freshness bound is not applied.
  if (workload.lastDataTime) {
    w.stale = rollout::staleness(workload.lastDataTime, now,
                                 rollout::freshnessBound(policy.spec.metricsSource))
                  .has_value();
  }
  for (const RecommendedContainer& a : workload.containers) {
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
      c.rationale =
          a.explanationText ? *a.explanationText : recommend::explanationText(a.recommendation);
    } else {
      c.rationale = a.recommendation.reason;
    }
    w.containers.push_back(std::move(c));
  }
  return w;
}

}  // namespace attune::controller
