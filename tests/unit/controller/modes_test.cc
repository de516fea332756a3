// Update modes end to end (Observe, Recommend, OneShot, Canary), a resize the kubelet defers
// until the node has room, and metrics that are missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

bool untouched(const api::Pod& pod) {
  return specResources(pod, "app") == api::ResourceValues{.cpuRequest = 500_m,
                                                          .cpuLimit = 1000_m,
                                                          .memoryRequest = 512_Mi,
                                                          .memoryLimit = 1_Gi} &&
         !hasAnnotationPrefix(pod.metadata, "attune.io/");
}

TEST(ModesTest, ObserveTracksDataPointsButWritesNoRecommendation) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web"}), policyYaml({.name = "web",
                                                              .target = "web",
                                                              .updateStrategy = "{type: Observe}",
                                                              .minimumDataPoints = 10})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(4);
  const api::AttunePolicy early = h.policy("apps", "web");
  const api::Condition* ready = condition(early, api::kConditionReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->reason, "InsufficientData");
  EXPECT_NE(ready->message.find("of 10 data points"), std::string::npos) << ready->message;

  h.runMinutes(30);
  const api::AttunePolicy p = h.policy("apps", "web");
  EXPECT_TRUE(p.status.recommendations.empty());
  ready = condition(p, api::kConditionReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_TRUE(ready->isTrue());
  EXPECT_NE(ready->message.find("data points"), std::string::npos) << ready->message;
  EXPECT_TRUE(untouched(h.pod("apps", "web")));
  EXPECT_TRUE(p.status.resizeHistory.empty());
  const std::string text = h.metricsText();
  EXPECT_EQ(text.find("attune_recommendation_cpu_cores{"), std::string::npos);
  EXPECT_EQ(text.find("attune_savings_cpu_cores_total{"), std::string::npos);
}

// A policy moved to another workload, then deleted: the gauges of what it no longer recommends
// go, and the namespace's savings are those of what is still recommended.
TEST(ModesTest, TheSeriesOfWhatAPolicyNoLongerRecommendsAreWithdrawn) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web", .replicas = 2}) + workloadYaml({.name = "api"}),
      policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"})));
  ASSERT_TRUE(h.usable());
  const auto cpu = [&](const std::string& workload) {
    return h.metric(R"(attune_recommendation_cpu_cores{namespace="apps",workload=")" + workload +
                    R"(",container="app"})");
  };
  const auto savings = [&] {
    return h.metric(R"(attune_savings_cpu_cores_total{namespace="apps"})");
  };
  h.runMinutes(60);
  ASSERT_TRUE(cpu("web").has_value());
  ASSERT_FALSE(cpu("api").has_value());

  api::ClusterApi& cluster = h.sim().api();
  api::AttunePolicy policy = *cluster.getAttunePolicy("apps", "web");
  policy.spec.targetRef.name = "api";
  ASSERT_TRUE(cluster.updateAttunePolicy(policy));
  h.runMinutes(60);
  EXPECT_FALSE(cpu("web").has_value());
  ASSERT_TRUE(cpu("api").has_value());
  EXPECT_EQ(h.metricsText().find(R"(workload="web",container)"), std::string::npos);
  // The savings are api's alone: the policy's reclaimed requests, which are its one workload's.
  EXPECT_NEAR(
      savings().value_or(-1),
      h.metric(R"(attune_reclaimed_request_cpu_cores{namespace="apps",policy="web"})").value_or(-2),
      0.001);

  ASSERT_TRUE(h.sim().state().attunePolicies.erase("apps", "web"));
  h.runMinutes(2);
  EXPECT_FALSE(cpu("api").has_value());
  EXPECT_EQ(h.metricsText().find("attune_reclaimed_request_cpu_cores{"), std::string::npos);
  EXPECT_EQ(savings().value_or(-1), 0);
}

TEST(ModesTest, RecommendWritesRecommendationsAndNeverTouchesAPod) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web", .replicas = 2}),
      policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(60);
  const api::AttunePolicy p = h.policy("apps", "web");
  ASSERT_EQ(p.status.recommendations.size(), 1u);
  ASSERT_EQ(p.status.recommendations[0].containers.size(), 1u);
  const auto& c = p.status.recommendations[0].containers[0];
  EXPECT_TRUE(near(c.recommended.cpuRequest, 300_m));
  EXPECT_TRUE(near(c.recommended.memoryRequest, 300_Mi));
  for (const api::Pod& pod : h.pods("apps", "web"))
    EXPECT_TRUE(untouched(pod)) << pod.metadata.name;
  EXPECT_TRUE(p.status.resizeHistory.empty());
  EXPECT_TRUE(h.events("Resized").empty());
  EXPECT_TRUE(h.actions().empty());
  EXPECT_NEAR(
      h.metric(
           R"(attune_recommendation_cpu_cores{namespace="apps",workload="web",container="app"})")
          .value_or(0),
      0.3, 0.006);
  // The public operator's names and labels.
  EXPECT_EQ(h.metric(R"(attune_confidence{namespace="apps",workload="web",container="app"})"), 1.0);
  const double saved = h.metric(R"(attune_savings_cpu_cores_total{namespace="apps"})").value_or(0);
  EXPECT_GT(saved, 0.1);
  EXPECT_NEAR(
      h.metric(R"(attune_reclaimed_request_cpu_cores{namespace="apps",policy="web"})").value_or(0),
      saved, 0.001);
  EXPECT_GT(h.metric(R"(attune_reclaimed_request_memory_bytes{namespace="apps",policy="web"})")
                .value_or(0),
            0);
  EXPECT_NE(
      h.metricsText().find(
          R"(attune_reconcile_duration_seconds_count{controller="attunepolicy",namespace="apps",policy="web"})"),
      std::string::npos);
}

TEST(ModesTest, OneShotResizesOnePodPerCycle) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web", .replicas = 3}),
                   policyYaml({.name = "web",
                               .target = "web",
                               .updateStrategy = "{type: OneShot, maxConcurrentResizes: 3}"})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() >= 3; }, 1h));
  std::map<Time, int> perPass;
  for (const ActionRecord& a : h.actions(Kind::kResized)) ++perPass[a.time];
  EXPECT_EQ(perPass.size(), 3u);
  EXPECT_GE(
      h.metric(
           R"(attune_resize_total{namespace="apps",workload="web",resource="cpu",result="success"})")
          .value_or(0),
      3.0);
  for (const auto& [t, n] : perPass) EXPECT_EQ(n, 1) << formatRfc3339(t);
  for (const api::Pod& pod : h.pods("apps", "web")) {
    EXPECT_TRUE(near(specResources(pod, "app").cpuRequest, 300_m)) << pod.metadata.name;
  }
}

// A history window of minutes (not whole days, as the sketches keep) is read as given: the
// policy is valid and its pods are resized once the window holds enough points.
TEST(ModesTest, AHistoryWindowShorterThanADayIsReadAsGiven) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web"}),
                   policyYaml({.name = "web", .target = "web", .historyWindow = "10m"})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 15min));
  EXPECT_TRUE(near(specResources(h.pod("apps", "web"), "app").cpuRequest, 300_m));
  const api::AttunePolicy policy = h.policy("apps", "web");
  const api::Condition* ready = condition(policy, api::kConditionReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_NE(ready->reason, "InvalidConfig") << ready->message;
}

TEST(ModesTest, CanaryResizesItsPercentageFirstAndTheRestAfterTheObservationPeriod) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web", .replicas = 10}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy =
                      "{type: Canary, maxConcurrentResizes: 10, canary: "
                      "{percentage: 30, observationPeriod: 10m, autoPromote: true}}"})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 20min));
  const Time first = h.actions(Kind::kResized).front().time;
  EXPECT_EQ(h.actions(Kind::kResized).size(), 3u) << "ceil(30% of 10) canaries";

  // The canaries are observed for 10 minutes, then the rest wait another 10.
  h.run(first + 19min - h.now());
  EXPECT_EQ(h.actions(Kind::kResized).size(), 3u);
  EXPECT_EQ(h.actions(Kind::kSafe).size(), 3u);
  int resized = 0;
  for (const api::Pod& pod : h.pods("apps", "web")) {
    resized += near(specResources(pod, "app").cpuRequest, 300_m) ? 1 : 0;
  }
  EXPECT_EQ(resized, 3);
  // status.canary: the three canaries, in progress since the first resize.
  {
    const api::AttunePolicy p = h.policy("apps", "web");
    ASSERT_TRUE(p.status.canary.has_value());
    EXPECT_EQ(p.status.canary->phase, "CanaryInProgress");
    EXPECT_EQ(p.status.canary->pods.size(), 3u);
    EXPECT_EQ(p.status.canary->startTime, first);
    EXPECT_EQ(p.status.canary->observedGeneration, p.metadata.generation);
    ASSERT_EQ(p.status.canary->workloads.size(), 1u);
    EXPECT_EQ(p.status.canary->workloads[0].workload, "web");
    std::vector<std::string> resizedPods;
    for (const api::Pod& pod : h.pods("apps", "web")) {
      if (near(specResources(pod, "app").cpuRequest, 300_m)) {
        resizedPods.push_back(pod.metadata.name);
      }
    }
    std::sort(resizedPods.begin(), resizedPods.end());
    EXPECT_EQ(p.status.canary->pods, resizedPods);
  }

  h.runMinutes(2);
  EXPECT_EQ(h.actions(Kind::kResized).size(), 10u);
  {
    const api::AttunePolicy p = h.policy("apps", "web");
    ASSERT_TRUE(p.status.canary.has_value());
    EXPECT_EQ(p.status.canary->phase, "FullRollout");
    EXPECT_EQ(p.status.canary->pods.size(), 3u) << "the canaries stay listed";
    EXPECT_EQ(p.status.canary->startTime, first);
  }
  for (const ActionRecord& a : h.actions(Kind::kResized)) {
    EXPECT_TRUE(a.time == first || a.time == first + 20min) << formatRfc3339(a.time);
  }
  for (const api::Pod& pod : h.pods("apps", "web")) {
    EXPECT_TRUE(near(specResources(pod, "app").cpuRequest, 300_m)) << pod.metadata.name;
  }
}

// A 2-core node holding `grower` (600m, using 1200m) and `filler` (1200m): the recommended
// 1200m fits the node (the pre-check passes) but not beside the filler, so the kubelet defers the
// resize until the filler goes.
TEST(ModesTest, ADeferredResizeIsReportedAndAppliedOnceTheNodeHasRoom) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "grower",
                    .requests = "{cpu: 600m, memory: 256Mi}",
                    .limits = "",
                    .model = "{kind: steady, cpuCores: 1200m, memoryBytes: 200Mi, noise: 0}"}) +
          workloadYaml({.name = "filler",
                        .requests = "{cpu: 1200m, memory: 256Mi}",
                        .limits = "",
                        .model = "{kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}"}),
      policyYaml({.name = "grower", .target = "grower"}), {},
      "{name: node, count: 1, cpu: \"2\", memory: 8Gi}"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 20min));
  h.runMinutes(15);

  const api::Pod deferred = h.pod("apps", "grower");
  EXPECT_EQ(specResources(deferred, "app").cpuRequest, 1200_m);
  EXPECT_EQ(statusResources(deferred, "app").cpuRequest, 600_m) << "not applied yet";
  const api::Condition* pending =
      api::findCondition(deferred.status.conditions, api::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, "Deferred");
  const api::AttunePolicy deferredPolicy = h.policy("apps", "grower");
  const api::Condition* blocked = condition(deferredPolicy, api::kConditionResizeBlocked);
  ASSERT_NE(blocked, nullptr);
  EXPECT_TRUE(blocked->isTrue());
  EXPECT_EQ(blocked->reason, "PodsDeferred");
  EXPECT_TRUE(h.actions(Kind::kSafe).empty()) << "not judged before it is applied";
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_TRUE(h.actions(Kind::kResizeFailed).empty());

  // The filler leaves; the kubelet applies the resize, which is then observed and kept.
  auto scaled = h.sim().state().deployments.modify("apps", "filler", "",
                                                   [](api::Deployment& d) -> Result<sim::Change> {
                                                     d.spec.replicas = 0;
                                                     return sim::Change::kSpec;
                                                   });
  ASSERT_TRUE(scaled.has_value());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kSafe).empty(); }, 30min));
  h.runMinutes(1);
  const api::Pod applied = h.pod("apps", "grower");
  EXPECT_EQ(statusResources(applied, "app").cpuRequest, 1200_m);
  EXPECT_EQ(api::findCondition(applied.status.conditions, api::kPodResizePending), nullptr);
  EXPECT_EQ(condition(h.policy("apps", "grower"), api::kConditionResizeBlocked), nullptr);
  EXPECT_TRUE(h.actions(Kind::kReverted).empty());
  EXPECT_EQ(h.actions(Kind::kResized).size(), 1u);
}

// Statistics are collected while the cooldown holds the resize back; the metrics backend then
// goes away before the cooldown ends: no resize on the statistics already held.
TEST(ModesTest, MissingMetricsNeverProduceAResize) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web",
                    .workloadExtra = "    annotations: {attune.io/last-resize-time: \"" +
                                     std::string(kStart) + "\"}\n"}),
      policyYaml(
          {.name = "web", .target = "web", .updateStrategy = "{type: Auto, cooldown: 20m}"})));
  ASSERT_TRUE(h.usable());
  ObservedMetricsSource source(h.sim().metrics());
  h.restartController(&source);
  h.runMinutes(15);
  ASSERT_FALSE(h.policy("apps", "web").status.recommendations.empty());
  source.fail();
  h.runMinutes(30);

  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  EXPECT_TRUE(untouched(h.pod("apps", "web")));
  const api::AttunePolicy p = h.policy("apps", "web");
  const api::Condition* ready = condition(p, api::kConditionReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, "PrometheusUnavailable") << ready->message;
}

}  // namespace
}  // namespace attune::controller::testing
