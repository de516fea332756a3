// A small simulation with request counters, shared by the tests of PromQL over the recorded
// history (RecordedSeries, SimScalarQuery).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string_view>

#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::sim::testing {

// `api` serves 100 requests/s, `web` 40/s; from 30 to 40 min `api` drops to 10 % of its rate.
inline constexpr std::string_view kRequestsScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: requests}
spec:
  start: "2026-01-05T00:00:00Z"
  duration: 1h
  tick: 15s
  nodePools: [{name: node, count: 2, cpu: "8", memory: 32Gi}]
  workloads:
  - kind: Deployment
    namespace: shop
    name: api
    replicas: 2
    containers:
    - name: app
      requests: {cpu: 500m, memory: 256Mi}
      model: {kind: service, requestsPerSecond: 100, cpuPerRequest: 1m, memoryBytes: 64Mi,
              noise: 0, rateChanges: [{from: 30m, to: 40m, factor: 0.1}]}
  - kind: Deployment
    namespace: shop
    name: web
    replicas: 1
    containers:
    - name: app
      requests: {cpu: 500m, memory: 256Mi}
      model: {kind: service, requestsPerSecond: 40, cpuPerRequest: 1m, memoryBytes: 64Mi,
              noise: 0}
)";

// The simulation of kRequestsScenario, not stepped yet; null (with a test failure) when it
// cannot be built.
inline std::unique_ptr<Simulation> requestsSimulation() {
  DecodedScenario d = decodeScenario(kRequestsScenario, {});
  EXPECT_TRUE(d.scenario.has_value());
  if (!d.scenario) return nullptr;
  auto sim = Simulation::create(*d.scenario);
  EXPECT_TRUE(sim.has_value()) << sim.error().toString();
  return sim ? std::move(*sim) : nullptr;
}

}  // namespace attune::sim::testing
