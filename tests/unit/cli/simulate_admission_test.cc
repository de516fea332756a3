// CruiseKube's Phase 1 in a backtest (cli/simulate_admission.h): with the in-process pod
// admission webhook installed, a pod the simulated cluster recreates for a workload whose sizing
// the controller published is created with that sizing — requests at the peak, memory limit twice
// the maximum, no CPU limit — and marked attune.io/admission-sized; without it, as its template
// asks.
#include "cli/simulate_admission.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controller/controller.h"
#include "metrics/exposition/registry.h"
#include "safety/resize_record.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"
#include "webhook/pod_sizing.h"

namespace attune::cli {
namespace {

// One steady pod (200m, 200Mi) that asks for far more; its policy (Auto: only Auto policies
// publish sizing) manages limits too.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: admission}
spec:
  seed: 1
  start: "2026-01-05T00:00:00Z"
  duration: 24h
  tick: 60s
  nodePools: [{name: node, count: 1, cpu: "8", memory: 32Gi}]
  namespaces: [apps]
  workloads:
  - kind: Deployment
    namespace: apps
    name: web
    containers:
    - name: app
      requests: {cpu: 500m, memory: 512Mi}
      limits: {cpu: "1", memory: 1Gi}
      model: {kind: steady, cpuCores: 200m, memoryBytes: 200Mi, noise: 0}
  policies:
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: web, namespace: apps}
    spec:
      targetRef: {kind: Deployment, name: web}
      metricsSource: {historyWindow: 24h, minimumDataPoints: 3, queryStep: 1m}
      cpu: {controlledValues: RequestsAndLimits}
      memory: {controlledValues: RequestsAndLimits}
      updateStrategy: {type: Auto}
)";

const api::WorkloadRef kWeb{"apps", "Deployment", "web"};

// The simulation and a controller publishing its sizing, as `attune backtest
// --node-optimisation on` runs them; with `hook`, the in-process admission is installed.
struct Backtest {
  explicit Backtest(bool hook) {
    auto decoded = sim::decodeScenario(kScenario);
    EXPECT_TRUE(decoded.scenario.has_value());
    for (const auto& e : decoded.errors) ADD_FAILURE() << sim::formatDiagnostic("scenario", e);
    sim = std::move(sim::Simulation::create(*decoded.scenario).value());
    if (hook) sim->state().setPodAdmission(inProcessPodAdmission(sizing, &counts));
    controller::ControllerOptions options;
    options.admissionSizing = &sizing;
    controller = std::make_unique<controller::Controller>(sim->api(), sim->metrics(), sim->clock(),
                                                          registry, options);
  }
  void runMinutes(int minutes) {
    for (int i = 0; i < minutes; ++i) {
      ASSERT_TRUE(sim->step().has_value());
      ASSERT_TRUE(controller->reconcileDue().has_value());
    }
  }
  std::vector<api::Pod> pods() {
    std::vector<api::Pod> out;
    for (api::Pod& p : sim->state().pods.list(api::ListOptions{.namespace_ = "apps"})) {
      if (!p.metadata.deletionTimestamp) out.push_back(std::move(p));
    }
    return out;
  }
  // Deletes the workload's pod; its ReplicaSet creates another at the next tick.
  api::Pod recreate() {
    std::vector<api::Pod> before = pods();
    EXPECT_EQ(before.size(), 1u);
    EXPECT_TRUE(sim->state().deletePod("apps", before.at(0).metadata.name).has_value());
    runMinutes(2);
    std::vector<api::Pod> after = pods();
    EXPECT_EQ(after.size(), 1u);
    EXPECT_NE(after.at(0).metadata.name, before.at(0).metadata.name);
    return after.at(0);
  }

  controller::AdmissionSizing sizing;  // outlives the simulation that reads it
  AdmissionCounts counts;
  std::unique_ptr<sim::Simulation> sim;
  metrics::Registry registry;
  std::unique_ptr<controller::Controller> controller;
};

api::ResourceValues resourcesOf(const api::Pod& pod) {
  const api::Container* c = pod.spec.findContainer("app");
  EXPECT_NE(c, nullptr);
  return c == nullptr ? api::ResourceValues{} : safety::resourceValuesOf(c->resources);
}

std::string annotation(const api::Pod& pod, std::string_view key) {
  auto it = pod.metadata.annotations.find(key);
  return it == pod.metadata.annotations.end() ? "" : it->second;
}

TEST(SimulateAdmissionTest, ARecreatedPodGetsItsWorkloadsPublishedSizing) {
  Backtest b(/*hook=*/true);
  b.runMinutes(30);
  const auto published = b.sizing.lookup(kWeb);
  ASSERT_TRUE(published.has_value()) << "the controller published no sizing for apps/web";
  ASSERT_EQ(published->size(), 1u);
  const webhook::ContainerSizing& s = published->front();
  // The peak of a steady 200m / 200Mi; the memory limit twice the maximum; no CPU limit.
  ASSERT_TRUE(s.cpuRequest && s.memoryRequest && s.memoryLimit);
  EXPECT_NEAR(static_cast<double>(s.cpuRequest->value()), 200, 200 * 0.03);
  EXPECT_NEAR(static_cast<double>(s.memoryRequest->value()), 200 << 20, (200 << 20) * 0.03);
  EXPECT_EQ(s.memoryLimit->value(), 2 * s.memoryRequest->value());
  EXPECT_TRUE(s.removeCpuLimit);

  const api::Pod pod = b.recreate();
  const api::ResourceValues r = resourcesOf(pod);
  EXPECT_EQ(r.cpuRequest, s.cpuRequest);
  EXPECT_EQ(r.memoryRequest, s.memoryRequest);
  EXPECT_EQ(r.memoryLimit, s.memoryLimit);
  EXPECT_FALSE(r.cpuLimit.has_value()) << r.cpuLimit->value();
  EXPECT_EQ(annotation(pod, webhook::kAdmissionSizedAnnotation), webhook::kAdmissionSized);
  EXPECT_EQ(b.counts.sized, 1);
  // Created as admitted: scheduled and running with those resources.
  b.runMinutes(2);
  const std::vector<api::Pod> running = b.pods();
  ASSERT_EQ(running.size(), 1u);
  EXPECT_EQ(running[0].status.phase, "Running");
  EXPECT_EQ(resourcesOf(running[0]).memoryLimit, s.memoryLimit);
}

TEST(SimulateAdmissionTest, WithoutTheHookTheRecreatedPodAsksWhatItsTemplateSays) {
  Backtest b(/*hook=*/false);
  b.runMinutes(30);
  ASSERT_TRUE(b.sizing.lookup(kWeb).has_value());
  const api::Pod pod = b.recreate();
  const api::ResourceValues r = resourcesOf(pod);
  EXPECT_EQ(r.cpuRequest, Millicores(500));
  EXPECT_EQ(r.memoryRequest, Bytes(512LL << 20));
  EXPECT_EQ(r.cpuLimit, Millicores(1000));
  EXPECT_EQ(r.memoryLimit, Bytes(1LL << 30));
  EXPECT_EQ(annotation(pod, webhook::kAdmissionSizedAnnotation), "");
  EXPECT_EQ(b.counts.sized, 0);
}

TEST(SimulateAdmissionTest, APodOfAWorkloadWithoutSizingIsAdmittedAsItIs) {
  controller::AdmissionSizing empty;
  AdmissionCounts counts;
  const auto admit = inProcessPodAdmission(empty, &counts);
  api::Pod pod;
  pod.metadata.namespace_ = "apps";
  pod.metadata.generateName = "web-5c8d-";
  pod.metadata.labels = {{"pod-template-hash", "5c8d"}};
  pod.metadata.ownerReferences = {
      api::OwnerReference{"apps/v1", "ReplicaSet", "web-5c8d", "u", true}};
  pod.spec.containers.push_back(api::Container{.name = "app"});
  auto admitted = admit(pod);
  ASSERT_TRUE(admitted.has_value());
  EXPECT_EQ(*admitted, pod);
  EXPECT_EQ(counts.sized + counts.unchanged, 0);
}

}  // namespace
}  // namespace attune::cli
