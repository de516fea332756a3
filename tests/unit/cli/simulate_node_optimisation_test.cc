// Continuous node optimisation in `attune backtest` (--node-optimisation): compared off and on
// from the same seed, the "on" run has every policy opted in and its pods share their node's
// headroom, so it requests clearly less CPU than the policies' own strategy gives them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/simulate_run.h"
#include "report/simulation_report.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::cli {
namespace {

// Four bursty workloads (100m most of the time, 500m in one tick of ten) on one 4-core node, each
// with its own Auto policy. Alone each is sized for its spikes; node optimisation gives each its
// base and a share of the one largest spike the node keeps room for.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: shared-spikes}
spec:
  seed: 3
  start: "2026-01-05T00:00:00Z"
  duration: 6h
  tick: 60s
  nodePools: [{name: node, count: 1, cpu: "4", memory: 16Gi}]
  namespaces: [apps]
  workloads:
)";

std::string workload(const std::string& name) {
  return "  - kind: Deployment\n    namespace: apps\n    name: " + name +
         "\n    containers:\n    - name: app\n      requests: {cpu: 800m, memory: 512Mi}\n"
         "      model: {kind: bursty, cpuCores: 100m, memoryBytes: 200Mi, spikeProbability: 0.1, "
         "spikeFactor: 5, noise: 0}\n";
}

std::string policy(const std::string& name) {
  return "  - apiVersion: attune.io/v1alpha1\n    kind: AttunePolicy\n    metadata: {name: " +
         name + ", namespace: apps}\n    spec:\n      targetRef: {kind: Deployment, name: " + name +
         "}\n      metricsSource: {historyWindow: 24h, minimumDataPoints: 3, queryStep: 1m}\n"
         "      memory: {allowDecrease: true}\n      updateStrategy: {type: Auto}\n";
}

sim::Scenario sharedSpikes() {
  std::string yaml(kScenario);
  const std::vector<std::string> names = {"a", "b", "c", "d"};
  for (const std::string& n : names) yaml += workload(n);
  yaml += "  policies:\n";
  for (const std::string& n : names) yaml += policy(n);
  auto decoded = sim::decodeScenario(yaml);
  EXPECT_TRUE(decoded.scenario.has_value());
  for (const auto& e : decoded.errors) ADD_FAILURE() << sim::formatDiagnostic("scenario", e);
  return decoded.scenario.value_or(sim::Scenario{});
}

TEST(SimulateNodeOptimisationTest, CompareRunsOffThenOnAndTheOnRunRequestsLess) {
  SimulateRequest request{.scenario = sharedSpikes()};
  request.nodeOptimisation = NodeOptimisationMode::kCompare;
  // Whether each run's policies had node optimisation on, in run order.
  std::vector<std::vector<bool>> optedIn;
  request.onFinish = [&](const std::string&, sim::Simulation& s) {
    auto list = s.api().listAttunePolicies({});
    ASSERT_TRUE(list.has_value());
    std::vector<bool>& run = optedIn.emplace_back();
    for (const api::AttunePolicy& p : list->items) {
      run.push_back(p.spec.nodeOptimization && p.spec.nodeOptimization->enabled.value_or(false));
    }
  };
  auto report = runSimulate(request);
  ASSERT_TRUE(report.has_value()) << report.error().toString();
  ASSERT_EQ(report->runs.size(), 2u);
  const report::SimulationRun& off = report->runs[0];
  const report::SimulationRun& on = report->runs[1];
  EXPECT_EQ(off.nodeOptimisation, "off");
  EXPECT_EQ(on.nodeOptimisation, "on");
  EXPECT_EQ(optedIn, (std::vector<std::vector<bool>>{{false, false, false, false},
                                                     {true, true, true, true}}));

  // Same pods from the same seed: the same requests to start with and the same node-hours
  // (the simulated cluster does not add or remove nodes).
  EXPECT_DOUBLE_EQ(on.cpu.requestCoreHoursBefore, off.cpu.requestCoreHoursBefore);
  EXPECT_NEAR(on.cpu.requestCoreHoursBefore, 4 * 0.8 * 6, 0.01);
  ASSERT_TRUE(off.nodeOptimisationSummary.has_value());
  ASSERT_TRUE(on.nodeOptimisationSummary.has_value());
  EXPECT_DOUBLE_EQ(off.nodeOptimisationSummary->nodeHours, 6.0);
  EXPECT_DOUBLE_EQ(on.nodeOptimisationSummary->nodeHours, 6.0);
  // Both runs resize; sharing one spike across the node requests at least a quarter less CPU.
  EXPECT_LT(off.cpu.requestCoreHoursAfter, off.cpu.requestCoreHoursBefore);
  EXPECT_LT(on.cpu.requestCoreHoursAfter * 4, off.cpu.requestCoreHoursAfter * 3)
      << "on " << on.cpu.requestCoreHoursAfter << " core-h, off " << off.cpu.requestCoreHoursAfter;
  // The price: more of the spikes run on CPU the pods did not reserve.
  EXPECT_GT(on.nodeOptimisationSummary->cpuAboveRequestCoreHours,
            off.nodeOptimisationSummary->cpuAboveRequestCoreHours);
  // One node with room for everyone: nothing evicted, so no pod recreated to size at admission.
  EXPECT_EQ(off.nodeOptimisationSummary->evictions, 0);
  EXPECT_EQ(on.nodeOptimisationSummary->evictions, 0);
  EXPECT_EQ(off.nodeOptimisationSummary->admissionSized, 0);
  EXPECT_EQ(off.memory.oomKills, 0);
  EXPECT_EQ(on.memory.oomKills, 0);
  // The scaling summary comes with it (pod-hours, CPU short).
  ASSERT_TRUE(on.scaling.has_value());
  EXPECT_NEAR(on.scaling->podHours, 4 * 6.0, 0.1);

  // Labelled side by side in the table, and in the JSON.
  const std::string table = report::renderSimulationTable(*report);
  EXPECT_NE(table.find("attune (node opt off)  attune (node opt on)"), std::string::npos) << table;
  EXPECT_NE(table.find("evictions by the node optimiser"), std::string::npos) << table;
  EXPECT_NE(table.find("CPU above request (core-h)"), std::string::npos) << table;
  const auto json = nlohmann::json::parse(report::renderSimulationJson(*report));
  EXPECT_EQ(json["runs"][0]["node_optimisation"]["enabled"], false);
  EXPECT_EQ(json["runs"][1]["node_optimisation"]["enabled"], true);
  EXPECT_EQ(json["runs"][1]["node_optimisation"]["node_hours"], 6.0);
  const std::string html = report::renderSimulationHtml(*report);
  EXPECT_NE(html.find("attune (node opt on)"), std::string::npos);
}

// A 4-core node where `db` (no policy) reserves 3 cores and `web` uses 1.5 cores while asking for
// 500m: the node cannot hold web's steady state, so the node optimiser evicts it (once it is 30
// minutes old) and the pod admission webhook sizes its replacement at its peak — which no longer
// fits beside db, so it waits Pending instead of crowding the node.
sim::Scenario crowdedNode() {
  auto decoded = sim::decodeScenario(R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: crowded}
spec:
  seed: 1
  start: "2026-01-05T00:00:00Z"
  duration: 2h
  tick: 60s
  nodePools: [{name: node, count: 1, cpu: "4", memory: 8Gi}]
  namespaces: [apps]
  workloads:
  - kind: Deployment
    namespace: apps
    name: db
    containers:
    - name: app
      requests: {cpu: "3", memory: 1Gi}
      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}
  - kind: Deployment
    namespace: apps
    name: web
    containers:
    - name: app
      requests: {cpu: 500m, memory: 512Mi}
      model: {kind: steady, cpuCores: 1500m, memoryBytes: 200Mi, noise: 0}
  policies:
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: web, namespace: apps}
    spec:
      targetRef: {kind: Deployment, name: web}
      metricsSource: {historyWindow: 24h, minimumDataPoints: 3, queryStep: 1m}
      updateStrategy: {type: Auto}
)");
  EXPECT_TRUE(decoded.scenario.has_value());
  for (const auto& e : decoded.errors) ADD_FAILURE() << sim::formatDiagnostic("scenario", e);
  return decoded.scenario.value_or(sim::Scenario{});
}

TEST(SimulateNodeOptimisationTest, TheOnRunEvictsAndSizesTheReplacementAtAdmission) {
  SimulateRequest request{.scenario = crowdedNode()};
  request.nodeOptimisation = NodeOptimisationMode::kCompare;
  auto report = runSimulate(request);
  ASSERT_TRUE(report.has_value()) << report.error().toString();
  ASSERT_EQ(report->runs.size(), 2u);
  const report::SimulationRun& off = report->runs[0];
  const report::SimulationRun& on = report->runs[1];
  ASSERT_TRUE(off.nodeOptimisationSummary.has_value());
  ASSERT_TRUE(on.nodeOptimisationSummary.has_value());
  // Off: web keeps running beside db, on CPU it did not reserve.
  EXPECT_EQ(off.evictions, 0);
  EXPECT_EQ(off.nodeOptimisationSummary->evictions, 0);
  EXPECT_EQ(off.nodeOptimisationSummary->admissionSized, 0);
  EXPECT_NEAR(off.scaling->podHours, 4.0, 0.05);
  // On: evicted once, its replacement sized at admission and left Pending.
  EXPECT_EQ(on.evictions, 1);
  EXPECT_EQ(on.nodeOptimisationSummary->evictions, 1);
  EXPECT_EQ(on.nodeOptimisationSummary->admissionSized, 1);
  EXPECT_LT(on.scaling->podHours, off.scaling->podHours - 1);
  EXPECT_LT(on.nodeOptimisationSummary->cpuAboveRequestCoreHours,
            off.nodeOptimisationSummary->cpuAboveRequestCoreHours);
}

TEST(SimulateNodeOptimisationTest, NotAskedMeansOneUnlabelledRunWithoutTheSummary) {
  SimulateRequest request{.scenario = sharedSpikes()};
  request.scenario.duration = std::chrono::minutes(30);
  auto plain = runSimulate(request);
  ASSERT_TRUE(plain.has_value());
  ASSERT_EQ(plain->runs.size(), 1u);
  EXPECT_EQ(plain->runs[0].nodeOptimisation, "");
  EXPECT_FALSE(plain->runs[0].nodeOptimisationSummary.has_value());
  request.nodeOptimisation = NodeOptimisationMode::kOn;
  auto on = runSimulate(request);
  ASSERT_TRUE(on.has_value());
  ASSERT_EQ(on->runs.size(), 1u);
  EXPECT_EQ(on->runs[0].nodeOptimisation, "on");
}

}  // namespace
}  // namespace attune::cli
