// The auto-tune scenario of docs/hpa.md: an HPA on 60 % CPU utilization over a `service`
// Deployment whose CPU requests Attune halves, run by the simulator's HPA controller. Without the
// retune the HPA adds replicas (the savings turn into pods); with it (the HPA annotated
// attune.io/auto-tune: "true") the replica count stays put and target × request per pod is
// unchanged; an OOM revert puts back both the requests and the target.
//
// The workload: 4 replicas of `app` (500m, serving 100 requests/s at 10m each, plus 50m base:
// 300m per pod at 4 replicas) and a `log-shipper` sidecar (30m, using 10m; 128Mi of memory,
// leaking 40Mi/h from 40Mi, so that its 256Mi limit lasts for hours but the ~128Mi Attune gives
// it, 1.5 × the working set with limits following requests, is reached about two hours in).
// At 4 replicas the pod uses 310m of 530m (58 %), at the HPA's target. The policy caps CPU at
// 250m: `app` goes to 250m, the sidecar to 15m (1.5 × its usage), 265m per pod.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

constexpr std::int32_t kOriginalTarget = 60;
constexpr std::int64_t kOriginalPodRequest = 530;  // millicores: app 500m + log-shipper 30m

std::string autotuneScenario(bool optIn) {
  const std::string annotations = optIn ? "{attune.io/auto-tune: \"true\"}" : "{}";
  const std::string sidecar =
      "    - name: log-shipper\n"
      "      requests: {cpu: 30m, memory: 128Mi}\n"
      "      limits: {cpu: 60m, memory: 256Mi}\n"
      "      model: {kind: memory-leak, cpuCores: 10m, memoryBytes: 40Mi, leakBytesPerHour: 40Mi, "
      "noise: 0}\n";
  return scenarioYaml(
      workloadYaml({.name = "api",
                    .replicas = 4,
                    .requests = "{cpu: 500m, memory: 128Mi}",
                    .limits = "{cpu: \"1\", memory: 256Mi}",
                    .model = "{kind: service, requestsPerSecond: 100, cpuPerRequest: 10m, "
                             "cpuCores: 50m, memoryBytes: 64Mi, noise: 0}",
                    .containerExtra = sidecar}),
      policyYaml(
          {.name = "api",
           .target = "api",
           .updateStrategy = "{type: Auto, maxConcurrentResizes: 20, safetyObservationPeriod: 5h}",
           .cpu = "maxAllowed: 250m",
           .memory = "maxAllowed: 100Mi"}),
      "  hpas:\n  - namespace: apps\n    name: api\n    annotations: " + annotations +
          "\n    scaleTargetRef: {kind: Deployment, name: api}\n    minReplicas: 2\n"
          "    maxReplicas: 20\n    metrics:\n    - type: Resource\n"
          "      resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}\n");
}

std::int32_t replicas(ScenarioHarness& h) {
  return h.sim().state().deployments.find("apps", "api")->spec.replicas.value_or(1);
}

std::int32_t hpaTarget(ScenarioHarness& h) {
  auto hpa = h.sim().api().getHpa("apps", "api");
  EXPECT_TRUE(hpa.has_value());
  if (!hpa) return -1;
  return hpa->spec.metrics.at(0).resource->target.averageUtilization.value_or(-1);
}

// The CPU requests of one pod (all containers), averaged over the running pods, in millicores.
double podRequest(ScenarioHarness& h) {
  const auto pods = h.pods("apps", "api");
  if (pods.empty()) return 0;
  std::int64_t sum = 0;
  for (const api::Pod& p : pods) {
    for (const char* c : {"app", "log-shipper"}) {
      sum += specResources(p, c).cpuRequest.value_or(0_m).value();
    }
  }
  return static_cast<double>(sum) / static_cast<double>(pods.size());
}

struct Outcome {
  std::int32_t before = 0;  // replicas when Attune first resized
  std::int32_t after = 0;   // replicas at the end of the run
  std::int32_t most = 0;    // the largest replica count seen
  double podHours = 0;      // running pods × time, over the whole run
  double cpuCoreHours = 0;  // their CPU requests × time
  double podRequest = 0;    // millicores per pod at the end
  std::int32_t target = 0;  // the HPA's target at the end
};

constexpr auto kRun = 90min;

// Runs the scenario for kRun, a minute at a time, sampling the running pods.
Outcome runScenario(ScenarioHarness& h) {
  Outcome out;
  for (auto t = 0min; t < kRun; t += 1min) {
    h.run(1min);
    if (out.before == 0 && !h.actions(Kind::kResized).empty()) {
      // The HPA synced in this tick before the controller's pass: the count before the resize.
      out.before = replicas(h);
    }
    out.most = std::max(out.most, replicas(h));
    const double pods = static_cast<double>(h.pods("apps", "api").size());
    out.podHours += pods / 60.0;
    out.cpuCoreHours += pods * podRequest(h) / 1000.0 / 60.0;
  }
  out.after = replicas(h);
  out.podRequest = podRequest(h);
  out.target = hpaTarget(h);
  return out;
}

void report(const char* variant, const Outcome& o) {
  std::printf(
      "[hpa-autotune] %s: replicas %d before the resize, %d after 90 min (max %d); %.2f "
      "pod-hours and %.2f requested cpu core-hours over 90 min; %.0fm cpu requested per pod; "
      "HPA target %d%%\n",
      variant, o.before, o.after, o.most, o.podHours, o.cpuCoreHours, o.podRequest, o.target);
  const std::string prefix = std::string(variant) + "_";
  ::testing::Test::RecordProperty(prefix + "replicas_before", o.before);
  ::testing::Test::RecordProperty(prefix + "replicas_after", o.after);
  ::testing::Test::RecordProperty(prefix + "pod_hours", std::to_string(o.podHours));
  ::testing::Test::RecordProperty(prefix + "cpu_core_hours", std::to_string(o.cpuCoreHours));
}

TEST(HpaAutotuneScenarioTest, WithoutTheRetuneTheHpaTurnsTheSavingsIntoReplicas) {
  ScenarioHarness h(autotuneScenario(/*optIn=*/false));
  ASSERT_TRUE(h.usable());
  const Outcome o = runScenario(h);
  report("without_retune", o);
  EXPECT_EQ(o.before, 4);
  EXPECT_LT(o.podRequest, 300) << "Attune halved the requests";
  EXPECT_EQ(o.target, kOriginalTarget);
  EXPECT_GE(o.after, 7) << "the HPA scaled out on the lower requests";
}

TEST(HpaAutotuneScenarioTest, WithTheRetuneTheReplicasAndTheScalingPointStay) {
  ScenarioHarness h(autotuneScenario(/*optIn=*/true));
  ASSERT_TRUE(h.usable());
  const Outcome o = runScenario(h);
  report("with_retune", o);
  EXPECT_EQ(o.before, 4);
  EXPECT_LT(o.podRequest, 300) << "Attune halved the requests";
  EXPECT_LE(std::abs(o.after - o.before), 1);
  EXPECT_LE(std::abs(o.most - o.before), 1);
  // target × request per pod: 60 % × 530m before; the target is rounded to a whole percent.
  const double kept = o.target * o.podRequest;
  EXPECT_NEAR(kept, kOriginalTarget * kOriginalPodRequest, o.podRequest / 2)
      << "target " << o.target << "% × " << o.podRequest << "m";

  // The sidecar's leak reaches its lowered memory limit: the OOM kills are reverted, and the
  // passes that revert put the target back with the requests.
  ASSERT_TRUE(h.runUntil(
      [&] {
        const auto pods = h.pods("apps", "api");
        return !h.actions(Kind::kReverted).empty() &&
               std::all_of(pods.begin(), pods.end(), [](const api::Pod& p) {
                 return specResources(p, "app").cpuRequest == 500_m;
               });
      },
      5h));
  EXPECT_EQ(h.actions(Kind::kReverted).front().reason, "oomkill");
  EXPECT_DOUBLE_EQ(podRequest(h), kOriginalPodRequest);
  EXPECT_EQ(hpaTarget(h), kOriginalTarget);
  std::printf(
      "[hpa-autotune] with_retune after the revert (%s into the run): %.0fm per pod, HPA "
      "target %d%%, %d replicas\n",
      formatDuration(h.elapsed()).c_str(), podRequest(h), hpaTarget(h), replicas(h));
}

}  // namespace
}  // namespace attune::controller::testing
