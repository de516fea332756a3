// `attune backtest --jobs`: runs at once on threads give the same report, in the same order, as
// one after the other, and hand their simulations to onFinish in run order.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "cli/simulate_run.h"
#include "report/simulation_report.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::cli {
namespace {

// Six over-provisioned workloads with noisy usage on two nodes the autoscaler may shrink, one
// Auto policy for all: every strategy resizes, and the runs differ.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: jobs}
spec:
  seed: 11
  start: "2026-01-05T00:00:00Z"
  duration: 4h
  tick: 60s
  nodePools: [{name: node, count: 2, minSize: 1, cpu: "4", memory: 16Gi, pricePerHour: 0.5}]
  clusterAutoscaler: {}
  namespaces: [apps]
  workloads:
  - kind: Deployment
    namespace: apps
    name: web
    replicas: 3
    containers:
    - name: app
      requests: {cpu: "1", memory: 1Gi}
      model: {kind: diurnal, cpuCores: 300m, memoryBytes: 300Mi}
  - kind: Deployment
    namespace: apps
    name: worker
    replicas: 3
    containers:
    - name: app
      requests: {cpu: 500m, memory: 512Mi}
      limits: {memory: 1Gi}
      model: {kind: bursty, cpuCores: 200m, memoryBytes: 200Mi}
  policies:
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: apps, namespace: apps}
    spec:
      targetRef: {kind: Deployment, selector: {}}
      metricsSource: {historyWindow: 24h, minimumDataPoints: 3, queryStep: 1m}
      memory: {allowDecrease: true}
      updateStrategy: {type: Auto}
)";

sim::Scenario scenario() {
  auto decoded = sim::decodeScenario(std::string(kScenario));
  for (const auto& e : decoded.errors) ADD_FAILURE() << sim::formatDiagnostic("scenario", e);
  return decoded.scenario.value_or(sim::Scenario{});
}

struct Outcome {
  std::string json, table;
  std::set<double> cpuAfter;          // distinct CPU request core-hours after, over the runs
  std::vector<std::string> finished;  // onFinish calls: strategy and policy count
};

Outcome backtest(unsigned jobs) {
  SimulateRequest request{.scenario = scenario()};
  request.strategies = {"none", "attune", "vpa", "krr", "cruisekube"};
  request.jobs = jobs;
  Outcome out;
  request.onFinish = [&](const std::string& strategy, sim::Simulation& s) {
    out.finished.push_back(strategy + " " + std::to_string(s.state().pods.size()));
  };
  auto report = runSimulate(request);
  EXPECT_TRUE(report.has_value()) << report.error().toString();
  if (!report) return out;
  for (const report::SimulationRun& run : report->runs) {
    out.cpuAfter.insert(run.cpu.requestCoreHoursAfter);
  }
  out.json = report::renderSimulationJson(*report);
  out.table = report::renderSimulationTable(*report);
  return out;
}

TEST(SimulateJobsTest, ParallelRunsGiveTheSequentialReportInTheSameOrder) {
  const Outcome sequential = backtest(1);
  ASSERT_FALSE(sequential.json.empty());
  // The strategies do differ, so a mixed-up order would show.
  EXPECT_GE(sequential.cpuAfter.size(), 4u);
  ASSERT_EQ(sequential.finished.size(), 5u);
  EXPECT_TRUE(sequential.finished[0].starts_with("none "));
  EXPECT_TRUE(sequential.finished[4].starts_with("cruisekube "));
  for (const unsigned jobs : {2u, 5u, 0u}) {
    const Outcome parallel = backtest(jobs);
    EXPECT_EQ(parallel.json, sequential.json) << "jobs " << jobs;
    EXPECT_EQ(parallel.table, sequential.table) << "jobs " << jobs;
    EXPECT_EQ(parallel.finished, sequential.finished) << "jobs " << jobs;
  }
}

TEST(SimulateJobsTest, AnUnknownStrategyFailsBeforeAnyRun) {
  SimulateRequest request{.scenario = scenario()};
  request.strategies = {"none", "nonesuch"};
  request.jobs = 2;
  int finished = 0;
  request.onFinish = [&](const std::string&, sim::Simulation&) { ++finished; };
  auto report = runSimulate(request);
  ASSERT_FALSE(report.has_value());
  EXPECT_NE(report.error().message.find("nonesuch"), std::string::npos) << report.error().message;
  EXPECT_EQ(finished, 0);
}

}  // namespace
}  // namespace attune::cli
