#include "controller/policy_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "api/policy/policy_defaults.h"
#include "core/quantity.h"
#include "safety/conditions.h"

namespace attune::controller {
namespace {

bool observing(const api::AttunePolicy& policy) {
  return policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode) ==
         api::UpdateMode::kObserve;
}

}  // namespace

api::PolicyWorkloadCounts summarizeWorkloads(const api::AttunePolicyStatus& status,
                                             const api::AttunePolicy& policy,
                                             const std::vector<RecommendedWorkload>& recommended,
                                             std::size_t targets) {
  int withRecommendations = 0;
  std::int64_t mostPoints = 0;
  std::set<std::string> advised;
  for (const RecommendedWorkload& a : recommended) {
    bool any = false;
    for (const RecommendedContainer& c : a.containers) {
      any = any || c.recommendation.enoughData;
      mostPoints = std::max(mostPoints, c.dataPoints);
    }
    if (any && !observing(policy)) {
      ++withRecommendations;
      advised.insert(a.ref.name);
    }
  }
  // A workload counts as resized when its latest resize in the history was applied.
  std::map<std::string, api::ResizeResult> latest;
  for (const api::ResizeHistoryEntry& e : status.resizeHistory) {
    if (safety::isResizeOperation(e) && e.result && !e.workload.empty()) {
      latest[e.workload] = *e.result;
    }
  }
  int resized = 0;
  int pending = 0;
  for (const std::string& name : advised) {
    auto it = latest.find(name);
    if (it != latest.end() &&
        (it->second == api::ResizeResult::kApplied || it->second == api::ResizeResult::kSuccess)) {
      ++resized;
    } else {
      ++pending;
    }
  }
  return api::PolicyWorkloadCounts{
      .discovered = static_cast<int>(targets),
      .withRecommendations = withRecommendations,
      .resized = resized,
      .pending = pending,
      .dataPointsCollected = static_cast<int>(std::min<std::int64_t>(mostPoints, INT32_MAX)),
      .dataPointsRequired =
          policy.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints)};
}

api::SavingsStatus summarizeSavings(const std::vector<RecommendedWorkload>& recommended,
                                    const std::map<api::WorkloadRef, std::size_t>& replicas) {
  Millicores cpuTotal{0}, cpuDown{0}, cpuUp{0};
  Bytes memoryTotal{0}, memoryDown{0}, memoryUp{0};
  for (const RecommendedWorkload& a : recommended) {
    auto running = replicas.find(a.ref);
    const std::int64_t pods =
        running == replicas.end() ? 0 : static_cast<std::int64_t>(running->second);
    for (const RecommendedContainer& c : a.containers) {
      const auto& r = c.recommendation.resources;
      const bool advised = c.recommendation.enoughData;
      if (c.current.cpuRequest) {
        const Millicores now = *c.current.cpuRequest;
        cpuTotal += Millicores(now.value() * pods);
        if (advised && r.cpuRequest) {
          const std::int64_t delta = (r.cpuRequest->value() - now.value()) * pods;
          (delta < 0 ? cpuDown : cpuUp) += Millicores(delta < 0 ? -delta : delta);
        }
      }
      if (c.current.memoryRequest) {
        const Bytes now = *c.current.memoryRequest;
        memoryTotal += Bytes(now.value() * pods);
        if (advised && r.memoryRequest) {
          const std::int64_t delta = (r.memoryRequest->value() - now.value()) * pods;
          (delta < 0 ? memoryDown : memoryUp) += Bytes(delta < 0 ? -delta : delta);
        }
      }
    }
  }
  return api::SavingsStatus{
      .cpuRequestTotal = formatCpu(cpuTotal),
      .cpuRequestReduction = formatCpu(cpuDown),
      .cpuRequestIncrease = cpuUp.value() > 0 ? formatCpu(cpuUp) : std::string(),
      .memoryRequestTotal = formatMemory(memoryTotal),
      .memoryRequestReduction = formatMemory(memoryDown),
      .memoryRequestIncrease = memoryUp.value() > 0 ? formatMemory(memoryUp) : std::string()};
}

void publishRecommendations(const std::vector<RecommendedWorkload>& recommended,
                            const std::map<api::WorkloadRef, std::size_t>& replicas,
                            const api::AttunePolicy& policy, Time now, OperatorMetrics& metrics,
                            api::AttunePolicyStatus& status) {
  status.recommendations.clear();
  status.savings.reset();
  if (observing(policy)) return;  // Observe tracks data points only; no recommendations
  status.savings = summarizeSavings(recommended, replicas);
  for (const RecommendedWorkload& a : recommended) {
    status.recommendations.push_back(toStatus(a, policy, now));
    double cpuSaved = 0;
    double memorySaved = 0;
    auto running = replicas.find(a.ref);
    const double pods = running == replicas.end() ? 0.0 : static_cast<double>(running->second);
    for (const RecommendedContainer& c : a.containers) {
      const std::vector<std::string> labels{a.ref.ns, a.ref.name, c.name};
      const auto& r = c.recommendation.resources;
      if (!c.recommendation.enoughData) continue;
      if (r.cpuRequest) {
        metrics.recommendationCpu.set(labels, toCores(*r.cpuRequest));
        if (c.current.cpuRequest) {
          cpuSaved += toCores(*c.current.cpuRequest) - toCores(*r.cpuRequest);
        }
      }
      if (r.memoryRequest) {
        metrics.recommendationMemory.set(labels, static_cast<double>(r.memoryRequest->value()));
        if (c.current.memoryRequest) {
          memorySaved +=
              static_cast<double>(c.current.memoryRequest->value() - r.memoryRequest->value());
        }
      }
    }
    metrics.savingsCpu.set({a.ref.ns, a.ref.name}, cpuSaved * pods);
    metrics.savingsMemory.set({a.ref.ns, a.ref.name}, memorySaved * pods);
  }
}

void settleStatus(api::AttunePolicyStatus& status, const api::AttunePolicy& stored,
                  const api::AttunePolicy& policy,
                  const std::vector<RecommendedWorkload>& recommended, const PassOutcome& outcome,
                  Time now) {
  const std::int64_t generation = stored.metadata.generation;
  // Ready: whether the policy could be evaluated this pass, and its data-point progress.
  const int minimum =
      policy.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  std::int64_t fewest = -1;
  int containers = 0;
  for (const RecommendedWorkload& a : recommended) {
    for (const RecommendedContainer& c : a.containers) {
      fewest = fewest < 0 ? c.dataPoints : std::min(fewest, c.dataPoints);
      ++containers;
    }
  }
  api::Condition ready{.type = std::string(api::kConditionReady),
                       .status = "True",
                       .reason = "Reconciled",
                       .message = {},
                       .lastTransitionTime = std::nullopt,
                       .observedGeneration = generation};
  if (outcome.metricsError) {
    ready.status = "False";
    ready.reason = "MetricsUnavailable";
    ready.message = "no resize while metrics are unavailable: " + *outcome.metricsError;
  } else if (outcome.targets == 0) {
    ready.status = "False";
    ready.reason = "NoTargets";
    ready.message = "spec.targetRef matches no workload";
  } else if (fewest >= 0 && fewest < minimum) {
    ready.reason = "CollectingData";
    ready.message = fmt::format("{} of {} data points (fewest over {} containers)", fewest, minimum,
                                containers);
  } else if (observing(policy) && fewest >= 0) {
    // Observe has no recommendations in the status: the condition is where progress shows.
    ready.message = fmt::format(
        "{} data points (fewest over {} containers, {} needed); Observe writes no recommendations",
        fewest, containers, minimum);
  } else {
    ready.message = fmt::format("{} workloads, {} containers", outcome.targets, containers);
  }
  safety::setCondition(status.conditions, ready, now);
  safety::updateDegradedCondition(status.conditions, status.resizeHistory, now, generation);
  if (outcome.resizeBlocked) {
    api::Condition blocked = *outcome.resizeBlocked;
    blocked.observedGeneration = generation;
    safety::setCondition(status.conditions, blocked, now);
  } else {
    safety::removeCondition(status.conditions, api::kConditionResizeBlocked);
  }
  status.observedGeneration = generation;
  status.lastReconcileTime = now;
  status.workloads = summarizeWorkloads(status, policy, recommended, outcome.targets);
  int reverts = 0;
  for (auto it = status.resizeHistory.rbegin(); it != status.resizeHistory.rend(); ++it) {
    if (!safety::isResizeOperation(*it)) continue;
    if (it->result != api::ResizeResult::kReverted) break;
    ++reverts;
  }
  status.consecutiveReverts = reverts;
}

void writeStatus(api::ClusterApi& api, const api::AttunePolicy& stored,
                 const api::AttunePolicyStatus& status) {
  if (status == stored.status) return;
  api::AttunePolicy update = stored;
  update.status = status;
  auto written = api.updateAttunePolicyStatus(update);
  if (!written && written.error().code == ErrorCode::kConflict) {
    // Someone else wrote the policy since it was read: the status is ours alone, so write it
    // over the latest version.
    if (auto latest = api.getAttunePolicy(stored.metadata.namespace_, stored.metadata.name)) {
      latest->status = status;
      (void)api.updateAttunePolicyStatus(*latest);
    }
  }
}

}  // namespace attune::controller
