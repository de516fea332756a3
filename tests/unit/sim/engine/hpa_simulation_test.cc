// The HPA controller in a running simulation: a `service` workload whose load its ready
// replicas share, scaled by an HPA on CPU utilization.
#include <gtest/gtest.h>

#include <iostream>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

// 4 replicas requesting 500m; 100 requests/s at 10m each, plus 50m base: 300m per pod, 60 % of
// the request, which is the HPA's target.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: hpa}
spec:
  start: "2026-01-05T00:00:00Z"
  duration: 2h
  tick: 15s
  nodePools: [{name: node, count: 4, cpu: "8", memory: 32Gi}]
  workloads:
  - kind: Deployment
    namespace: shop
    name: api
    replicas: 4
    containers:
    - name: app
      requests: {cpu: 500m, memory: 256Mi}
      model: {kind: service, requestsPerSecond: 100, cpuPerRequest: 10m, cpuCores: 50m,
              memoryBytes: 128Mi, noise: 0.02}
  hpas:
  - namespace: shop
    name: api
    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
    minReplicas: 2
    maxReplicas: 20
    metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
)";

std::unique_ptr<Simulation> simulation() {
  DecodedScenario d = decodeScenario(kScenario, {});
  std::string errors;
  for (const auto& e : d.errors) errors += formatDiagnostic("t.yaml", e) + "\n";
  EXPECT_TRUE(d.scenario.has_value()) << errors;
  if (!d.scenario) return nullptr;
  auto sim = Simulation::create(*d.scenario);
  EXPECT_TRUE(sim.has_value()) << (sim ? "" : sim.error().toString());
  return sim ? std::move(*sim) : nullptr;
}

std::int32_t replicas(const Simulation& sim) {
  return sim.state().deployments.find("shop", "api")->spec.replicas.value_or(1);
}

// Resizes every pod of shop still requesting 500m CPU to 250m.
void halveRequests(Simulation& sim) {
  std::vector<std::pair<std::string, api::ContainerResize>> resizes;
  sim.state().pods.forEachInNamespace("shop", [&](const api::Pod& p) {
    const auto& resources = p.spec.containers[0].resources;
    if (resources.requests.cpu != Quantity::parse("500m").value()) return;
    api::ContainerResize resize{"app", resources};
    resize.resources.requests.cpu = Quantity::parse("250m").value();
    resizes.emplace_back(p.metadata.name, resize);
  });
  for (const auto& [pod, resize] : resizes) {
    ASSERT_TRUE(sim.api().resizePod("shop", pod, std::span(&resize, 1)));
  }
}

TEST(HpaSimulationTest, HalvingTheCpuRequestMakesTheHpaAddReplicas) {
  auto sim = simulation();
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(30min));
  const std::int32_t before = replicas(*sim);
  EXPECT_GE(before, 3);
  EXPECT_LE(before, 5);

  // Halve every pod's CPU request in place, as the operator would, including the pods the HPA
  // adds (they start from the template's 500m), once a minute.
  for (int minute = 0; minute < 30; ++minute) {
    halveRequests(*sim);
    ASSERT_TRUE(sim->runFor(1min));
  }
  const std::int32_t after = replicas(*sim);
  std::cout << "replicas before the resize: " << before << ", 30 min after: " << after << "\n";
  // Every pod at 250m: (1 core + 50m × n) / (250m × n) = 60 % at n = 10.
  EXPECT_GE(after, before + 4);
  const auto hpa = sim->state().hpas.get("shop", "api").value();
  EXPECT_EQ(hpa.status.currentReplicas, after);
  EXPECT_TRUE(hpa.status.lastScaleTime.has_value());
}

TEST(HpaSimulationTest, ServiceLoadIsSharedByTheReadyReplicas) {
  auto sim = simulation();
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(10min));
  double cpu = 0;
  int running = 0;
  for (const auto& [uid, pod] : sim->kubelet().pods()) {
    for (const auto& c : pod.containers) {
      cpu += c.cpuUsageCores;
      ++running;
    }
  }
  ASSERT_GT(running, 0);
  // 100 requests/s × 10m = 1 core shared, plus 50m per pod.
  EXPECT_NEAR(cpu, 1.0 + 0.05 * running, 0.1);
  const auto requests = sim->requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].kindLabel, "deployment");
  EXPECT_NEAR(requests[0].total, 100.0 * 600, 1);
}

}  // namespace
}  // namespace attune::sim
