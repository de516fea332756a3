// status.savings and status.workloads (the public API's summary, shown by the printer columns):
// request totals, reductions and increases over the running pods; discovered, recommended,
// resized and pending workloads from the recommendations and the resize history; status.canary
// and status.cooldown.
#include "controller/policy_status.h"

#include <gtest/gtest.h>

#include "core/quantity.h"

namespace attune::controller {
namespace {

using namespace std::chrono_literals;

RecommendedContainer container(std::string name, std::int64_t cpuNow, std::int64_t cpuRec,
                               std::int64_t memNow, std::int64_t memRec, bool enough = true) {
  RecommendedContainer c;
  c.name = std::move(name);
  c.current.cpuRequest = Millicores(cpuNow);
  c.current.memoryRequest = Bytes(memNow);
  c.recommendation.enoughData = enough;
  if (enough) {
    c.recommendation.resources.cpuRequest = Millicores(cpuRec);
    c.recommendation.resources.memoryRequest = Bytes(memRec);
  }
  c.dataPoints = enough ? 60 : 3;
  return c;
}

RecommendedWorkload workload(std::string name, std::vector<RecommendedContainer> containers) {
  return RecommendedWorkload{.ref = api::workloadRef(api::WorkloadKind::kDeployment, "apps", name),
                             .containers = std::move(containers),
                             .lastDataTime = std::nullopt};
}

constexpr std::int64_t kMi = 1024 * 1024;

TEST(SummarizeSavings, TotalsReductionsAndIncreasesOverTheRunningPods) {
  const std::vector<RecommendedWorkload> recommended{
      workload("web", {container("app", 1000, 400, 1024 * kMi, 1536 * kMi)}),
      workload("api", {container("app", 500, 250, 256 * kMi, 128 * kMi),
                       container("sidecar", 100, 0, 64 * kMi, 0, /*enough=*/false)})};
  const std::map<api::WorkloadRef, std::size_t> replicas{{recommended[0].ref, 2},
                                                         {recommended[1].ref, 1}};
  const api::SavingsStatus s = summarizeSavings(recommended, replicas);
  EXPECT_EQ(s.cpuRequestTotal, "2600m");      // 2 × 1000 + 500 + 100
  EXPECT_EQ(s.cpuRequestReduction, "1450m");  // 2 × 600 + 250; the sidecar has no advice
  EXPECT_EQ(s.cpuRequestIncrease, "");
  EXPECT_EQ(s.memoryRequestTotal, "2368Mi");     // 2 × 1Gi + 256Mi + 64Mi
  EXPECT_EQ(s.memoryRequestReduction, "128Mi");  // api
  EXPECT_EQ(s.memoryRequestIncrease, "1Gi");     // 2 × 512Mi for web
  EXPECT_EQ(s.reclaimedCpuRequest, s.cpuRequestReduction);
  EXPECT_EQ(s.reclaimedMemoryRequest, "128Mi");
}

TEST(SummarizeSavings, NoReductionIsZeroAndNoPodsCountNothing) {
  const std::vector<RecommendedWorkload> recommended{
      workload("web", {container("app", 100, 200, 64 * kMi, 64 * kMi)})};
  const api::SavingsStatus none = summarizeSavings(recommended, {});
  EXPECT_EQ(none.cpuRequestTotal, "0");
  EXPECT_EQ(none.cpuRequestReduction, "0");
  EXPECT_EQ(none.cpuRequestIncrease, "");
  const api::SavingsStatus one = summarizeSavings(recommended, {{recommended[0].ref, 1}});
  EXPECT_EQ(one.cpuRequestReduction, "0");
  EXPECT_EQ(one.cpuRequestIncrease, "100m");
  EXPECT_EQ(one.memoryRequestReduction, "0");
}

api::ResizeHistoryEntry entry(std::string workload, api::ResizeResult result) {
  api::ResizeHistoryEntry e;
  e.workload = std::move(workload);
  e.container = "app";
  e.resource = api::ResizedResource::kCpu;
  e.method = api::ResizeMethod::kInPlace;
  e.result = result;
  return e;
}

TEST(SummarizeWorkloads, CountsDiscoveredRecommendedResizedAndPending) {
  api::AttunePolicy policy;
  policy.spec.metricsSource.minimumDataPoints = 12;
  const std::vector<RecommendedWorkload> recommended{
      workload("web", {container("app", 1000, 400, kMi, kMi)}),
      workload("api", {container("app", 1000, 400, kMi, kMi)}),
      workload("batch", {container("app", 1000, 400, kMi, kMi, /*enough=*/false)})};
  api::AttunePolicyStatus status;
  status.resizeHistory = {entry("web", api::ResizeResult::kApplied),
                          entry("api", api::ResizeResult::kApplied),
                          entry("api", api::ResizeResult::kReverted)};
  const api::PolicyWorkloadCounts w = summarizeWorkloads(status, policy, recommended, 4);
  EXPECT_EQ(w.discovered, 4);
  EXPECT_EQ(w.withRecommendations, 2);  // batch has too few data points
  EXPECT_EQ(w.resized, 1);              // api's latest resize was reverted
  EXPECT_EQ(w.pending, 1);
  EXPECT_EQ(w.dataPointsCollected, 60);
  EXPECT_EQ(w.dataPointsRequired, 12);

  policy.spec.updateStrategy.type = api::UpdateMode::kObserve;  // no recommendations in Observe
  const api::PolicyWorkloadCounts observed = summarizeWorkloads(status, policy, recommended, 4);
  EXPECT_EQ(observed.withRecommendations, 0);
  EXPECT_EQ(observed.resized, 0);
}

rollout::CanaryProgress progress(std::string name, rollout::CanaryPhase phase,
                                 std::vector<std::string> pods) {
  return {.workload = api::workloadRef(api::WorkloadKind::kDeployment, "apps", name),
          .phase = phase,
          .pods = std::move(pods)};
}

TEST(SummarizeCanary, OnlyInCanaryModeAndStartedWhenTheFirstCanaryIsResized) {
  api::AttunePolicy policy;
  const Time t0 = *parseRfc3339("2026-01-05T10:00:00Z");
  const std::vector<RecommendedWorkload> recommended{
      workload("web", {container("app", 1000, 400, kMi, kMi)})};
  const std::vector<rollout::CanaryProgress> web{
      progress("web", rollout::CanaryPhase::kInProgress, {"web-0"})};
  policy.spec.updateStrategy.type = api::UpdateMode::kAuto;
  EXPECT_FALSE(summarizeCanary(std::nullopt, web, policy, recommended, 1, t0).has_value());

  policy.spec.updateStrategy.type = api::UpdateMode::kCanary;
  EXPECT_FALSE(summarizeCanary(std::nullopt, {}, policy, recommended, 1, t0).has_value())
      << "no canary before the planner reaches one";
  const auto started = summarizeCanary(std::nullopt, web, policy, recommended, 1, t0);
  ASSERT_TRUE(started.has_value());
  EXPECT_EQ(started->phase, "CanaryInProgress");
  EXPECT_EQ(started->pods, std::vector<std::string>{"web-0"});
  EXPECT_EQ(started->startTime, t0);
  EXPECT_EQ(started->observedGeneration, 1);

  // Later passes keep the start; once promoted, the canaries stay listed.
  const std::vector<rollout::CanaryProgress> promoted{
      progress("web", rollout::CanaryPhase::kFullRollout, {})};
  const auto later = summarizeCanary(started, promoted, policy, recommended, 1, t0 + 30min);
  ASSERT_TRUE(later.has_value());
  EXPECT_EQ(later->phase, "FullRollout");
  EXPECT_EQ(later->pods, std::vector<std::string>{"web-0"});
  EXPECT_EQ(later->startTime, t0);

  // A pass the planner did not reach the workload in (cooldown, failed read) keeps its entry.
  const auto kept = summarizeCanary(started, {}, policy, recommended, 1, t0 + 30min);
  EXPECT_EQ(kept, started);

  // A new generation starts a new cycle.
  const auto restarted = summarizeCanary(started, web, policy, recommended, 2, t0 + 1h);
  ASSERT_TRUE(restarted.has_value());
  EXPECT_EQ(restarted->startTime, t0 + 1h);
  EXPECT_EQ(restarted->observedGeneration, 2);
}

TEST(SummarizeCanary, InProgressWhileAnyWorkloadIsAndTheEarliestStart) {
  api::AttunePolicy policy;
  policy.spec.updateStrategy.type = api::UpdateMode::kCanary;
  const Time t0 = *parseRfc3339("2026-01-05T10:00:00Z");
  const std::vector<RecommendedWorkload> recommended{
      workload("api", {container("app", 1000, 400, kMi, kMi)}),
      workload("web", {container("app", 1000, 400, kMi, kMi)})};
  const auto first = summarizeCanary(
      std::nullopt, {progress("web", rollout::CanaryPhase::kFullRollout, {"web-0"})}, policy,
      recommended, 3, t0);
  const auto both = summarizeCanary(
      first, {progress("api", rollout::CanaryPhase::kInProgress, {"api-1", "api-2"})}, policy,
      recommended, 3, t0 + 1h);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->phase, "CanaryInProgress");
  EXPECT_EQ(both->pods, (std::vector<std::string>{"api-1", "api-2", "web-0"}));
  EXPECT_EQ(both->startTime, t0);
  ASSERT_EQ(both->workloads.size(), 2u);
  EXPECT_EQ(both->workloads[0].startTime, t0 + 1h);
  EXPECT_EQ(both->workloads[1].phase, "FullRollout");
}

TEST(SummarizeCooldown, BackoffDoublesPerRevertUpToSixteen) {
  api::AttunePolicy policy;
  const api::CooldownStatus base = summarizeCooldown(policy, 0);
  EXPECT_EQ(base.backoffMultiplier, 1);
  EXPECT_EQ(base.consecutiveReverts, 0);
  EXPECT_EQ(base.effectiveCooldown, "1h");  // the default cooldown
  policy.spec.updateStrategy.cooldown = 30min;
  EXPECT_EQ(summarizeCooldown(policy, 3).effectiveCooldown, "4h");
  EXPECT_EQ(summarizeCooldown(policy, 3).backoffMultiplier, 8);
  EXPECT_EQ(summarizeCooldown(policy, 7).backoffMultiplier, 16);
  EXPECT_EQ(summarizeCooldown(policy, 7).effectiveCooldown, "8h");
}

const api::Condition* findCondition(const api::AttunePolicyStatus& s, std::string_view type) {
  for (const api::Condition& c : s.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

TEST(SettleStatus, ReadyAndResizingUseThePublicReasons) {
  const Time now = *parseRfc3339("2026-01-05T10:00:00Z");
  api::AttunePolicy policy;
  policy.spec.metricsSource.minimumDataPoints = 12;
  const std::vector<RecommendedWorkload> recommended{
      workload("web", {container("app", 1000, 400, kMi, kMi)})};  // 60 data points
  const auto settle = [&](const PassOutcome& outcome) {
    api::AttunePolicyStatus status;
    settleStatus(status, policy, policy, recommended, outcome, now);
    return status;
  };
  const auto reasonOf = [](const api::AttunePolicyStatus& s, std::string_view type) {
    const api::Condition* c = findCondition(s, type);
    return c == nullptr ? std::string("(none)") : c->status + "/" + c->reason;
  };
  EXPECT_EQ(reasonOf(settle({.targets = 1}), "Ready"), "True/Monitoring");
  EXPECT_EQ(reasonOf(settle({.targets = 1}), "Resizing"), "False/Idle");
  EXPECT_EQ(reasonOf(settle({.targets = 1, .resizing = 2}), "Resizing"), "True/InProgress");
  EXPECT_EQ(reasonOf(settle({.targets = 1, .coolingDown = true}), "Resizing"),
            "False/CooldownActive");
  EXPECT_EQ(reasonOf(settle({.metricsError = "timeout", .targets = 1}), "Ready"),
            "False/PrometheusUnavailable");
  EXPECT_EQ(reasonOf(settle({.targets = 0}), "Ready"), "False/NoWorkloadsFound");
  policy.spec.metricsSource.minimumDataPoints = 100;
  EXPECT_EQ(reasonOf(settle({.targets = 1}), "Ready"), "False/InsufficientData");
  policy.spec.paused = true;
  EXPECT_EQ(reasonOf(settle({.metricsError = "timeout", .targets = 1}), "Ready"), "False/Paused");
  // cooldown is written by every pass.
  const api::AttunePolicyStatus s = settle({.targets = 1, .consecutiveReverts = 2});
  ASSERT_TRUE(s.cooldown.has_value());
  EXPECT_EQ(s.cooldown->backoffMultiplier, 4);
}

}  // namespace
}  // namespace attune::controller
