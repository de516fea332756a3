// The baseline of `attune backtest` (strategy `none`: no operator) and the cluster autoscaler in a
// backtest: `none` leaves every pod at the requests it was created with, and with the autoscaler
// on, a strategy that lowers requests runs on fewer node-hours than the baseline.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/simulate_run.h"
#include "report/simulation_report.h"
#include "sim/scenario/scenario_codec.h"
#include "support/shared_dir.h"

namespace attune::cli {
namespace {

// Eight workloads requesting 1 core and 1 GiB each and using 100m and 200 MiB, on two 4-core
// nodes the cluster autoscaler may shrink to one; an Auto policy for each.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: oversized}
spec:
  seed: 5
  start: "2026-01-05T00:00:00Z"
  duration: 6h
  tick: 60s
  nodePools: [{name: node, count: 2, minSize: 1, cpu: "4", memory: 16Gi, pricePerHour: 0.5}]
  clusterAutoscaler: {}
  namespaces: [apps]
  workloads:
)";

std::string workload(const std::string& name) {
  return "  - kind: Deployment\n    namespace: apps\n    name: " + name +
         "\n    containers:\n    - name: app\n      requests: {cpu: \"1\", memory: 1Gi}\n"
         "      model: {kind: steady, cpuCores: 100m, memoryBytes: 200Mi, noise: 0}\n";
}

std::string policy(const std::string& name) {
  return "  - apiVersion: attune.io/v1alpha1\n    kind: AttunePolicy\n    metadata: {name: " +
         name + ", namespace: apps}\n    spec:\n      targetRef: {kind: Deployment, name: " + name +
         "}\n      metricsSource: {historyWindow: 24h, minimumDataPoints: 3, queryStep: 1m}\n"
         "      memory: {allowDecrease: true}\n      updateStrategy: {type: Auto}\n";
}

sim::Scenario oversized() {
  std::string yaml(kScenario);
  const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f", "g", "h"};
  for (const std::string& n : names) yaml += workload(n);
  yaml += "  policies:\n";
  for (const std::string& n : names) yaml += policy(n);
  auto decoded = sim::decodeScenario(yaml);
  EXPECT_TRUE(decoded.scenario.has_value());
  for (const auto& e : decoded.errors) ADD_FAILURE() << sim::formatDiagnostic("scenario", e);
  return decoded.scenario.value_or(sim::Scenario{});
}

// Every running pod's (cpu, memory) requests of its one container, as strings.
std::vector<std::string> podRequests(sim::Simulation& s) {
  std::vector<std::string> out;
  s.state().pods.forEach([&](const api::Pod& pod) {
    const api::ResourceList& r = pod.spec.containers.at(0).resources.requests;
    out.push_back(pod.metadata.name + " " + (r.cpu ? r.cpu->toString() : "-") + " " +
                  (r.memory ? r.memory->toString() : "-"));
  });
  return out;
}

TEST(SimulateBaselineTest, NoneLeavesEveryPodAtItsRequestsAndIsTheBaseline) {
  SimulateRequest request{.scenario = oversized()};
  request.strategies = {"none", "attune"};
  std::vector<std::vector<std::string>> requests;
  request.onFinish = [&](const std::string&, sim::Simulation& s) {
    requests.push_back(podRequests(s));
  };
  auto report = runSimulate(request);
  ASSERT_TRUE(report.has_value()) << report.error().toString();
  ASSERT_EQ(report->runs.size(), 2u);
  const report::SimulationRun& none = report->runs[0];
  const report::SimulationRun& attune = report->runs[1];
  EXPECT_EQ(none.strategy, "none");
  EXPECT_EQ(none.mode, "none");
  EXPECT_EQ(none.resizes.applied, 0);
  EXPECT_EQ(none.cpu.requestCoreHoursAfter, none.cpu.requestCoreHoursBefore);
  EXPECT_EQ(none.memory.requestGibHoursAfter, none.memory.requestGibHoursBefore);
  ASSERT_EQ(requests.size(), 2u);
  ASSERT_EQ(requests[0].size(), 8u);
  for (const std::string& pod : requests[0]) EXPECT_TRUE(pod.ends_with(" 1 1Gi")) << pod;
  // The same scenario with the operator does resize: the baseline is not the operator idle.
  EXPECT_GT(attune.resizes.applied, 0);
  EXPECT_LT(attune.cpu.requestCoreHoursAfter, none.cpu.requestCoreHoursAfter);

  // 8 cores on two 4-core nodes: the baseline keeps both. Resized, the pods fit one node and
  // the autoscaler removes the other. (A drained pod comes back with its template's requests
  // until the controller resizes it again, which may bring a node back for a while.)
  EXPECT_TRUE(none.nodes.autoscaled);
  EXPECT_EQ(none.nodes.min, 2);
  EXPECT_EQ(none.nodes.final, 2);
  EXPECT_NEAR(none.nodes.nodeHours, 2 * 6.0, 1e-9);
  EXPECT_NEAR(none.nodes.cost, 0.5 * 2 * 6.0, 1e-9);
  EXPECT_EQ(attune.nodes.final, 1);
  EXPECT_GE(attune.nodes.removed, 1);
  EXPECT_LT(attune.nodes.nodeHours, none.nodes.nodeHours);
  EXPECT_LT(attune.nodes.cost, none.nodes.cost);
}

TEST(SimulateBaselineTest, TheRiskBlockOfTheBaselineByHand) {
  SimulateRequest request{.scenario = oversized()};
  request.strategies = {"none"};
  auto report = runSimulate(request);
  ASSERT_TRUE(report.has_value()) << report.error().toString();
  const report::RiskSummary& r = report->runs.at(0).risk;
  // 8 pods, created, bound and started in the first of 360 one-minute ticks, run from the
  // second: 8 × 359 samples.
  EXPECT_EQ(r.samples, 8 * 359);
  // 100m of a 1-core request and 200Mi of 1Gi, four 100m pods on each 4-core node: no sample
  // above its request, nothing short, nothing pending.
  EXPECT_EQ(r.cpuAboveRequestPct, 0);
  EXPECT_EQ(r.cpuShortCoreSeconds, 0);
  EXPECT_EQ(r.cpuAboveRequestCoreHours, 0);
  EXPECT_EQ(r.memoryAboveRequestPct, 0);
  EXPECT_EQ(r.memoryAtLimitPct, 0);
  EXPECT_EQ(r.oomKills, 0);
  EXPECT_EQ(r.evictions, 0);
  EXPECT_EQ(r.psiWaitingCoreSeconds, 0);
  EXPECT_EQ(r.pendingPodHours, 0);
  EXPECT_EQ(r.pendingPodsMax, 0);
  // Two nodes at 0.5 an hour for 6 h; 8 pods × 1 core and 1 GiB reserved from the first tick's
  // end to the last: 8 × 6 h.
  EXPECT_NEAR(r.nodeHours, 12.0, 1e-9);
  EXPECT_NEAR(r.nodeCost, 6.0, 1e-9);
  EXPECT_NEAR(r.cpuRequestCoreHours, 48.0, 1e-9);
  EXPECT_NEAR(r.memoryRequestGibHours, 48.0, 1e-9);
}

TEST(SimulateBaselineTest, NoneRunsOnceWhateverTheGuardAndNodeOptimisationModes) {
  SimulateRequest request{.scenario = oversized()};
  request.scenario.duration = std::chrono::hours(1);
  request.strategies = {"none"};
  request.hpaGuard = HpaGuardMode::kCompare;
  request.nodeOptimisation = NodeOptimisationMode::kCompare;
  auto report = runSimulate(request);
  ASSERT_TRUE(report.has_value()) << report.error().toString();
  ASSERT_EQ(report->runs.size(), 1u);
  EXPECT_EQ(report->runs[0].hpaGuard, "");
  EXPECT_EQ(report->runs[0].nodeOptimisation, "");
  EXPECT_EQ(report->runs[0].resizes.applied, 0);
}

TEST(SimulateBaselineTest, TraceScenariosRunTheClusterAutoscaler) {
  const auto dir = ::attune::testing::sharedDir();
  if (!dir) GTEST_SKIP() << "../shared is absent";
  const auto file = *dir / "traces" / "bitbrains-rnd-2013-7" / "1.csv.gz";
  if (!std::filesystem::exists(file)) GTEST_SKIP() << file << " is absent";
  auto s = scenarioFromTrace(file, std::nullopt);
  ASSERT_TRUE(s.has_value()) << s.error().toString();
  ASSERT_TRUE(s->clusterAutoscaler.has_value());
  ASSERT_EQ(s->nodePools.size(), 1u);
  const sim::NodePool& pool = s->nodePools[0];
  EXPECT_EQ(pool.minSize, 1);
  EXPECT_EQ(pool.maxSize, 2 * pool.count);
  const double cores = static_cast<double>(pool.cpu.value()) / 1000;
  const double gib = static_cast<double>(pool.memory.value()) / (1 << 30);
  EXPECT_NEAR(pool.pricePerHour, cores * kTraceCoreHourPrice + gib * kTraceGibHourPrice, 1e-9);
}

}  // namespace
}  // namespace attune::cli
