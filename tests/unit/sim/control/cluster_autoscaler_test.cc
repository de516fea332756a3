// The simulated cluster autoscaler's rules, each on a small scenario driven tick by tick on the
// simulated clock: scale-up for pending pods, scale-down after the unneeded time, budgets,
// DaemonSets, pods that fit nowhere else, min size, and node-hours and cost.
#include "sim/control/cluster_autoscaler.h"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>

#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

// A scenario with the pools `pools` (a flow list), the autoscaler options `autoscaler` (a flow
// mapping; "" leaves it off) and `body` (more spec fields, indented by two spaces), 60 s ticks.
std::string scenarioYaml(const std::string& pools, const std::string& autoscaler,
                         const std::string& body) {
  std::string out =
      "apiVersion: sim.attune.io/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n"
      "  start: \"2026-01-05T00:00:00Z\"\n  duration: 24h\n  tick: 60s\n"
      "  nodePools: " +
      pools + "\n";
  if (!autoscaler.empty()) out += "  clusterAutoscaler: " + autoscaler + "\n";
  return out + body;
}

std::unique_ptr<Simulation> simulation(const std::string& yaml) {
  DecodedScenario d = decodeScenario(yaml, {});
  std::string errors;
  for (const auto& e : d.errors) errors += formatDiagnostic("t.yaml", e) + "\n";
  EXPECT_TRUE(d.scenario.has_value()) << errors;
  if (!d.scenario) return nullptr;
  auto sim = Simulation::create(*d.scenario);
  EXPECT_TRUE(sim.has_value()) << (sim ? "" : sim.error().toString());
  return sim ? std::move(*sim) : nullptr;
}

std::set<std::string> nodeNames(const Simulation& sim) {
  std::set<std::string> out;
  sim.state().nodes.forEach([&](const api::Node& n) { out.insert(n.metadata.name); });
  return out;
}

std::string deployment(const std::string& name, int replicas, const std::string& cpu,
                       const std::string& memory = "1Gi") {
  return "  - kind: Deployment\n    name: " + name + "\n    replicas: " + std::to_string(replicas) +
         "\n    containers:\n    - name: app\n      requests: {cpu: \"" + cpu +
         "\", memory: " + memory +
         "}\n      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi}\n";
}

int pendingPods(const Simulation& sim) {
  int n = 0;
  sim.state().pods.forEach([&](const api::Pod& p) { n += p.spec.nodeName.empty() ? 1 : 0; });
  return n;
}

// 4-core nodes; 6 pods of 1.5 cores need 3 nodes (two per node), the pool starts with one.
TEST(ClusterAutoscalerTest, AddsNodesForPendingPodsAfterTheProvisioningDelay) {
  auto sim = simulation(scenarioYaml(
      "[{name: pool, count: 1, maxSize: 5, cpu: \"4\", memory: 16Gi, pricePerHour: 0.2}]",
      "{provisioningDelay: 2m}", "  workloads:\n" + deployment("web", 6, "1500m")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(1min).has_value());
  // Tick 1: pods made, two bound, four unschedulable; the autoscaler orders two nodes.
  EXPECT_EQ(pendingPods(*sim), 4);
  EXPECT_EQ(sim->state().nodes.size(), 1u);
  ASSERT_TRUE(sim->runFor(1min).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 1u) << "still provisioning";
  ASSERT_TRUE(sim->runFor(1min).has_value());
  EXPECT_EQ(nodeNames(*sim), (std::set<std::string>{"pool-0", "pool-1", "pool-2"}));
  ASSERT_TRUE(sim->runFor(1min).has_value());
  EXPECT_EQ(pendingPods(*sim), 0);
  ASSERT_NE(sim->autoscaler(), nullptr);
  EXPECT_EQ(sim->autoscaler()->counters().scaleUps, 1);
  EXPECT_EQ(sim->autoscaler()->counters().nodesAdded, 2);
  // Σ nodes × time: 1 node in ticks 1 and 2, 3 in ticks 3 (they registered in it) and 4; cost
  // at 0.2 per node-hour.
  const RunTotals totals = sim->totals();
  EXPECT_NEAR(totals.nodeSeconds, 1 * 120 + 3 * 120, 1e-9);
  EXPECT_NEAR(totals.nodeCost, 0.2 * 480 / 3600, 1e-12);
  EXPECT_EQ(totals.nodesMin, 1);
  EXPECT_EQ(totals.nodesMax, 3);
  EXPECT_EQ(totals.nodesAdded, 2);
}

TEST(ClusterAutoscalerTest, NeverGrowsAGroupBeyondItsMaxSize) {
  auto sim = simulation(
      scenarioYaml("[{name: pool, count: 1, maxSize: 2, cpu: \"4\", memory: 16Gi}]",
                   "{provisioningDelay: 0s}", "  workloads:\n" + deployment("web", 6, "1500m")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(30min).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 2u);
  EXPECT_EQ(pendingPods(*sim), 2);
}

TEST(ClusterAutoscalerTest, APodNoGroupCanHoldLeavesTheClusterAlone) {
  auto sim = simulation(
      scenarioYaml("[{name: pool, count: 1, maxSize: 5, cpu: \"4\", memory: 16Gi}]",
                   "{provisioningDelay: 0s}", "  workloads:\n" + deployment("huge", 1, "6")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(10min).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 1u);
  EXPECT_EQ(sim->autoscaler()->counters().scaleUps, 0);
}

TEST(ClusterAutoscalerTest, PicksTheGroupThatWastesLeast) {
  // One 3-core pod: an 8-core node would leave 5/8 unrequested, a 4-core one 1/4.
  auto sim = simulation(
      scenarioYaml("[{name: big, count: 0, maxSize: 3, cpu: \"8\", memory: 8Gi}, "
                   "{name: small, count: 0, maxSize: 3, cpu: \"4\", memory: 4Gi}]",
                   "{provisioningDelay: 0s}", "  workloads:\n" + deployment("web", 1, "3", "2Gi")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(2min).has_value());
  EXPECT_EQ(nodeNames(*sim), (std::set<std::string>{"small-0"}));
  EXPECT_EQ(pendingPods(*sim), 0);
}

// Three 4-core nodes, one pod of 1 core on each: every node is 25% requested and the pods of
// any two fit on the third.
const std::string kThreeSmallPods = deployment("web", 3, "1");

TEST(ClusterAutoscalerTest, RemovesNodesUnneededForTenMinutesOneDrainAtATime) {
  auto sim =
      simulation(scenarioYaml("[{name: pool, count: 3, minSize: 1, cpu: \"4\", memory: 16Gi}]",
                              "{}", "  workloads:\n" + kThreeSmallPods));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(1min).has_value());
  // Unneeded from the first tick on (the pods are bound in it).
  ASSERT_EQ(sim->autoscaler()->unneededSince().size(), 3u);
  const Time since = sim->autoscaler()->unneededSince().begin()->second;
  EXPECT_EQ(since, sim->scenario().start + 1min);
  ASSERT_TRUE(sim->runUntil(since + 9min).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 3u) << "not yet 10 minutes";
  ASSERT_TRUE(sim->runUntil(since + 10min).has_value());
  // One node drained: its pod evicted and recreated elsewhere next tick.
  EXPECT_EQ(sim->state().nodes.size(), 2u);
  EXPECT_EQ(sim->autoscaler()->counters().podsEvicted, 1);
  ASSERT_TRUE(sim->runFor(1min).has_value());
  EXPECT_EQ(pendingPods(*sim), 0);
  // The other nodes stayed unneeded all along: later loops drain them one at a time, down to the
  // one node that holds the three pods.
  ASSERT_TRUE(sim->runFor(30min).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 1u);
  EXPECT_EQ(sim->state().pods.size(), 3u);
  EXPECT_EQ(pendingPods(*sim), 0);
  EXPECT_EQ(sim->totals().nodesRemoved, 2);
}

TEST(ClusterAutoscalerTest, KeepsAFixedCountWithoutOptingIn) {
  auto sim = simulation(scenarioYaml("[{name: pool, count: 3, cpu: \"4\", memory: 16Gi}]", "",
                                     "  workloads:\n" + kThreeSmallPods));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(1h).has_value());
  EXPECT_EQ(sim->autoscaler(), nullptr);
  EXPECT_EQ(sim->state().nodes.size(), 3u);
  EXPECT_NEAR(sim->totals().nodeSeconds, 3 * 3600, 1e-9);
}

TEST(ClusterAutoscalerTest, NeverShrinksAGroupBelowItsMinSize) {
  auto sim =
      simulation(scenarioYaml("[{name: pool, count: 3, minSize: 2, cpu: \"4\", memory: 16Gi}]",
                              "{}", "  workloads:\n" + kThreeSmallPods));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(2h).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 2u);
}

TEST(ClusterAutoscalerTest, KeepsANodeWhosePodsFitNowhereElse) {
  // 3 cores on each of two 4-core nodes: 75% requested, nothing is a candidate; a third node
  // with 1.5 cores (37.5%) cannot hand its pod to the others (1 core free each).
  auto sim = simulation(
      scenarioYaml("[{name: pool, count: 3, minSize: 0, cpu: \"4\", memory: 16Gi}]", "{}",
                   "  workloads:\n" + deployment("a", 1, "3") + deployment("b", 1, "3") +
                       deployment("c", 1, "1500m")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(1h).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 3u);
  EXPECT_TRUE(sim->autoscaler()->unneededSince().empty());
  EXPECT_EQ(sim->autoscaler()->counters().podsEvicted, 0);
}

TEST(ClusterAutoscalerTest, ABudgetThatAllowsNoDisruptionKeepsTheNode) {
  const std::string pdb =
      "  podDisruptionBudgets:\n  - name: web\n    maxUnavailable: 0\n"
      "    selector: {matchLabels: {app.kubernetes.io/name: web}}\n";
  auto sim =
      simulation(scenarioYaml("[{name: pool, count: 3, minSize: 1, cpu: \"4\", memory: 16Gi}]",
                              "{}", "  workloads:\n" + kThreeSmallPods + pdb));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(1h).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 3u);
  EXPECT_EQ(sim->autoscaler()->counters().podsEvicted, 0);
}

TEST(ClusterAutoscalerTest, ABudgetThatAllowsOneDisruptionDrainsOneNodeAtATime) {
  const std::string pdb =
      "  podDisruptionBudgets:\n  - name: web\n    maxUnavailable: 1\n"
      "    selector: {matchLabels: {app.kubernetes.io/name: web}}\n";
  auto sim =
      simulation(scenarioYaml("[{name: pool, count: 3, minSize: 1, cpu: \"4\", memory: 16Gi}]",
                              "{}", "  workloads:\n" + kThreeSmallPods + pdb));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(2h).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 1u);
  EXPECT_EQ(sim->autoscaler()->counters().podsEvicted, 2);
  // Every eviction went through the budget: none left it below its minimum.
  const auto* budget = sim->state().pdbs.find("default", "web");
  ASSERT_NE(budget, nullptr);
  EXPECT_EQ(budget->status.currentHealthy, 3);
}

TEST(ClusterAutoscalerTest, DaemonSetPodsNeitherMoveNorBlockAndGoWithTheirNode) {
  // An agent on every node; an empty node (only its agent) goes without a drain.
  const std::string agent =
      "  - kind: DaemonSet\n    name: agent\n    containers:\n    - name: agent\n"
      "      requests: {cpu: 100m, memory: 128Mi}\n"
      "      model: {kind: steady, cpuCores: 10m, memoryBytes: 50Mi}\n";
  auto sim =
      simulation(scenarioYaml("[{name: pool, count: 3, minSize: 1, cpu: \"4\", memory: 16Gi}]",
                              "{}", "  workloads:\n" + agent + deployment("web", 1, "1")));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(2h).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 1u);
  // Two empty nodes removed without evicting anything; their agents deleted with them.
  EXPECT_EQ(sim->autoscaler()->counters().nodesRemoved, 2);
  EXPECT_EQ(sim->autoscaler()->counters().podsEvicted, 0);
  EXPECT_EQ(sim->state().pods.size(), 2u);
  const std::set<std::string> nodes = nodeNames(*sim);
  sim->state().pods.forEach([&](const api::Pod& p) {
    EXPECT_TRUE(nodes.contains(p.spec.nodeName)) << p.metadata.name << " on " << p.spec.nodeName;
  });
}

TEST(ClusterAutoscalerTest, NoScaleDownForTenMinutesAfterAScaleUp) {
  // Pool a: one pod of 1 core, a-1 empty, both removable at once (no unneeded time). A pod
  // pinned to pool b makes a scale-up at the first tick; the delay after it holds them back.
  const std::string pinned =
      "  - kind: Deployment\n    name: pinned\n    nodeSelector: {tier: b}\n"
      "    containers:\n    - name: app\n      requests: {cpu: \"1\", memory: 1Gi}\n"
      "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi}\n";
  auto sim = simulation(
      scenarioYaml("[{name: a, count: 2, minSize: 0, cpu: \"4\", memory: 16Gi}, "
                   "{name: b, count: 0, maxSize: 1, cpu: \"4\", memory: 16Gi, labels: {tier: b}}]",
                   "{provisioningDelay: 0s, scaleDownUnneededTime: 0s}",
                   "  workloads:\n" + deployment("web", 1, "1") + pinned));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(1min).has_value());
  EXPECT_EQ(nodeNames(*sim), (std::set<std::string>{"a-0", "a-1", "b-0"}));
  ASSERT_TRUE(sim->runFor(9min).has_value());
  EXPECT_EQ(sim->state().nodes.size(), 3u) << "within 10 minutes of the scale-up";
  EXPECT_EQ(sim->autoscaler()->counters().nodesRemoved, 0);
  ASSERT_TRUE(sim->runFor(1min).has_value());
  // 10 minutes after it: the empty a-1 and the drain of a-0 (web moves to b-0) in one loop.
  EXPECT_EQ(nodeNames(*sim), (std::set<std::string>{"b-0"}));
  ASSERT_TRUE(sim->runFor(1min).has_value());
  EXPECT_EQ(pendingPods(*sim), 0);
}

TEST(ClusterAutoscalerTest, RemovedNodesKeepTheirCountersInTheTotals) {
  auto sim =
      simulation(scenarioYaml("[{name: pool, count: 3, minSize: 1, cpu: \"4\", memory: 16Gi, "
                              "pricePerHour: 1}]",
                              "{}", "  workloads:\n" + kThreeSmallPods));
  ASSERT_NE(sim, nullptr);
  ASSERT_TRUE(sim->runFor(2h).has_value());
  const RunTotals totals = sim->totals();
  // 3 nodes for the first 11 ticks at least, 1 at the end: between 1 and 3 nodes on average.
  EXPECT_GT(totals.nodeHours(), 2.0);
  EXPECT_LT(totals.nodeHours(), 3 * 2.0);
  EXPECT_NEAR(totals.nodeCost, totals.nodeHours(), 1e-9);
  EXPECT_EQ(totals.nodesMax, 3);
  EXPECT_EQ(totals.nodesMin, 1);
  EXPECT_EQ(totals.nodes, 1);
}

TEST(ClusterAutoscalerScenarioTest, RejectsBadFieldsWithTheirPaths) {
  auto errorsOf = [](const std::string& yaml) {
    std::string out;
    for (const auto& e : decodeScenario(yaml, {}).errors)
      out += e.error.field + ": " + e.error.message + "\n";
    return out;
  };
  const std::string w = "  workloads:\n" + deployment("web", 1, "1");
  EXPECT_NE(
      errorsOf(scenarioYaml("[{name: p, count: 2, maxSize: 1, cpu: \"4\", memory: 1Gi}]", "{}", w))
          .find("spec.nodePools[0].maxSize: must be in [count, 10000]"),
      std::string::npos);
  EXPECT_NE(
      errorsOf(scenarioYaml("[{name: p, count: 2, minSize: 3, cpu: \"4\", memory: 1Gi}]", "{}", w))
          .find("spec.nodePools[0].minSize: must be in [0, count]"),
      std::string::npos);
  EXPECT_NE(
      errorsOf(scenarioYaml("[{name: p, count: 2, maxSize: 3, cpu: \"4\", memory: 1Gi}]", "", w))
          .find("spec.nodePools[0].maxSize: needs spec.clusterAutoscaler"),
      std::string::npos);
  EXPECT_NE(errorsOf(scenarioYaml("[{name: p, count: 2, cpu: \"4\", memory: 1Gi, "
                                  "pricePerHour: -1}]",
                                  "", w))
                .find("spec.nodePools[0].pricePerHour: must be a non-negative number"),
            std::string::npos);
  EXPECT_NE(errorsOf(scenarioYaml("[{name: p, count: 2, cpu: \"4\", memory: 1Gi}]",
                                  "{scaleDownUtilizationThreshold: 1.5}", w))
                .find("spec.clusterAutoscaler.scaleDownUtilizationThreshold: must be in (0, 1]"),
            std::string::npos);
  EXPECT_NE(errorsOf(scenarioYaml("[{name: p, count: 2, cpu: \"4\", memory: 1Gi}]",
                                  "{scaleDownUnneededTime: 10}", w))
                .find("spec.clusterAutoscaler.scaleDownUnneededTime"),
            std::string::npos);
}

}  // namespace
}  // namespace attune::sim
