// The HPA guard in `attune backtest`: the upstream-outage scenario run without and with the
// guard, side by side. With it the api keeps more replicas through the outage and recovers
// sooner, with less CPU short.
#include <gtest/gtest.h>

#include "cli/simulate_run.h"
#include "sim/scenario/scenario_codec.h"
#include "support/shared_dir.h"

namespace attune::cli {
namespace {

sim::Scenario outage() {
  auto decoded =
      sim::readScenarioFile(testing::sourceDir() / "examples/scenarios/upstream-outage.yaml");
  EXPECT_TRUE(decoded.has_value());
  EXPECT_TRUE(decoded->scenario.has_value());
  return *decoded->scenario;
}

const report::RateChangeRecovery& apiRecovery(const report::SimulationRun& run) {
  EXPECT_TRUE(run.scaling.has_value());
  EXPECT_EQ(run.scaling->recoveries.size(), 1u);
  const report::RateChangeRecovery& r = run.scaling->recoveries.front();
  EXPECT_EQ(r.workload, "shop/Deployment/api");
  return r;
}

TEST(SimulateHpaGuardTest, TheGuardHoldsReplicasThroughTheOutageAndShortensTheRecovery) {
  SimulateRequest request{.scenario = outage()};
  request.hpaGuard = HpaGuardMode::kCompare;
  auto report = runSimulate(request);
  ASSERT_TRUE(report.has_value()) << report.error().toString();
  ASSERT_EQ(report->runs.size(), 2u);
  const report::SimulationRun& off = report->runs[0];
  const report::SimulationRun& on = report->runs[1];
  EXPECT_EQ(off.hpaGuard, "off");
  EXPECT_EQ(on.hpaGuard, "on");

  const report::RateChangeRecovery& without = apiRecovery(off);
  const report::RateChangeRecovery& with = apiRecovery(on);
  EXPECT_EQ(without.fromSeconds, 3600);
  EXPECT_EQ(without.toSeconds, 4800);
  EXPECT_EQ(without.baselineReplicas, with.baselineReplicas);
  // Fewer replicas during the outage without the guard: the HPA drops to its minReplicas.
  EXPECT_EQ(without.minReplicas, 2);
  EXPECT_GT(with.minReplicas, without.minReplicas);
  // Both recover, the guarded one sooner and with less CPU short.
  ASSERT_TRUE(without.timeToRecoverSeconds.has_value());
  ASSERT_TRUE(with.timeToRecoverSeconds.has_value());
  EXPECT_LT(*with.timeToRecoverSeconds, *without.timeToRecoverSeconds);
  EXPECT_LT(with.cpuShortCoreSeconds, without.cpuShortCoreSeconds);

  // The HPA's replica counts say the same; the guard raised its minReplicas.
  ASSERT_EQ(off.scaling->hpas.size(), 1u);
  ASSERT_EQ(on.scaling->hpas.size(), 1u);
  EXPECT_EQ(off.scaling->hpas[0].min, 2);
  EXPECT_GT(on.scaling->hpas[0].min, off.scaling->hpas[0].min);
  EXPECT_EQ(off.scaling->hpas[0].finalMinReplicas, 2);
  EXPECT_GT(on.scaling->hpas[0].finalMinReplicas, 2);
  // The price: more pod-hours.
  EXPECT_GT(on.scaling->podHours, off.scaling->podHours);
}

TEST(SimulateHpaGuardTest, OneRunPerStrategyUnlessCompared) {
  SimulateRequest request{.scenario = outage()};
  request.scenario.duration = std::chrono::minutes(30);
  request.hpaGuard = HpaGuardMode::kOn;
  auto guarded = runSimulate(request);
  ASSERT_TRUE(guarded.has_value());
  ASSERT_EQ(guarded->runs.size(), 1u);
  EXPECT_EQ(guarded->runs[0].hpaGuard, "on");
  // Not asked about: no label, and the scaling summary because the scenario has an HPA.
  request.hpaGuard.reset();
  auto plain = runSimulate(request);
  ASSERT_TRUE(plain.has_value());
  ASSERT_EQ(plain->runs.size(), 1u);
  EXPECT_EQ(plain->runs[0].hpaGuard, "");
  ASSERT_TRUE(plain->runs[0].scaling.has_value());
  EXPECT_EQ(plain->runs[0].scaling->hpas[0].finalMinReplicas, 2);
}

}  // namespace
}  // namespace attune::cli
