// The pre-checks before every resize, end to end: each skip leaves the pod as it was, writes one
// Skipped history entry and a ResizeSkipped Warning with its reason; deferrals write nothing.
#include <gtest/gtest.h>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// Runs 30 minutes and checks that `workload`'s only pod was skipped for `reason` and left as
// it was.
void expectSkipped(ScenarioHarness& h, std::string_view policy, std::string_view workload,
                   std::string_view reason) {
  h.runMinutes(1);
  const api::ResourceValues original = specResources(h.pod("apps", workload), "app");
  h.runMinutes(29);
  const api::Pod pod = h.pod("apps", workload);
  EXPECT_EQ(specResources(pod, "app"), original);
  EXPECT_FALSE(hasAnnotationPrefix(pod.metadata, "attune.io/"));
  for (const ActionRecord& a : h.actions(Kind::kResized)) EXPECT_NE(a.workload.name, workload);
  const api::AttunePolicy p = h.policy("apps", policy);
  ASSERT_FALSE(p.status.recommendations.empty());
  const auto skips = history(p, api::ResizeResult::kSkipped);
  ASSERT_EQ(skips.size(), 1u) << "one entry for a skip repeated every pass";
  EXPECT_EQ(skips[0].reason, reason);
  EXPECT_EQ(skips[0].pod, pod.metadata.name);
  std::vector<api::Event> events;
  for (api::Event& e : h.events()) {
    if (e.involvedObject.name == pod.metadata.name) events.push_back(std::move(e));
  }
  ASSERT_EQ(events.size(), 1u) << "one ResizeSkipped event, and no Resized";
  EXPECT_EQ(events[0].reason, "ResizeSkipped");
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_TRUE(events[0].message.starts_with(std::string(reason) + ":")) << events[0].message;
}

TEST(PrecheckTest, LimitRangeMinimumSkipsTheResize) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web"}), policyYaml({.name = "web", .target = "web"}),
                   "  limitRanges:\n  - namespace: apps\n    name: bounds\n    limits:\n"
                   "    - type: Container\n      min: {cpu: 400m, memory: 32Mi}\n"));
  ASSERT_TRUE(h.usable());
  expectSkipped(h, "web", "web", "LimitRange");
}

// Demand 800m on a 400m request: the recommendation doubles the request (capped at +100 %),
// more than the quota's headroom of 200m.
TEST(PrecheckTest, ResourceQuotaHeadroomSkipsAnIncrease) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "busy",
                    .requests = "{cpu: 400m, memory: 256Mi}",
                    .limits = "",
                    .model = "{kind: steady, cpuCores: 800m, memoryBytes: 200Mi, noise: 0}"}),
      policyYaml({.name = "busy", .target = "busy"}),
      "  resourceQuotas:\n  - namespace: apps\n    name: quota\n"
      "    hard: {requests.cpu: 600m}\n"));
  ASSERT_TRUE(h.usable());
  expectSkipped(h, "busy", "busy", "ResourceQuota");
}

// A node of 1 core; the pod asks for 600m and uses 900m: the recommended 1200m would not fit.
TEST(PrecheckTest, NodeAllocatableSkipsAResizeThatCannotFit) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "big",
                    .requests = "{cpu: 600m, memory: 256Mi}",
                    .limits = "",
                    .model = "{kind: steady, cpuCores: 900m, memoryBytes: 200Mi, noise: 0}"}),
      policyYaml({.name = "big", .target = "big"}), {},
      "{name: small, count: 1, cpu: \"1\", memory: 4Gi}"));
  ASSERT_TRUE(h.usable());
  expectSkipped(h, "big", "big", "NodeCapacity");
}

// Two Guaranteed pods: under RequestsOnly the requests would drop below the limits (Burstable),
// which is blocked; under RequestsAndLimits both move together and the pod stays Guaranteed.
TEST(PrecheckTest, AGuaranteedPodStaysGuaranteedOrIsNotResized) {
  const std::string guaranteed = "{cpu: 500m, memory: 512Mi}";
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "fixed", .requests = guaranteed, .limits = guaranteed}) +
          workloadYaml({.name = "moving", .requests = guaranteed, .limits = guaranteed}),
      policyYaml({.name = "fixed", .target = "fixed", .controlledValues = "RequestsOnly"}) +
          policyYaml({.name = "moving", .target = "moving"})));
  ASSERT_TRUE(h.usable());
  expectSkipped(h, "fixed", "fixed", "QoSChange");

  const api::Pod moving = h.pod("apps", "moving");
  const api::ResourceValues v = specResources(moving, "app");
  EXPECT_TRUE(near(v.cpuRequest, 300_m));
  EXPECT_EQ(v.cpuLimit, v.cpuRequest);
  EXPECT_TRUE(near(v.memoryRequest, 300_Mi));
  EXPECT_EQ(v.memoryLimit, v.memoryRequest);
  EXPECT_EQ(api::computeQosClass(moving.spec), api::QosClass::kGuaranteed);
}

TEST(PrecheckTest, AWorkloadInTheMiddleOfARolloutIsDeferred) {
  ScenarioHarness h(scenarioYaml(workloadYaml({.name = "web", .replicas = 2}),
                                 policyYaml({.name = "web", .target = "web"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(2);
  // A new template, rolled out by hand: paused after the change, updatedReplicas stays 0 of 2.
  const auto setRollout = [&](bool paused) {
    auto changed = h.sim().state().deployments.modify(
        "apps", "web", "", [&](api::Deployment& d) -> Result<sim::Change> {
          d.spec.template_.spec.containers[0].image = "registry.sim.attune.io/app:2";
          d.spec.paused = paused;
          return sim::Change::kSpec;
        });
    ASSERT_TRUE(changed.has_value());
  };
  setRollout(true);
  h.runMinutes(30);
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  for (const api::Pod& pod : h.pods("apps", "web")) {
    EXPECT_EQ(specResources(pod, "app").cpuRequest, 500_m);
  }
  const api::AttunePolicy p = h.policy("apps", "web");
  EXPECT_FALSE(p.status.recommendations.empty());
  EXPECT_TRUE(p.status.resizeHistory.empty()) << "a deferral writes nothing";
  EXPECT_TRUE(h.events("ResizeSkipped").empty());

  // Once the rollout completes, the new pods are resized.
  const Time resumed = h.now();
  setRollout(false);
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() >= 2; }, 1h));
  for (const ActionRecord& a : h.actions(Kind::kResized)) EXPECT_GT(a.time, resumed);
  for (const api::Pod& pod : h.pods("apps", "web")) {
    EXPECT_EQ(pod.spec.containers[0].image, "registry.sim.attune.io/app:2");
  }
}

TEST(PrecheckTest, TheSkipAnnotationOnAWorkloadOrAPodOptsOut) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml(
          {.name = "optout", .workloadExtra = "    annotations: {attune.io/skip: \"true\"}\n"}) +
          workloadYaml({.name = "mixed", .replicas = 2}),
      policyYaml({.name = "optout", .target = "optout"}) +
          policyYaml({.name = "mixed",
                      .target = "mixed",
                      .updateStrategy = "{type: Auto, maxConcurrentResizes: 2}"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const std::vector<api::Pod> mixed = h.pods("apps", "mixed");
  ASSERT_EQ(mixed.size(), 2u);
  const std::string skipped = mixed[0].metadata.name;
  ASSERT_TRUE(h.sim()
                  .api()
                  .patchPodAnnotations("apps", skipped, {{"attune.io/skip", "true"}}, "")
                  .has_value());
  h.runMinutes(30);

  EXPECT_EQ(specResources(h.pod("apps", "optout"), "app").cpuRequest, 500_m);
  const auto workloadSkips =
      history(h.policy("apps", "optout"), api::ResizeResult::kSkipped, "OptOut");
  ASSERT_EQ(workloadSkips.size(), 1u);
  EXPECT_EQ(workloadSkips[0].pod, "") << "about the whole workload";

  for (const api::Pod& pod : h.pods("apps", "mixed")) {
    EXPECT_TRUE(near(specResources(pod, "app").cpuRequest,
                     pod.metadata.name == skipped ? 500_m : 300_m,
                     pod.metadata.name == skipped ? 0.0 : 0.02))
        << pod.metadata.name;
  }
  const auto podSkips = history(h.policy("apps", "mixed"), api::ResizeResult::kSkipped, "OptOut");
  ASSERT_EQ(podSkips.size(), 1u);
  EXPECT_EQ(podSkips[0].pod, skipped);
  EXPECT_EQ(h.actions(Kind::kResized).size(), 1u);
}

// A pod with the application, an excluded agent and a known sidecar: only the application gets
// a recommendation and a resize.
TEST(PrecheckTest, ExcludedContainersAreNeverRecommendedNorResized) {
  const std::string sidecars =
      "    - name: log-agent\n      requests: {cpu: 500m, memory: 512Mi}\n"
      "      model: {kind: steady, cpuCores: 50m, memoryBytes: 50Mi, noise: 0}\n"
      "    - name: istio-proxy\n      requests: {cpu: 500m, memory: 512Mi}\n"
      "      model: {kind: steady, cpuCores: 50m, memoryBytes: 50Mi, noise: 0}\n";
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web", .containerExtra = sidecars}),
      policyYaml(
          {.name = "web", .target = "web", .extra = "      excludedContainers: [log-agent]\n"})));
  ASSERT_TRUE(h.usable());
  ObservedMetricsSource source(h.sim().metrics());
  h.restartController(&source);
  h.runMinutes(1);
  const api::Pod before = h.pod("apps", "web");
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 20min));
  h.runMinutes(20);

  const api::Pod after = h.pod("apps", "web");
  EXPECT_TRUE(near(specResources(after, "app").cpuRequest, 300_m));
  for (std::string_view c : {"log-agent", "istio-proxy"}) {
    EXPECT_EQ(specResources(after, c), specResources(before, c)) << c;
    EXPECT_FALSE(
        after.metadata.annotations.contains("attune.io/original-restart-count." + std::string(c)));
  }
  const api::AttunePolicy p = h.policy("apps", "web");
  ASSERT_EQ(p.status.recommendations.size(), 1u);
  ASSERT_EQ(p.status.recommendations[0].containers.size(), 1u);
  EXPECT_EQ(p.status.recommendations[0].containers[0].name, "app");
  for (const auto& e : p.status.resizeHistory) EXPECT_EQ(e.container, "app");
  const std::string text = h.metricsText();
  EXPECT_EQ(text.find("log-agent"), std::string::npos);
  EXPECT_EQ(text.find("istio-proxy"), std::string::npos);
  // Never queried: every query excluded both containers, and no answer named them.
  ASSERT_FALSE(source.scopes().empty());
  for (const metrics::Scope& scope : source.scopes()) {
    EXPECT_TRUE(scope.excludes("log-agent"));
    EXPECT_TRUE(scope.excludes("istio-proxy"));
  }
  EXPECT_TRUE(source.containersReturned().contains("app"));
  EXPECT_FALSE(source.containersReturned().contains("log-agent"));
  EXPECT_FALSE(source.containersReturned().contains("istio-proxy"));
}

// An HPA scaling the workload on CPU: one informational HPAConflict Warning on the workload, and
// the resize goes ahead.
TEST(PrecheckTest, AnHpaOnTheWorkloadIsReportedAndTheResizeProceeds) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web"}), policyYaml({.name = "web", .target = "web"}),
      "  hpas:\n  - namespace: apps\n    name: web\n"
      "    scaleTargetRef: {kind: Deployment, name: web}\n    minReplicas: 1\n"
      "    maxReplicas: 4\n    metrics:\n    - type: Resource\n"
      "      resource: {name: cpu, target: {type: Utilization, averageUtilization: 70}}\n"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 30min));
  h.runMinutes(5);
  const auto conflicts = h.events("HPAConflict");
  ASSERT_EQ(conflicts.size(), 1u) << "deduplicated: one event however many passes see the HPA";
  EXPECT_EQ(conflicts[0].type, "Warning");
  EXPECT_EQ(conflicts[0].involvedObject.kind, "Deployment");
  EXPECT_EQ(conflicts[0].involvedObject.name, "web");
  EXPECT_GT(conflicts[0].count, 1) << "seen by several passes, counted on one event";
  EXPECT_EQ(h.actions(Kind::kResized).size(), 1u);
}

}  // namespace
}  // namespace attune::controller::testing
