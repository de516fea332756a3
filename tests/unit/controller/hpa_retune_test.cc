// HPA-aware resizing end to end (controller/hpa_retunes.h, hpa/retune.h): an HPA scaling a
// Deployment on cpu utilization, stored in the simulated cluster (no HPA controller runs, so
// replicas stay put), and the controller resizing the Deployment's pods. The HPA opted in keeps
// target × sum(requests); a revert, pausing and deleting the policy put the original back; an
// HPA that did not opt in is left alone with the informational HPAConflict; a crash between the
// resizes and the HPA write converges on the next pass.
#include <gtest/gtest.h>

#include "api/forwarding_cluster_api.h"
#include "core/units.h"
#include "hpa/retune.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

constexpr std::int32_t kOriginalTarget = 60;

// An HPA `name` on Deployment `target`: cpu Utilization 60 %, with `annotations` (flow map).
std::string hpaYaml(std::string_view target, std::string_view annotations) {
  return "  hpas:\n  - namespace: apps\n    name: " + std::string(target) +
         "\n    annotations: " + std::string(annotations) +
         "\n    scaleTargetRef: {kind: Deployment, name: " + std::string(target) +
         "}\n    minReplicas: 1\n    maxReplicas: 10\n    metrics:\n    - type: Resource\n"
         "      resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}\n";
}

constexpr std::string_view kOptIn = "{attune.io/auto-tune: \"true\"}";

// Two replicas requesting 500m cpu and using 200m: both resized to about 300m in one pass.
std::string webScenario(std::string_view annotations = kOptIn) {
  return scenarioYaml(workloadYaml({.name = "web", .replicas = 2}),
                      policyYaml({.name = "web",
                                  .target = "web",
                                  .updateStrategy = "{type: Auto, maxConcurrentResizes: 2}"}),
                      hpaYaml("web", annotations));
}

api::HorizontalPodAutoscaler hpaOf(ScenarioHarness& h, std::string_view name = "web") {
  auto got = h.sim().api().getHpa("apps", name);
  EXPECT_TRUE(got.has_value());
  return got.value_or(api::HorizontalPodAutoscaler{});
}

std::int32_t target(const api::HorizontalPodAutoscaler& hpa) {
  return hpa.spec.metrics.at(0).resource->target.averageUtilization.value_or(-1);
}

// The sum of the cpu requests of the workload's running pods, in millicores.
std::int64_t cpuRequests(ScenarioHarness& h, std::string_view workload) {
  std::int64_t sum = 0;
  for (const api::Pod& p : h.pods("apps", workload)) {
    sum += specResources(p, "app").cpuRequest.value_or(0_m).value();
  }
  return sum;
}

// target × sum(requests) is the original 60 % × 500m × pods, within the rounding of the
// target to a whole percent.
::testing::AssertionResult scalingPointKept(ScenarioHarness& h, std::string_view workload,
                                            std::int64_t pods) {
  const std::int64_t sum = cpuRequests(h, workload);
  const std::int64_t kept = static_cast<std::int64_t>(target(hpaOf(h, workload))) * sum;
  const std::int64_t original = kOriginalTarget * 500 * pods;
  if (std::abs(kept - original) * 2 <= sum) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "target " << target(hpaOf(h, workload)) << " × " << sum
                                       << "m = " << kept << ", want " << original;
}

bool resizedBelow(ScenarioHarness& h, std::string_view workload, Millicores below) {
  const auto pods = h.pods("apps", workload);
  if (pods.empty()) return false;
  for (const api::Pod& p : pods) {
    if (specResources(p, "app").cpuRequest >= below) return false;
  }
  return true;
}

TEST(HpaRetuneTest, TheTargetFollowsTheResizeInTheSamePass) {
  ScenarioHarness h(webScenario());
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() == 2; }, 30min));
  // Checked right after the pass that resized: the HPA was written in the same plan.
  ASSERT_TRUE(resizedBelow(h, "web", 400_m));
  EXPECT_TRUE(scalingPointKept(h, "web", 2));
  EXPECT_GT(target(hpaOf(h)), 90);
  const api::HorizontalPodAutoscaler hpa = hpaOf(h);
  const std::string& originals =
      hpa.metadata.annotations.at(std::string(hpa::kOriginalTargetsAnnotation));
  EXPECT_NE(originals.find(R"("Resource/cpu":{"podRequest":"500m")"), std::string::npos)
      << originals;
  EXPECT_NE(originals.find(R"("target":60)"), std::string::npos) << originals;
  EXPECT_EQ(hpa::retunedBy(hpa.metadata), "apps/web");

  const auto retuned = h.events("HPARetuned");
  ASSERT_EQ(retuned.size(), 1u);
  EXPECT_EQ(retuned[0].type, "Normal");
  EXPECT_EQ(retuned[0].involvedObject.kind, "HorizontalPodAutoscaler");
  EXPECT_NE(retuned[0].message.find("cpu utilization target 60% -> "), std::string::npos)
      << retuned[0].message;
  EXPECT_NE(retuned[0].message.find("attune.io/auto-tune"), std::string::npos);
  EXPECT_TRUE(h.events("HPAConflict").empty()) << "a retuned HPA is no conflict";
  EXPECT_EQ(h.metric(R"(attune_hpa_retunes_total{namespace="apps",hpa="web",result="retuned"})"),
            1.0);
  const auto entries = history(h.policy("apps", "web"), api::ResizeResult::kSuccess);
  EXPECT_TRUE(std::any_of(entries.begin(), entries.end(), [](const auto& e) {
    return e.from == "60%" && e.reason.starts_with("HPARetuned");
  }));

  // Later passes find the HPA where it should be: nothing more is written.
  h.runMinutes(30);
  EXPECT_EQ(h.events("HPARetuned").size(), 1u);
  EXPECT_TRUE(scalingPointKept(h, "web", 2));
}

TEST(HpaRetuneTest, ARevertPutsTheTargetBackWithTheRequests) {
  // Memory grows past the capped limit: the resize is reverted (OOM kill).
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "leaky",
                                 .model = "{kind: memory-leak, cpuCores: 200m, memoryBytes: 200Mi, "
                                          "leakBytesPerHour: 1200Mi, noise: 0}"}),
                   policyYaml({.name = "leaky",
                               .target = "leaky",
                               .updateStrategy = "{type: Auto, safetyObservationPeriod: 1h}",
                               .memory = "maxAllowed: 300Mi"}),
                   hpaYaml("leaky", kOptIn)));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 30min));
  EXPECT_TRUE(scalingPointKept(h, "leaky", 1));
  EXPECT_GT(target(hpaOf(h, "leaky")), kOriginalTarget);
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 1h));
  // The pass that reverted the pod also put the target back.
  EXPECT_EQ(specResources(h.pod("apps", "leaky"), "app").cpuRequest, 500_m);
  EXPECT_EQ(target(hpaOf(h, "leaky")), kOriginalTarget);
  EXPECT_EQ(h.events("HPARetuned").size(), 2u);
}

TEST(HpaRetuneTest, PausingThePolicyRestoresTheOriginalTarget) {
  ScenarioHarness h(webScenario());
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return target(hpaOf(h)) != kOriginalTarget; }, 30min));
  api::AttunePolicy paused = h.policy("apps", "web");
  paused.spec.paused = true;
  ASSERT_TRUE(h.sim().api().updateAttunePolicy(paused).has_value());
  h.runMinutes(2);
  const api::HorizontalPodAutoscaler hpa = hpaOf(h);
  EXPECT_EQ(target(hpa), kOriginalTarget);
  EXPECT_FALSE(hpa.metadata.annotations.contains(std::string(hpa::kOriginalTargetsAnnotation)));
  EXPECT_TRUE(hpa.metadata.annotations.contains(std::string(hpa::kAutoTuneAnnotation)));
  EXPECT_TRUE(resizedBelow(h, "web", 400_m)) << "pausing leaves the pods as they are";
  EXPECT_EQ(h.metric(R"(attune_hpa_retunes_total{namespace="apps",hpa="web",result="restored"})"),
            1.0);
}

TEST(HpaRetuneTest, DeletingThePolicyRestoresTheOriginalTarget) {
  ScenarioHarness h(webScenario());
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return target(hpaOf(h)) != kOriginalTarget; }, 30min));
  ASSERT_TRUE(h.sim().state().attunePolicies.erase("apps", "web").has_value());
  h.runMinutes(1);
  const api::HorizontalPodAutoscaler hpa = hpaOf(h);
  EXPECT_EQ(target(hpa), kOriginalTarget);
  EXPECT_FALSE(hpa.metadata.annotations.contains(std::string(hpa::kOriginalTargetsAnnotation)));
  const auto events = h.events("HPARetuned");
  ASSERT_FALSE(events.empty());
  EXPECT_NE(events.back().message.find("original targets restored"), std::string::npos)
      << events.back().message;
}

TEST(HpaRetuneTest, AnHpaThatDidNotOptInIsLeftAloneAndReported) {
  for (std::string_view annotations : {"{}", "{attune.io/auto-tune: \"false\"}"}) {
    ScenarioHarness h(webScenario(annotations));
    ASSERT_TRUE(h.usable());
    ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() == 2; }, 30min));
    h.runMinutes(2);
    const api::HorizontalPodAutoscaler hpa = hpaOf(h);
    EXPECT_EQ(target(hpa), kOriginalTarget) << annotations;
    EXPECT_FALSE(hpa.metadata.annotations.contains(std::string(hpa::kOriginalTargetsAnnotation)));
    EXPECT_TRUE(h.events("HPARetuned").empty());
    const auto conflicts = h.events("HPAConflict");
    ASSERT_EQ(conflicts.size(), 1u);
    EXPECT_NE(conflicts[0].message.find("Utilization 60%"), std::string::npos)
        << conflicts[0].message;
  }
}

// Fails some writes, as told: every HPA write (the operator dies after the resizes, before the
// HPA) and every resize (refused, as an API server rejecting it would).
struct Failing {
  bool hpaWrites = false;
  bool resizes = false;
};
class FailingWrites final : public api::ForwardingClusterApi {
 public:
  FailingWrites(api::ClusterApi& inner, const Failing& failing)
      : ForwardingClusterApi(inner), failing_(failing) {}
  Result<api::HorizontalPodAutoscaler> updateHpa(const api::HorizontalPodAutoscaler& hpa) override {
    if (failing_.hpaWrites) {
      return std::unexpected(Error{ErrorCode::kUnavailable, "operator stopped", ""});
    }
    return ForwardingClusterApi::updateHpa(hpa);
  }
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override {
    if (failing_.resizes) {
      return std::unexpected(Error{ErrorCode::kInvalidArgument, "resize refused", ""});
    }
    return ForwardingClusterApi::resizePod(ns, name, containers);
  }

 private:
  const Failing& failing_;
};

HarnessOptions failingWrites(const Failing& failing) {
  HarnessOptions options;
  options.wrapApi = [&failing](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<FailingWrites>(cluster, failing);
  };
  return options;
}

// The HPA is written only after the resizes of its workload succeed.
TEST(HpaRetuneTest, NoHpaWriteWhenTheResizesOfThePassFailed) {
  Failing failing{.hpaWrites = false, .resizes = true};
  ScenarioHarness h(webScenario(), failingWrites(failing));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResizeFailed).empty(); }, 30min));
  h.runMinutes(5);
  EXPECT_EQ(target(hpaOf(h)), kOriginalTarget);
  EXPECT_TRUE(h.events("HPARetuned").empty());
  failing.resizes = false;
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() == 2; }, 30min));
  EXPECT_TRUE(scalingPointKept(h, "web", 2));
}

TEST(HpaRetuneTest, ACrashBetweenTheResizesAndTheHpaWriteConvergesOnTheNextPass) {
  Failing failing{.hpaWrites = true, .resizes = false};
  ScenarioHarness h(webScenario(), failingWrites(failing));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResized).size() == 2; }, 30min));
  EXPECT_EQ(target(hpaOf(h)), kOriginalTarget) << "the HPA write was lost";
  // A new operator, with no memory: the originals come from the pods' resize records.
  h.restartController();
  failing.hpaWrites = false;
  h.runMinutes(2);
  EXPECT_TRUE(scalingPointKept(h, "web", 2));
  EXPECT_NE(hpaOf(h)
                .metadata.annotations.at(std::string(hpa::kOriginalTargetsAnnotation))
                .find(R"("podRequest":"500m","retuned":)"),
            std::string::npos);
}

}  // namespace
}  // namespace attune::controller::testing
