// The recreate fallback with the pod admission webhook installed (in process, as `attune
// backtest` runs it): a pod whose resize stays Deferred is evicted after five minutes, and its
// replacement is created with the sizing the controller published for its workload.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/simulate_admission.h"
#include "controller/controller.h"
#include "metrics/exposition/registry.h"
#include "safety/resize_record.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"
#include "webhook/pod_sizing.h"

namespace attune::cli {
namespace {

// One 2-core node: `filler` takes 1200m, so web's resize to about 600m (it uses 400m on a
// 300m request) is Deferred by the kubelet.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: recreate}
spec:
  seed: 1
  start: "2026-01-05T00:00:00Z"
  duration: 24h
  tick: 60s
  nodePools: [{name: node, count: 1, cpu: "2", memory: 8Gi}]
  namespaces: [apps]
  workloads:
  - kind: Deployment
    namespace: apps
    name: filler
    containers:
    - name: app
      requests: {cpu: 1200m, memory: 256Mi}
      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}
  - kind: Deployment
    namespace: apps
    name: web
    replicas: 2
    containers:
    - name: app
      requests: {cpu: 300m, memory: 256Mi}
      model: {kind: steady, cpuCores: 400m, memoryBytes: 170Mi, noise: 0}
  policies:
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: web, namespace: apps}
    spec:
      targetRef: {kind: Deployment, name: web}
      metricsSource: {historyWindow: 24h, minimumDataPoints: 3, queryStep: 1m}
      cpu: {maxChangePercent: 100, overhead: "0"}
      updateStrategy: {type: Auto, resizeMethod: InPlaceOrRecreate}
)";

const api::WorkloadRef kWeb{"apps", "Deployment", "web"};

TEST(SimulateRecreateTest, TheReplacementOfAnEvictedPodIsSizedByTheWebhook) {
  auto decoded = sim::decodeScenario(kScenario);
  ASSERT_TRUE(decoded.scenario.has_value());
  for (const auto& e : decoded.errors) ADD_FAILURE() << sim::formatDiagnostic("scenario", e);
  controller::AdmissionSizing sizing;
  AdmissionCounts counts;
  auto sim = std::move(sim::Simulation::create(*decoded.scenario).value());
  sim->state().setPodAdmission(inProcessPodAdmission(sizing, &counts));
  metrics::Registry registry;
  controller::ControllerOptions options;
  options.admissionSizing = &sizing;
  controller::Controller controller(sim->api(), sim->metrics(), sim->clock(), registry, options);
  std::vector<controller::ActionRecord> actions;
  controller.setObserver([&](const controller::ActionRecord& a) { actions.push_back(a); });

  std::string evicted;
  for (int minute = 0; minute < 40 && evicted.empty(); ++minute) {
    ASSERT_TRUE(sim->step().has_value());
    ASSERT_TRUE(controller.reconcileDue().has_value());
    for (const auto& a : actions) {
      if (a.kind == controller::ActionRecord::Kind::kEvicted) evicted = a.pod;
    }
  }
  ASSERT_FALSE(evicted.empty()) << "no pod was evicted";
  for (int minute = 0; minute < 2; ++minute) ASSERT_TRUE(sim->step().has_value());

  const auto published = sizing.lookup(kWeb);
  ASSERT_TRUE(published.has_value());
  ASSERT_TRUE(published->front().cpuRequest.has_value());
  int sized = 0;
  for (const api::Pod& p : sim->state().pods.list(api::ListOptions{.namespace_ = "apps"})) {
    if (p.metadata.deletionTimestamp || !p.metadata.name.starts_with("web")) continue;
    EXPECT_NE(p.metadata.name, evicted);
    auto mark = p.metadata.annotations.find(webhook::kAdmissionSizedAnnotation);
    if (mark == p.metadata.annotations.end()) continue;
    ++sized;
    const api::Container* c = p.spec.findContainer("app");
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(safety::resourceValuesOf(c->resources).cpuRequest, published->front().cpuRequest);
    EXPECT_EQ(p.status.phase, "Running") << "the sized replacement fits the node";
  }
  EXPECT_EQ(sized, 1) << "the replacement, and only it, was sized by the webhook";
  EXPECT_GE(counts.sized, 1);
}

}  // namespace
}  // namespace attune::cli
