// The kubelet's side of an in-place resize: resizes go through sim::Cluster::resizePod, the
// actuator runs one sync per simulated tick, and the tests assert on the stored pods.
#include "sim/kubelet/resize_actuator.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "sim/cluster/cluster.h"

namespace attune::sim {
namespace {

using Kind = ResizeDecision::Kind;
using namespace attune::literals;

Quantity q(std::string_view text) { return Quantity::parse(text).value(); }

api::ResourceRequirements res(std::string_view cpuReq, std::string_view memReq,
                              std::string_view memLimit = "") {
  api::ResourceRequirements r;
  r.requests.cpu = q(cpuReq);
  r.requests.memory = q(memReq);
  if (!memLimit.empty()) r.limits.memory = q(memLimit);
  return r;
}

api::Container container(std::string name, api::ResourceRequirements r,
                         std::vector<api::ContainerResizePolicy> policy = {}) {
  api::Container c;
  c.name = std::move(name);
  c.image = "app:1";
  c.resources = std::move(r);
  c.resizePolicy = std::move(policy);
  return c;
}

class ResizeActuatorTest : public ::testing::Test {
 protected:
  // A node with `cpu` and `memory` allocatable.
  void addNode(std::string_view cpu, std::string_view memory) {
    api::Node node;
    node.metadata.name = "n1";
    node.status.allocatable.cpu = q(cpu);
    node.status.allocatable.memory = q(memory);
    ASSERT_TRUE(state_.nodes.create(node));
  }

  // A running pod on n1 whose containers run with (and were allocated) their spec resources.
  void addPod(std::string name, std::vector<api::Container> containers) {
    api::Pod pod;
    pod.metadata.namespace_ = "team";
    pod.metadata.name = std::move(name);
    pod.spec.nodeName = "n1";
    pod.spec.containers = std::move(containers);
    pod.status.phase = "Running";
    for (const auto& c : pod.spec.containers) {
      api::ContainerStatus s;
      s.name = c.name;
      s.ready = true;
      s.state.running = api::ContainerStateRunning{kT0};
      s.allocatedResources = c.resources.requests;
      s.resources = c.resources;
      pod.status.containerStatuses.push_back(std::move(s));
    }
    ASSERT_TRUE(state_.createPod(std::move(pod)));
  }

  void resize(std::string_view pod, std::vector<api::ContainerResize> containers) {
    auto resized = cluster_.resizePod("team", pod, containers);
    ASSERT_TRUE(resized) << resized.error().toString();
  }

  // One sync; returns the decisions.
  std::vector<ResizeDecision> tick() {
    clock_.advance(std::chrono::seconds(10));
    auto decisions =
        actuateResizes(state_, "n1", clock_.now(), [this](const api::Pod&, std::string_view c) {
          auto it = usage_.find(std::string(c));
          return it == usage_.end() ? Bytes(0) : it->second;
        });
    EXPECT_TRUE(decisions);
    return decisions.value_or(std::vector<ResizeDecision>{});
  }

  api::Pod pod(std::string_view name) { return state_.pods.get("team", name).value(); }

  const Time kT0 = *parseRfc3339("2025-01-01T00:00:00Z");
  SimulatedClock clock_{kT0};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
  std::map<std::string, Bytes> usage_;
};

TEST_F(ResizeActuatorTest, AppliedWhenItFits) {
  addNode("4", "8Gi");
  addPod("web", {container("app", res("500m", "256Mi"))});
  resize("web", {{"app", res("1", "512Mi")}});
  const std::int64_t generation = pod("web").metadata.generation;

  EXPECT_EQ(tick(), (std::vector<ResizeDecision>{{"team", "web", Kind::kApplied, ""}}));
  const api::Pod p = pod("web");
  EXPECT_EQ(p.metadata.generation, generation);  // a status write
  EXPECT_EQ(p.status.observedGeneration, generation);
  EXPECT_EQ(p.status.containerStatuses[0].allocatedResources, res("1", "512Mi").requests);
  EXPECT_EQ(p.status.containerStatuses[0].resources, res("1", "512Mi"));
  EXPECT_TRUE(p.status.conditions.empty());
  EXPECT_TRUE(tick().empty());  // nothing outstanding any more
}

TEST_F(ResizeActuatorTest, DeferredWhileNodeIsFullThenAppliedWhenRoomAppears) {
  addNode("2", "8Gi");
  addPod("web", {container("app", res("1", "256Mi"))});
  addPod("batch", {container("app", res("1", "256Mi"))});
  resize("web", {{"app", res("1500m", "256Mi")}});

  EXPECT_EQ(tick()[0].kind, Kind::kDeferred);
  api::Pod p = pod("web");
  const api::Condition* pending = api::findCondition(p.status.conditions, api::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, kResizeDeferred);
  EXPECT_EQ(pending->lastTransitionTime, clock_.now());
  EXPECT_NE(pending->message.find("cpu"), std::string::npos);
  EXPECT_EQ(p.status.containerStatuses[0].allocatedResources, res("1", "256Mi").requests);
  EXPECT_EQ(p.status.containerStatuses[0].resources, res("1", "256Mi"));

  EXPECT_EQ(tick()[0].kind, Kind::kDeferred);  // re-evaluated, still no room
  ASSERT_TRUE(state_.pods.erase("team", "batch"));
  EXPECT_EQ(tick()[0].kind, Kind::kApplied);
  p = pod("web");
  EXPECT_EQ(p.status.containerStatuses[0].resources, res("1500m", "256Mi"));
  EXPECT_EQ(api::findCondition(p.status.conditions, api::kPodResizePending), nullptr);
}

TEST_F(ResizeActuatorTest, InfeasibleBeyondAllocatableIsNeverApplied) {
  addNode("2", "8Gi");
  addPod("web", {container("app", res("500m", "256Mi"))});
  addPod("batch", {container("app", res("500m", "256Mi"))});
  resize("web", {{"app", res("3", "256Mi")}});

  EXPECT_EQ(tick()[0].kind, Kind::kInfeasible);
  ASSERT_TRUE(state_.pods.erase("team", "batch"));
  EXPECT_EQ(tick()[0].kind, Kind::kInfeasible);
  const api::Pod p = pod("web");
  const api::Condition* pending = api::findCondition(p.status.conditions, api::kPodResizePending);
  ASSERT_NE(pending, nullptr);
  EXPECT_EQ(pending->reason, kResizeInfeasible);
  EXPECT_NE(pending->message.find("cpu"), std::string::npos);
  EXPECT_EQ(p.status.containerStatuses[0].allocatedResources, res("500m", "256Mi").requests);
  EXPECT_EQ(p.status.containerStatuses[0].resources, res("500m", "256Mi"));
}

TEST_F(ResizeActuatorTest, MemoryLimitBelowUsageIsAnErrorUntilUsageDrops) {
  addNode("4", "8Gi");
  addPod("web", {container("app", res("500m", "128Mi", "512Mi"))});
  usage_["app"] = 400_Mi;
  resize("web", {{"app", res("500m", "128Mi", "256Mi")}});

  EXPECT_EQ(tick()[0].kind, Kind::kError);
  api::Pod p = pod("web");
  const api::Condition* inProgress =
      api::findCondition(p.status.conditions, api::kPodResizeInProgress);
  ASSERT_NE(inProgress, nullptr);
  EXPECT_EQ(inProgress->reason, kResizeError);
  EXPECT_NE(inProgress->message.find("memory limit"), std::string::npos);
  EXPECT_EQ(p.status.containerStatuses[0].resources, res("500m", "128Mi", "512Mi"));

  usage_["app"] = 200_Mi;
  EXPECT_EQ(tick()[0].kind, Kind::kApplied);
  p = pod("web");
  EXPECT_EQ(p.status.containerStatuses[0].resources, res("500m", "128Mi", "256Mi"));
  EXPECT_EQ(api::findCondition(p.status.conditions, api::kPodResizeInProgress), nullptr);
}

TEST_F(ResizeActuatorTest, RestartContainerPolicyRestartsOnlyThatContainer) {
  addNode("4", "8Gi");
  addPod("web", {container("app", res("500m", "128Mi"), {{"memory", "RestartContainer"}}),
                 container("side", res("100m", "64Mi"), {{"memory", "NotRequired"}})});
  resize("web", {{"app", res("500m", "256Mi")}, {"side", res("100m", "96Mi")}});

  EXPECT_EQ(tick()[0].kind, Kind::kApplied);
  const api::Pod p = pod("web");
  const api::ContainerStatus& app = p.status.containerStatuses[0];
  EXPECT_EQ(app.restartCount, 1);
  ASSERT_TRUE(app.lastState.terminated);
  EXPECT_EQ(app.lastState.terminated->finishedAt, clock_.now());
  ASSERT_TRUE(app.state.running);
  EXPECT_EQ(app.state.running->startedAt, clock_.now());
  EXPECT_EQ(p.status.containerStatuses[1].restartCount, 0);
  EXPECT_FALSE(p.status.containerStatuses[1].lastState.terminated);
}

TEST_F(ResizeActuatorTest, DefaultPolicyDoesNotRestart) {
  addNode("4", "8Gi");
  addPod("web", {container("app", res("500m", "128Mi"))});
  resize("web", {{"app", res("750m", "256Mi")}});

  EXPECT_EQ(tick()[0].kind, Kind::kApplied);
  const api::Pod p = pod("web");
  const api::ContainerStatus& app = p.status.containerStatuses[0];
  EXPECT_EQ(app.resources, res("750m", "256Mi"));
  EXPECT_EQ(app.restartCount, 0);
  EXPECT_FALSE(app.lastState.terminated);
  EXPECT_EQ(app.state.running->startedAt, kT0);
}

}  // namespace
}  // namespace attune::sim
