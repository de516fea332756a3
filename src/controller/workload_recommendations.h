// Recommendations for the containers of a policy's target workloads, from the tracked usage
// statistics and one strategy, and their form in the policy status.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "api/policy/attune_policy.h"
#include "controller/target_resolution.h"
#include "core/time.h"
#include "recommend/recommendation.h"
#include "recommend/strategy.h"
#include "usage/usage_history.h"

namespace attune::controller {

// One container of a target workload: what it asks for now and what the strategy recommends.
struct RecommendedContainer {
  std::string name;
  // The largest requests and limits among the workload's pods (what the workload asks for now).
  api::ResourceValues current;
  // enoughData false (with a reason) below minimumDataPoints or without statistics.
  recommend::Recommendation recommendation;
  std::int64_t dataPoints = 0;
  // The explanation as text (recommend::explanationText), when recommendTargets went through a
  // RecommendationCache: made once for every pass that reuses the recommendation, whose
  // explanation steps are then left empty. Null without a cache (the steps are there).
  std::shared_ptr<const std::string> explanationText;
};

// The recommendations for the containers of one target workload.
struct RecommendedWorkload {
  api::WorkloadRef ref;
  std::vector<RecommendedContainer>
      containers;                    // spec order of the first pod; excluded ones left out
  std::optional<Time> lastDataTime;  // the latest sample of any of its containers
};

// Recommendations computed earlier, reused while a container's statistics and current values
// have not changed (a strategy's answer is a function of them): a controller reconciling every
// minute with a query step of several minutes recomputes only when new samples arrived.
class RecommendationCache {
 public:
  struct Entry {
    std::uint64_t samples = 0;
    std::optional<Time> lastSample;
    api::ResourceValues current;
    recommend::Recommendation recommendation;            // without its explanation steps
    std::shared_ptr<const std::string> explanationText;  // of the recommendation's steps
  };
  // The entry of a container of a workload, created empty.
  Entry& at(const api::WorkloadRef& workload, const std::string& container) {
    return entries_[{workload, container}];
  }

 private:
  std::map<std::pair<api::WorkloadRef, std::string>, Entry> entries_;
};

// The recommendations for each target with at least one running pod, in target order, from
// the usage `history` keeps. Containers the policy excludes (isExcludedContainer) are left
// out. Pure apart from reading `history` and using `cache` (may be null) for recommendations
// whose inputs did not change.
std::vector<RecommendedWorkload> recommendTargets(const std::vector<TargetWorkload>& targets,
                                                  const usage::UsageHistory& history,
                                                  const recommend::Strategy& strategy,
                                                  const api::AttunePolicy& policy, Time now,
                                                  RecommendationCache* cache = nullptr);

// The status form: current and recommended values (only when there is enough data), data
// points, confidence (data points / minimumDataPoints, at most 1), the rationale (the
// explanation, or why there is no recommendation), lastUpdated = now.
api::WorkloadRecommendation toStatus(const RecommendedWorkload& workload,
                                     const api::AttunePolicy& policy, Time now);

}  // namespace attune::controller
