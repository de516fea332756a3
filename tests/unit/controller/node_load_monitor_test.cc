// The node-load monitor on a simulated cluster: node_load1 from the kubelet model, the taint
// written through the ClusterApi, and the simulated scheduler honouring it.
#include "controller/node_load_monitor.h"

#include <gtest/gtest.h>

#include "safety/node_load.h"
#include "scenario_harness.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::controller {
namespace {

using std::chrono::minutes;

// Two 2-core nodes. `hot` runs 3 cores of demand with no CPU limit on one of them: load1 per
// core climbs to 1.5. `cold` starts with no replica; two of its 900m pods fit on either node
// by request, and the scheduler's spreading would put the second one beside `hot`.
std::string twoNodeScenario() {
  const std::string hot = testing::workloadYaml(
      {.name = "hot",
       .requests = "{cpu: 500m, memory: 256Mi}",
       .limits = "{memory: 1Gi}",
       .model = "{kind: steady, cpuCores: \"3\", memoryBytes: 100Mi, noise: 0}"});
  const std::string cold = testing::workloadYaml({.name = "cold",
                                                  .replicas = 0,
                                                  .requests = "{cpu: 900m, memory: 256Mi}",
                                                  .limits = "{cpu: 900m, memory: 1Gi}"});
  return testing::scenarioYaml(hot + cold, "", "",
                               "{name: small, count: 2, cpu: \"2\", memory: 8Gi}");
}

class NodeLoadMonitorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto decoded = sim::decodeScenario(twoNodeScenario());
    ASSERT_TRUE(decoded.scenario.has_value());
    auto sim = sim::Simulation::create(*decoded.scenario);
    ASSERT_TRUE(sim.has_value()) << sim.error().toString();
    sim_ = std::move(*sim);
    events_ = std::make_unique<EventRecorder>(sim_->api(), sim_->clock());
    monitor_ = std::make_unique<NodeLoadMonitor>(sim_->api(), sim_->metrics(), *events_, registry_,
                                                 sim_->clock());
  }

  // Steps the simulation minute by minute, running the monitor after each minute.
  NodeLoadRunSummary runMinutes(int n) {
    NodeLoadRunSummary total;
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(sim_->runFor(minutes(1)).has_value());
      auto summary = monitor_->run();
      EXPECT_TRUE(summary.has_value()) << summary.error().toString();
      if (!summary) continue;
      total.tainted += summary->tainted;
      total.untainted += summary->untainted;
      total.failed += summary->failed;
    }
    return total;
  }

  std::string nodeOf(std::string_view deployment) const {
    for (const auto& pod : sim_->state().pods.list({})) {
      if (pod.metadata.name.starts_with(std::string(deployment) + "-")) return pod.spec.nodeName;
    }
    return "";
  }

  bool tainted(const std::string& node) const {
    const auto* stored = sim_->state().nodes.find("", node);
    return stored != nullptr && safety::hasOverloadedTaint(stored->spec.taints);
  }

  void scale(std::string_view deployment, int replicas) {
    auto changed = sim_->state().deployments.modify("apps", deployment, "",
                                                    [&](api::Deployment& d) -> Result<sim::Change> {
                                                      d.spec.replicas = replicas;
                                                      return sim::Change::kSpec;
                                                    });
    ASSERT_TRUE(changed.has_value());
  }

  std::vector<api::Event> eventsWithReason(std::string_view reason) const {
    std::vector<api::Event> out;
    for (const auto& e : sim_->state().events.list({})) {
      if (e.reason == reason) out.push_back(e);
    }
    return out;
  }

  // The monitor's families (registering again returns the registered one).
  double loadRatio(const std::vector<std::string>& labels) {
    return registry_.gauge("attune_node_load_ratio", "", {"node"}).value(labels);
  }
  double taintChanges(const std::vector<std::string>& labels) {
    return registry_.counter("attune_node_taint_changes_total", "", {"change"}).value(labels);
  }

  std::unique_ptr<sim::Simulation> sim_;
  metrics::Registry registry_;
  std::unique_ptr<EventRecorder> events_;
  std::unique_ptr<NodeLoadMonitor> monitor_;
};

TEST_F(NodeLoadMonitorTest, AnOverloadedNodeIsTaintedAndNewPodsGoElsewhere) {
  const auto summary = runMinutes(10);
  const std::string hotNode = nodeOf("hot");
  ASSERT_FALSE(hotNode.empty());
  EXPECT_TRUE(tainted(hotNode));
  EXPECT_EQ(summary.tainted, 1);
  EXPECT_EQ(summary.untainted, 0);
  const std::string otherNode = hotNode == "small-0" ? "small-1" : "small-0";
  EXPECT_FALSE(tainted(otherNode));
  EXPECT_GT(loadRatio({hotNode}), 1.0);
  EXPECT_EQ(taintChanges({"taint"}), 1);
  const auto overloaded = eventsWithReason("NodeOverloaded");
  ASSERT_EQ(overloaded.size(), 1u);
  EXPECT_EQ(overloaded[0].involvedObject.kind, "Node");
  EXPECT_EQ(overloaded[0].involvedObject.name, hotNode);
  EXPECT_EQ(overloaded[0].type, "Warning");

  // Untainted, the second replica would go to hotNode (less requested); the taint keeps both
  // off it.
  scale("cold", 2);
  runMinutes(1);
  int placed = 0;
  for (const auto& pod : sim_->state().pods.list({})) {
    if (!pod.metadata.name.starts_with("cold-")) continue;
    ++placed;
    EXPECT_EQ(pod.spec.nodeName, otherNode) << pod.metadata.name;
  }
  EXPECT_EQ(placed, 2);
}

TEST_F(NodeLoadMonitorTest, TheTaintIsRemovedWhenTheLoadFallsBelowTheThreshold) {
  runMinutes(10);
  const std::string hotNode = nodeOf("hot");
  ASSERT_TRUE(tainted(hotNode));
  scale("hot", 0);
  const auto summary = runMinutes(15);
  EXPECT_FALSE(tainted(hotNode));
  EXPECT_EQ(summary.untainted, 1);
  EXPECT_EQ(summary.tainted, 0);
  EXPECT_LT(loadRatio({hotNode}), 1.0);
  EXPECT_EQ(taintChanges({"untaint"}), 1);
  EXPECT_EQ(eventsWithReason("NodeLoadRecovered").size(), 1u);
}

TEST_F(NodeLoadMonitorTest, OtherTaintsOnTheNodeAreKept) {
  const api::Taint dedicated{"dedicated", "batch", "NoSchedule"};
  runMinutes(1);
  const std::string hotNode = nodeOf("hot");
  ASSERT_FALSE(hotNode.empty());
  const std::vector<api::Taint> existing{dedicated};
  ASSERT_TRUE(sim_->api().updateNodeTaints(hotNode, existing, "").has_value());
  runMinutes(9);
  const auto* node = sim_->state().nodes.find("", hotNode);
  ASSERT_NE(node, nullptr);
  ASSERT_EQ(node->spec.taints.size(), 2u);
  EXPECT_EQ(node->spec.taints[0], dedicated);
  EXPECT_EQ(node->spec.taints[1], safety::overloadedTaint());
}

TEST_F(NodeLoadMonitorTest, RunDueRunsOncePerInterval) {
  ASSERT_TRUE(sim_->runFor(minutes(1)).has_value());
  EXPECT_TRUE(monitor_->runDue().has_value());
  EXPECT_FALSE(monitor_->runDue().has_value());
  ASSERT_TRUE(sim_->runFor(minutes(1)).has_value());
  EXPECT_TRUE(monitor_->runDue().has_value());
}

}  // namespace
}  // namespace attune::controller
