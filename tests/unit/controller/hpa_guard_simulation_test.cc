// The HPA guard beside the simulator's HPA controller: the seed's example end to end on the
// simulated clock. 100 replicas at 10 % CPU against a 50 % target: the HPA alone drops them to
// 20 once its scale-down window has passed; with estafette.io/hpa-scaler-scale-down-max-ratio
// 0.2 the first step down stops at 80, and each further step keeps 80 % of the replicas.
#include <gtest/gtest.h>

#include "controller/hpa_guard.h"
#include "metrics/exposition/registry.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::controller {
namespace {

using namespace std::chrono_literals;

// 1000 requests/s at 1m CPU each: one core over the replicas, 10m (10 % of the 100m request)
// per pod at 100 replicas, 50 % at 20.
std::string scenario(bool guarded) {
  const std::string annotations = guarded
                                      ? "    annotations: {estafette.io/hpa-scaler: \"true\", "
                                        "estafette.io/hpa-scaler-scale-down-max-ratio: \"0.2\"}\n"
                                      : "";
  return R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: guard}
spec:
  start: "2026-01-05T00:00:00Z"
  duration: 2h
  tick: 15s
  nodePools: [{name: node, count: 4, cpu: "16", memory: 64Gi}]
  workloads:
  - kind: Deployment
    namespace: shop
    name: web
    replicas: 100
    containers:
    - name: app
      requests: {cpu: 100m, memory: 64Mi}
      model: {kind: service, requestsPerSecond: 1000, cpuPerRequest: 1m, memoryBytes: 32Mi,
              noise: 0}
  hpas:
  - namespace: shop
    name: web
)" + annotations +
         R"(    scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
    minReplicas: 1
    maxReplicas: 200
    metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)";
}

// The guard here uses no query: every evaluation fails.
class NoQuery final : public metrics::ScalarQuery {
 public:
  Result<double> evaluate(std::string_view, Time) override {
    return fail(ErrorCode::kNotFound, "no query in this test");
  }
};

class GuardedSimulation {
 public:
  explicit GuardedSimulation(bool guarded) {
    auto decoded = sim::decodeScenario(scenario(guarded), {});
    EXPECT_TRUE(decoded.scenario.has_value());
    auto created = sim::Simulation::create(*decoded.scenario);
    EXPECT_TRUE(created.has_value());
    sim_ = std::move(*created);
    events_ = std::make_unique<EventRecorder>(sim_->api(), sim_->clock());
    metrics_ = std::make_unique<HpaGuardMetrics>(registry_);
    guard_ = std::make_unique<HpaGuard>(sim_->api(), query_, *events_, *metrics_, sim_->clock(),
                                        HpaGuardOptions{.interval = 30s});
  }

  // Runs `d` tick by tick with the guard every 30 s; returns the fewest replicas seen.
  int run(Duration d) {
    int fewest = replicas();
    const Time end = sim_->clock().now() + d;
    while (sim_->clock().now() < end) {
      EXPECT_TRUE(sim_->step().has_value());
      guard_->runDue();
      fewest = std::min(fewest, replicas());
    }
    return fewest;
  }

  int replicas() const {
    return sim_->state().deployments.find("shop", "web")->spec.replicas.value_or(1);
  }
  int minReplicas() const {
    return sim_->state().hpas.find("shop", "web")->spec.minReplicas.value_or(1);
  }

 private:
  std::unique_ptr<sim::Simulation> sim_;
  metrics::Registry registry_;
  NoQuery query_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<HpaGuardMetrics> metrics_;
  std::unique_ptr<HpaGuard> guard_;
};

TEST(HpaGuardSimulation, WithoutTheGuardTheHpaDropsTo20AfterItsWindow) {
  GuardedSimulation sim(false);
  EXPECT_EQ(sim.run(4min), 100);  // held by the 300 s scale-down stabilization window
  EXPECT_EQ(sim.run(3min), 20);
  EXPECT_EQ(sim.replicas(), 20);
}

TEST(HpaGuardSimulation, WithRatioPointTwoTheFirstStepStopsAt80) {
  GuardedSimulation sim(true);
  EXPECT_EQ(sim.run(4min), 100);
  EXPECT_EQ(sim.minReplicas(), 80);
  // The HPA's first step down is clamped to the guard's floor: no fewer than 80.
  const int fewest = sim.run(90s);
  EXPECT_GE(fewest, 80);
  EXPECT_LT(sim.replicas(), 100);
  // Then the floor follows the replicas down by at most 20 % per guard pass, never straight to
  // the HPA's 20.
  const int later = sim.run(10min);
  EXPECT_GT(later, 20);
}

}  // namespace
}  // namespace attune::controller
