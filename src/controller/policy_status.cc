#include "controller/policy_status.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "core/quantity.h"
#include "rollout/resize_schedule.h"
#include "safety/conditions.h"
#include "safety/cooldown.h"

namespace attune::controller {
namespace {

bool observing(const api::AttunePolicy& policy) {
  return policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode) ==
         api::UpdateMode::kObserve;
}

// True when the policy's mode resizes pods (OneShot, Canary, Auto).
bool resizing(const api::AttunePolicy& policy) {
  const api::UpdateMode mode = policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode);
  return mode != api::UpdateMode::kObserve && mode != api::UpdateMode::kRecommend;
}

}  // namespace

api::PolicyWorkloadCounts summarizeWorkloads(const api::AttunePolicyStatus& status,
                                             const api::AttunePolicy& policy,
                                             const std::vector<RecommendedWorkload>& recommended,
                                             std::size_t targets) {
  const bool recommends = !observing(policy);  // Observe writes no recommendations
  int withRecommendations = 0;
  std::int64_t mostPoints = 0;
  std::set<std::string> advised;
  for (const RecommendedWorkload& a : recommended) {
    bool any = false;
    for (const RecommendedContainer& c : a.containers) {
      any = any || c.recommendation.enoughData;
      mostPoints = std::max(mostPoints, c.dataPoints);
    }
    if (any && recommends) {
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

namespace {

// One resource's requests over running pods: the total now, and how much the advice takes off
// or adds.
template <typename Amount>
struct RequestSums {
  Amount total{0};
  Amount reduction{0};
  Amount increase{0};

  void add(const std::optional<Amount>& now, const std::optional<Amount>& advised,
           std::int64_t pods) {
    if (!now) return;
    total += Amount(now->value() * pods);
    if (!advised) return;
    const std::int64_t delta = (advised->value() - now->value()) * pods;
    (delta < 0 ? reduction : increase) += Amount(delta < 0 ? -delta : delta);
  }
};

}  // namespace

api::SavingsStatus summarizeSavings(const std::vector<RecommendedWorkload>& recommended,
                                    const std::map<api::WorkloadRef, std::size_t>& replicas) {
  RequestSums<Millicores> cpu;
  RequestSums<Bytes> memory;
  for (const RecommendedWorkload& a : recommended) {
    auto running = replicas.find(a.ref);
    const std::int64_t pods =
        running == replicas.end() ? 0 : static_cast<std::int64_t>(running->second);
    for (const RecommendedContainer& c : a.containers) {
      const bool advised = c.recommendation.enoughData;
      const auto& r = c.recommendation.resources;
      cpu.add(c.current.cpuRequest, advised ? r.cpuRequest : std::nullopt, pods);
      memory.add(c.current.memoryRequest, advised ? r.memoryRequest : std::nullopt, pods);
    }
  }
  return api::SavingsStatus{
      .cpuRequestTotal = formatCpu(cpu.total),
      .cpuRequestReduction = formatCpu(cpu.reduction),
      .cpuRequestIncrease = cpu.increase.value() > 0 ? formatCpu(cpu.increase) : std::string(),
      .memoryRequestTotal = formatMemory(memory.total),
      .memoryRequestReduction = formatMemory(memory.reduction),
      .memoryRequestIncrease =
          memory.increase.value() > 0 ? formatMemory(memory.increase) : std::string(),
      .reclaimedCpuRequest = formatCpu(cpu.reduction),
      .reclaimedMemoryRequest = formatMemory(memory.reduction)};
}

void publishRecommendations(const std::vector<RecommendedWorkload>& recommended,
                            const std::map<api::WorkloadRef, std::size_t>& replicas,
                            const api::AttunePolicy& policy, Time now, OperatorMetrics& metrics,
                            api::AttunePolicyStatus& status) {
  status.recommendations.clear();
  status.savings.reset();
  if (observing(policy)) {  // Observe tracks data points only; no recommendations
    metrics.forgetPolicy(policy.metadata.namespace_, policy.metadata.name);
    return;
  }
  status.savings = summarizeSavings(recommended, replicas);
  const std::vector<std::string> policyLabels{policy.metadata.namespace_, policy.metadata.name};
  if (auto cpu = parseCpu(status.savings->cpuRequestReduction)) {
    metrics.reclaimedCpu.set(policyLabels, toCores(*cpu));
  }
  if (auto memory = parseMemory(status.savings->memoryRequestReduction)) {
    metrics.reclaimedMemory.set(policyLabels, static_cast<double>(memory->value()));
  }
  std::set<std::string> namespaces;  // whose savings sums are published, once each
  OperatorMetrics::Published published;
  published.workloads.reserve(recommended.size());
  for (const RecommendedWorkload& a : recommended) {
    if (resizing(policy) && metrics.firstResizeSeries(a.ref.ns, a.ref.name)) {
      // The workload's resize series exist at 0 from its first pass under a resizing mode, so
      // that increase() in the alerts sees its first success, failure or revert (a series that
      // appears at 1 has no increase to see).
      for (const char* resource : {"cpu", "memory"}) {
        for (const char* result : {"success", "failed", "reverted"}) {
          metrics.resizes.inc({a.ref.ns, a.ref.name, resource, result}, 0);
        }
      }
    }
    status.recommendations.push_back(toStatus(a, policy, now));
    double cpuSaved = 0;
    double memorySaved = 0;
    auto running = replicas.find(a.ref);
    const double pods = running == replicas.end() ? 0.0 : static_cast<double>(running->second);
    for (const RecommendedContainer& c : a.containers) {
      const std::vector<std::string> labels{a.ref.ns, a.ref.name, c.name};
      const auto& r = c.recommendation.resources;
      if (!c.recommendation.enoughData) continue;
      published.containers.push_back({a.ref.ns, a.ref.name, c.name});
      for (const api::ContainerRecommendation& written : status.recommendations.back().containers) {
        if (written.name == c.name && written.confidence) {
          metrics.confidence.set(labels, *written.confidence);
        }
      }
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
    metrics.recordWorkloadSavings(a.ref.ns, a.ref.name, cpuSaved * pods, memorySaved * pods);
    published.workloads.emplace_back(a.ref.ns, a.ref.name);
    namespaces.insert(a.ref.ns);
  }
  for (const std::string& ns : namespaces) metrics.publishSavings(ns);
  // What it published in its last pass and no longer does is withdrawn.
  metrics.published(namespacedKey(policy.metadata), std::move(published));
}

std::optional<api::CanaryStatus> summarizeCanary(
    const std::optional<api::CanaryStatus>& previous,
    const std::vector<rollout::CanaryProgress>& progress, const api::AttunePolicy& policy,
    const std::vector<RecommendedWorkload>& recommended, std::int64_t generation, Time now) {
  if (policy.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode) !=
      api::UpdateMode::kCanary) {
    return std::nullopt;
  }
  // The previous cycle's entries, unless the spec changed since it started.
  std::map<std::string, api::CanaryWorkloadStatus> before;
  const bool sameCycle = previous && previous->observedGeneration == generation;
  if (sameCycle) {
    for (const api::CanaryWorkloadStatus& w : previous->workloads) before[w.workload] = w;
  }
  std::map<std::string, api::CanaryWorkloadStatus> after;
  for (const rollout::CanaryProgress& p : progress) {
    api::CanaryWorkloadStatus w{.workload = p.workload.name,
                                .phase = std::string(p.phase == rollout::CanaryPhase::kInProgress
                                                         ? api::kCanaryPhaseInProgress
                                                         : api::kCanaryPhaseFullRollout),
                                .pods = p.pods,
                                .startTime = std::nullopt};
    auto it = before.find(w.workload);
    if (it != before.end()) {
      w.startTime = it->second.startTime;
      if (w.pods.empty()) w.pods = it->second.pods;  // FullRollout: the canaries were these
    }
    if (!w.startTime && !w.pods.empty()) w.startTime = now;
    after[w.workload] = std::move(w);
  }
  for (const RecommendedWorkload& a : recommended) {
    auto it = before.find(a.ref.name);
    if (it != before.end() && !after.contains(a.ref.name)) after[a.ref.name] = it->second;
  }
  if (after.empty()) return std::nullopt;
  api::CanaryStatus status{.phase = std::string(api::kCanaryPhaseFullRollout),
                           .pods = {},
                           .startTime = std::nullopt,
                           .observedGeneration = generation,
                           .workloads = {}};
  constexpr std::size_t kMaxPods = 100;  // the public CRD's maxItems
  for (auto& [name, w] : after) {
    if (w.phase == api::kCanaryPhaseInProgress) status.phase = api::kCanaryPhaseInProgress;
    for (const std::string& pod : w.pods) {
      if (status.pods.size() < kMaxPods) status.pods.push_back(pod);
    }
    if (w.startTime && (!status.startTime || *w.startTime < *status.startTime)) {
      status.startTime = w.startTime;
    }
    status.workloads.push_back(std::move(w));
  }
  return status;
}

api::CooldownStatus summarizeCooldown(const api::AttunePolicy& policy, int consecutiveReverts) {
  const Duration base = policy.spec.updateStrategy.cooldown.value_or(api::kDefaultCooldown);
  return api::CooldownStatus{
      .backoffMultiplier = safety::cooldownMultiplier(consecutiveReverts),
      .consecutiveReverts = consecutiveReverts,
      .effectiveCooldown = formatDuration(safety::effectiveCooldown(base, consecutiveReverts))};
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
                       .reason = std::string(api::kReasonMonitoring),
                       .message = {},
                       .lastTransitionTime = std::nullopt,
                       .observedGeneration = generation};
  const auto notReady = [&](std::string_view reason, std::string message) {
    ready.status = "False";
    ready.reason = std::string(reason);
    ready.message = std::move(message);
  };
  if (policy.spec.paused.value_or(false)) {
    notReady(api::kReasonPaused,
             "spec.paused is true: recommendations are kept up to date, no pod is resized");
  } else if (outcome.metricsError) {
    notReady(api::kReasonPrometheusUnavailable,
             "no resize while metrics are unavailable: " + *outcome.metricsError);
  } else if (outcome.targets == 0) {
    notReady(api::kReasonNoWorkloadsFound, "spec.targetRef matches no workload");
  } else if (fewest >= 0 && fewest < minimum) {
    ready.status = "False";
    ready.reason = std::string(api::kReasonInsufficientData);
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
  api::Condition resizing{.type = std::string(api::kConditionResizing),
                          .status = "False",
                          .reason = std::string(api::kReasonIdle),
                          .message = "no resize in progress",
                          .lastTransitionTime = std::nullopt,
                          .observedGeneration = generation};
  if (outcome.resizing > 0) {
    resizing.status = "True";
    resizing.reason = std::string(api::kReasonInProgress);
    resizing.message =
        fmt::format("{} pod(s) resized this pass or under observation", outcome.resizing);
  } else if (outcome.coolingDown) {
    resizing.reason = std::string(api::kReasonCooldownActive);
    resizing.message = "a target workload waits for its cooldown";
  }
  safety::setCondition(status.conditions, resizing, now);
  safety::updateDegradedCondition(status.conditions, status.resizeHistory, now, generation);
  if (outcome.resizeBlocked) {
    api::Condition blocked = *outcome.resizeBlocked;
    blocked.observedGeneration = generation;
    safety::setCondition(status.conditions, blocked, now);
  } else {
    safety::removeCondition(status.conditions, api::kConditionResizeBlocked);
  }
  if (outcome.scheduleBlocked) {
    api::Condition blocked = *outcome.scheduleBlocked;
    blocked.observedGeneration = generation;
    safety::setCondition(status.conditions, blocked, now);
  } else {
    safety::removeCondition(status.conditions, rollout::kConditionScheduleBlocked);
  }
  status.observedGeneration = generation;
  status.lastReconcileTime = now;
  status.workloads = summarizeWorkloads(status, policy, recommended, outcome.targets);
  status.canary =
      summarizeCanary(stored.status.canary, outcome.canaries, policy, recommended, generation, now);
  status.cooldown = summarizeCooldown(policy, outcome.consecutiveReverts);
  int reverts = 0;
  for (auto it = status.resizeHistory.rbegin(); it != status.resizeHistory.rend(); ++it) {
    if (!safety::isResizeOperation(*it)) continue;
    if (it->result != api::ResizeResult::kReverted) break;
    ++reverts;
  }
  status.consecutiveReverts = reverts;
}

namespace {

// What moves with every pass while nothing is decided differently: the reconcile time, the
// sample counts and newest sample time, the confidence that grows with them, the explanation
// that cites them and when it was made. Kept per workload and container, in order.
struct StatusProgress {
  struct Container {
    std::optional<int> dataPoints;
    std::optional<Time> lastUpdated;
    std::optional<double> confidence;
    std::string rationale;
  };
  std::optional<Time> lastReconcileTime;
  std::optional<int> dataPointsCollected;
  std::vector<std::optional<Time>> lastDataTime;  // per workload
  std::vector<Container> containers;              // per container of every workload
};

// Whether two statuses have the same workloads and containers, so that their progress can be
// exchanged.
bool sameShape(const api::AttunePolicyStatus& a, const api::AttunePolicyStatus& b) {
  if (a.workloads.has_value() != b.workloads.has_value()) return false;
  if (a.recommendations.size() != b.recommendations.size()) return false;
  for (std::size_t w = 0; w < a.recommendations.size(); ++w) {
    if (a.recommendations[w].containers.size() != b.recommendations[w].containers.size()) {
      return false;
    }
  }
  return true;
}

StatusProgress progressOf(const api::AttunePolicyStatus& status) {
  StatusProgress p{.lastReconcileTime = status.lastReconcileTime,
                   .dataPointsCollected = std::nullopt,
                   .lastDataTime = {},
                   .containers = {}};
  if (status.workloads) p.dataPointsCollected = status.workloads->dataPointsCollected;
  for (const api::WorkloadRecommendation& w : status.recommendations) {
    p.lastDataTime.push_back(w.lastDataTime);
    for (const api::ContainerRecommendation& c : w.containers) {
      p.containers.push_back({c.dataPoints, c.lastUpdated, c.confidence, c.rationale});
    }
  }
  return p;
}

// Sets the progress of a status of the shape it was taken from.
void setProgress(api::AttunePolicyStatus& status, StatusProgress p) {
  status.lastReconcileTime = p.lastReconcileTime;
  if (status.workloads) status.workloads->dataPointsCollected = p.dataPointsCollected;
  std::size_t next = 0;
  for (std::size_t w = 0; w < status.recommendations.size(); ++w) {
    status.recommendations[w].lastDataTime = p.lastDataTime[w];
    for (api::ContainerRecommendation& c : status.recommendations[w].containers) {
      StatusProgress::Container& from = p.containers[next++];
      c.dataPoints = from.dataPoints;
      c.lastUpdated = from.lastUpdated;
      c.confidence = from.confidence;
      c.rationale = std::move(from.rationale);
    }
  }
}

// Whether `status` differs from `stored` only in what a pass found, not in anything it did: in
// its recommendations, savings, workload counts and progress, and by Skipped history entries
// newer than every stored entry, added at the end of the history (as many of the oldest dropped
// as its limit needs). Anything else (a resize, revert or failure recorded; a condition, the
// cooldown, the canary, the resize time or the generation changed; a field added later) is
// something the pass did.
bool nothingDone(api::AttunePolicyStatus& status, const api::AttunePolicyStatus& stored) {
  const std::vector<api::ResizeHistoryEntry>& history = status.resizeHistory;
  const std::vector<api::ResizeHistoryEntry>& before = stored.resizeHistory;
  const std::optional<Time> newest = before.empty() ? std::nullopt : before.back().timestamp;
  std::size_t kept = history.size();
  for (; kept > 0; --kept) {
    const api::ResizeHistoryEntry& entry = history[kept - 1];
    if (entry.result != api::ResizeResult::kSkipped || !entry.timestamp) break;
    if (!before.empty() && (!newest || *entry.timestamp <= *newest)) break;
  }
  if (kept > before.size() ||
      !std::equal(history.begin(), history.begin() + static_cast<std::ptrdiff_t>(kept),
                  before.end() - static_cast<std::ptrdiff_t>(kept))) {
    return false;
  }
  // The rest compared with what a pass finds taken from the stored status, then put back.
  api::AttunePolicyStatus found{.recommendations = stored.recommendations,
                                .resizeHistory = before,
                                .workloads = stored.workloads,
                                .savings = stored.savings,
                                .lastReconcileTime = stored.lastReconcileTime};
  const auto exchange = [&] {
    std::swap(status.recommendations, found.recommendations);
    std::swap(status.resizeHistory, found.resizeHistory);
    std::swap(status.workloads, found.workloads);
    std::swap(status.savings, found.savings);
    std::swap(status.lastReconcileTime, found.lastReconcileTime);
  };
  exchange();
  const bool same = status == stored;
  exchange();
  return same;
}

}  // namespace

HeartbeatBudget HeartbeatBudget::perReconcile(std::size_t policies, Duration resync,
                                              Duration heartbeat) {
  if (heartbeat <= resync) return {.left = SIZE_MAX};
  const double share = static_cast<double>(policies) *
                       std::chrono::duration<double>(resync).count() /
                       std::chrono::duration<double>(heartbeat).count();
  return {.left = std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(2 * share)))};
}

namespace {}  // namespace

std::string namespacedKey(const api::ObjectMeta& meta) { return meta.namespace_ + "/" + meta.name; }

void HeldStatusWrites::hold(api::AttunePolicy update) {
  std::string key = namespacedKey(update.metadata);
  if (auto it = held_.find(key); it != held_.end()) {
    it->second.update = std::move(update);
    return;
  }
  order_.emplace(next_, key);
  held_.emplace(std::move(key), Held{next_++, std::move(update)});
}

const api::AttunePolicyStatus* HeldStatusWrites::find(const api::ObjectMeta& meta) const {
  if (held_.empty()) return nullptr;
  auto it = held_.find(namespacedKey(meta));
  return it == held_.end() ? nullptr : &it->second.update.status;
}

void HeldStatusWrites::drop(const api::ObjectMeta& meta) {
  if (held_.empty()) return;
  auto it = held_.find(namespacedKey(meta));
  if (it == held_.end()) return;
  order_.erase(it->second.sequence);
  held_.erase(it);
}

HeldStatusWrites::Written HeldStatusWrites::write(api::ClusterApi& api, std::size_t limit,
                                                  Clock& clock, Duration slice) {
  Written written;
  const Time start = clock.now();
  while (!order_.empty() && written.sent < limit && clock.now() - start < slice) {
    auto it = held_.find(order_.begin()->second);
    order_.erase(order_.begin());
    const api::AttunePolicy update = std::move(it->second.update);
    held_.erase(it);
    ++written.sent;
    if (!api.updateAttunePolicyStatus(update)) ++written.dropped;
  }
  return written;
}

namespace {

// After `update` was refused for a conflict: someone else wrote the policy since it was read, and
// the status is ours alone, so it is written over the latest version.
void writeOverLatest(api::ClusterApi& api, const api::AttunePolicy& update) {
  if (auto latest = api.getAttunePolicy(update.metadata.namespace_, update.metadata.name)) {
    latest->status = update.status;
    (void)api.updateAttunePolicyStatus(*latest);
  }
}

bool conflicted(const Result<api::AttunePolicy>& written) {
  return !written && written.error().code == ErrorCode::kConflict;
}

}  // namespace

void StatusWrites::add(api::AttunePolicy update) {
  const auto same = [&](const api::AttunePolicy& p) {
    return p.metadata.name == update.metadata.name &&
           p.metadata.namespace_ == update.metadata.namespace_;
  };
  if (auto it = std::ranges::find_if(pending_, same); it != pending_.end()) {
    *it = std::move(update);
    return;
  }
  pending_.push_back(std::move(update));
}

void StatusWrites::flush(api::ClusterApi& api) {
  if (pending_.empty()) return;
  const std::vector<api::AttunePolicy> sent = std::exchange(pending_, {});
  const std::vector<Result<api::AttunePolicy>> written = api.updateAttunePolicyStatuses(sent);
  for (std::size_t i = 0; i < sent.size() && i < written.size(); ++i) {
    if (conflicted(written[i])) writeOverLatest(api, sent[i]);
  }
}

void writeStatus(api::ClusterApi& api, const api::AttunePolicy& stored,
                 api::AttunePolicyStatus& status, Duration heartbeat, HeartbeatBudget* budget,
                 HeldStatusWrites* held, StatusWrites* writes) {
  const std::optional<Time>& storedTime = stored.status.lastReconcileTime;
  bool progressOnly = false;
  bool foundOnly = false;
  if (storedTime && status.lastReconcileTime && sameShape(status, stored.status)) {
    const bool due = *status.lastReconcileTime - *storedTime >= heartbeat;
    StatusProgress ours = progressOf(status);
    setProgress(status, progressOf(stored.status));
    progressOnly = status == stored.status;
    foundOnly = !progressOnly && held != nullptr && nothingDone(status, stored.status);
    // Nothing new but progress: it waits for the heartbeat, and for a later pass when this one
    // has spent its heartbeat writes.
    if (progressOnly && (!due || (budget != nullptr && !budget->take()))) return;
    setProgress(status, std::move(ours));
  }
  if (status == stored.status) return;
  // The stored policy with the new status (the old one is not copied to be replaced).
  api::AttunePolicy update{.metadata = stored.metadata,
                           .spec = stored.spec,
                           .status = status,
                           .preserved = stored.preserved,
                           .sources = stored.sources};
  if (held != nullptr) {
    if (progressOnly || foundOnly) {
      held->hold(std::move(update));
      return;
    }
    held->drop(stored.metadata);
  }
  if (writes != nullptr) {
    writes->add(std::move(update));
    return;
  }
  if (conflicted(api.updateAttunePolicyStatus(update))) writeOverLatest(api, update);
}

}  // namespace attune::controller
