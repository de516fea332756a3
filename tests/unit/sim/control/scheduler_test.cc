// The simulated scheduler: resource fit, taints and tolerations, the Unschedulable condition,
// deterministic placement and binding's generation semantics.
#include "sim/control/scheduler.h"

#include <gtest/gtest.h>

#include <string>

#include "control_builders.h"
#include "core/clock.h"
#include "sim/control/tolerations.h"

namespace attune::sim {
namespace {

using testing::fixedTime;
using testing::pendingPod;
using testing::readyNode;
using testing::tainted;

class SchedulerTest : public ::testing::Test {
 protected:
  void add(api::Node node) { ASSERT_TRUE(state_.nodes.create(std::move(node))); }
  void add(api::Pod pod) { ASSERT_TRUE(state_.createPod(std::move(pod))); }
  api::Pod pod(std::string_view name) { return *state_.pods.get("team", name); }
  void tick() { scheduler_.tick(state_, clock_.now()); }

  SimulatedClock clock_{fixedTime()};
  ClusterState state_{clock_};
  Scheduler scheduler_;
};

TEST_F(SchedulerTest, BindsToTheNodeWhereRequestsFitAndKeepsGeneration) {
  add(readyNode("small", "1", "1Gi"));
  add(readyNode("large", "4", "8Gi"));
  add(pendingPod("big", "2", "2Gi"));
  const std::int64_t generation = pod("big").metadata.generation;
  tick();
  const api::Pod bound = pod("big");
  EXPECT_EQ(bound.spec.nodeName, "large");
  const api::Condition* scheduled = api::findCondition(bound.status.conditions, "PodScheduled");
  ASSERT_NE(scheduled, nullptr);
  EXPECT_EQ(scheduled->status, "True");
  EXPECT_EQ(bound.metadata.generation, generation);  // binding does not bump generation
}

TEST_F(SchedulerTest, CountsRequestsOfPodsAlreadyBound) {
  add(readyNode("only", "2", "4Gi"));
  add(pendingPod("a", "1500m", "1Gi"));
  add(pendingPod("b", "1", "1Gi"));
  tick();
  EXPECT_EQ(pod("a").spec.nodeName, "only");
  EXPECT_EQ(pod("b").spec.nodeName, "");
}

TEST_F(SchedulerTest, LeavesUnschedulableConditionWithReasonsWhenNothingFits) {
  add(readyNode("a", "1", "8Gi"));
  add(readyNode("b", "1", "8Gi"));
  add(tainted(readyNode("c", "8", "8Gi"), "dedicated", "gpu", "NoSchedule"));
  add(pendingPod("web", "2", "1Gi"));
  tick();
  const api::Pod p = pod("web");
  EXPECT_EQ(p.spec.nodeName, "");
  const api::Condition* c = api::findCondition(p.status.conditions, "PodScheduled");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, "Unschedulable");
  EXPECT_EQ(c->message,
            "0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint "
            "{dedicated: gpu}.");
  const std::string rv = p.metadata.resourceVersion;
  tick();  // unchanged condition: no write
  EXPECT_EQ(pod("web").metadata.resourceVersion, rv);
}

TEST_F(SchedulerTest, TaintWithoutTolerationBlocksAndTolerationAllows) {
  add(tainted(readyNode("gpu", "4", "8Gi"), "dedicated", "gpu", "NoSchedule"));
  add(pendingPod("plain", "100m", "64Mi"));
  api::Pod tolerant = pendingPod("tolerant", "100m", "64Mi");
  tolerant.spec.tolerations = {{.key = "dedicated", .value = "gpu", .effect = "NoSchedule"}};
  add(tolerant);
  api::Pod exists = pendingPod("exists", "100m", "64Mi");
  exists.spec.tolerations = {{.key = "dedicated", .operator_ = "Exists"}};
  add(exists);
  api::Pod wrongValue = pendingPod("wrong", "100m", "64Mi");
  wrongValue.spec.tolerations = {{.key = "dedicated", .value = "db", .effect = "NoSchedule"}};
  add(wrongValue);
  tick();
  EXPECT_EQ(pod("plain").spec.nodeName, "");
  EXPECT_EQ(pod("wrong").spec.nodeName, "");
  EXPECT_EQ(pod("tolerant").spec.nodeName, "gpu");
  EXPECT_EQ(pod("exists").spec.nodeName, "gpu");
}

TEST_F(SchedulerTest, SkipsNotReadyAndCordonedNodes) {
  api::Node cordoned = readyNode("a-cordoned", "8", "8Gi");
  cordoned.spec.unschedulable = true;
  add(cordoned);
  api::Node notReady = readyNode("b-down", "8", "8Gi");
  notReady.status.conditions[0].status = "False";
  add(notReady);
  add(readyNode("c-ok", "1", "1Gi"));
  add(pendingPod("web", "100m", "64Mi"));
  tick();
  EXPECT_EQ(pod("web").spec.nodeName, "c-ok");
}

TEST_F(SchedulerTest, PlacementIsLeastAllocatedWithTiesByName) {
  add(readyNode("n2", "4", "8Gi"));
  add(readyNode("n1", "4", "8Gi"));
  add(readyNode("n3", "4", "8Gi"));
  for (const char* name : {"p1", "p2", "p3", "p4"}) add(pendingPod(name, "1", "1Gi"));
  tick();
  // Equal nodes: ties by name; each binding makes that node busier for the next pod.
  EXPECT_EQ(pod("p1").spec.nodeName, "n1");
  EXPECT_EQ(pod("p2").spec.nodeName, "n2");
  EXPECT_EQ(pod("p3").spec.nodeName, "n3");
  EXPECT_EQ(pod("p4").spec.nodeName, "n1");
}

}  // namespace
}  // namespace attune::sim
