// The simulated workload controllers, driven tick by tick through the ControlPlane: end state
// of pods and workload status.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "control_builders.h"
#include "core/clock.h"
#include "sim/control/control_plane.h"
#include "sim/control/owned_pods.h"
#include "sim/control/tolerations.h"

namespace attune::sim {
namespace {

using testing::fixedTime;
using testing::podTemplate;
using testing::readyNode;
using testing::tainted;

class WorkloadControllersTest : public ::testing::Test {
 protected:
  WorkloadControllersTest() {
    EXPECT_TRUE(state_.nodes.create(readyNode("node-a", "8", "16Gi")));
    EXPECT_TRUE(state_.nodes.create(readyNode("node-b", "8", "16Gi")));
  }

  void tick(int times = 1) {
    for (int i = 0; i < times; ++i) controlPlane_.tick(state_, clock_.now());
  }
  // Names of the active pods in "team" labelled app=<app>.
  std::set<std::string> podNames(const std::string& app) {
    api::ListOptions options;
    options.namespace_ = "team";
    options.labelSelector.matchLabels["app"] = app;
    std::set<std::string> out;
    for (const auto& pod : state_.pods.list(options)) {
      if (isPodActive(pod)) out.insert(pod.metadata.name);
    }
    return out;
  }
  template <typename T>
  T workload(const std::string& name, std::int32_t replicas) {
    T w;
    w.metadata.namespace_ = "team";
    w.metadata.name = name;
    w.spec.replicas = replicas;
    w.spec.selector.matchLabels["app"] = name;
    w.spec.template_ = podTemplate(name, "app:1");
    return w;
  }
  void setImage(const std::string& name, const std::string& image) {
    ASSERT_TRUE(state_.deployments.modify("team", name, "", [&](api::Deployment& d) {
      d.spec.template_.spec.containers[0].image = image;
      return Change::kSpec;
    }));
  }

  SimulatedClock clock_{fixedTime()};
  ClusterState state_{clock_};
  ControlPlane controlPlane_;
};

TEST_F(WorkloadControllersTest, DeploymentCreatesOwnedReplicasThroughAReplicaSet) {
  ASSERT_TRUE(state_.deployments.create(workload<api::Deployment>("web", 3)));
  tick();
  const std::set<std::string> names = podNames("web");
  ASSERT_EQ(names.size(), 3u);
  const auto rs = state_.replicaSets.list({});
  ASSERT_EQ(rs.size(), 1u);
  EXPECT_EQ(rs[0].metadata.controllerRef()->kind, "Deployment");
  for (const auto& name : names) {
    const api::Pod pod = *state_.pods.get("team", name);
    const api::OwnerReference* ref = pod.metadata.controllerRef();
    ASSERT_NE(ref, nullptr);
    EXPECT_EQ(ref->kind, "ReplicaSet");
    EXPECT_EQ(ref->uid, rs[0].metadata.uid);
    EXPECT_EQ(pod.metadata.labels.at("app"), "web");
    EXPECT_FALSE(pod.spec.nodeName.empty());  // the scheduler bound it in the same tick
  }
  const api::Deployment d = *state_.deployments.get("team", "web");
  EXPECT_EQ(d.status.replicas, 3);
  EXPECT_EQ(d.status.updatedReplicas, 3);
  EXPECT_EQ(d.status.observedGeneration, d.metadata.generation);
}

TEST_F(WorkloadControllersTest, DeploymentReplacesADeletedPodWithANewName) {
  ASSERT_TRUE(state_.deployments.create(workload<api::Deployment>("web", 2)));
  tick();
  const std::set<std::string> before = podNames("web");
  const std::string victim = *before.begin();
  ASSERT_TRUE(state_.evictPod("team", victim));
  tick();
  const std::set<std::string> after = podNames("web");
  EXPECT_EQ(after.size(), 2u);
  EXPECT_FALSE(after.contains(victim));
  EXPECT_TRUE(after.contains(*std::next(before.begin())));
}

TEST_F(WorkloadControllersTest, RollingUpdateReplacesOnePodPerTick) {
  ASSERT_TRUE(state_.deployments.create(workload<api::Deployment>("web", 3)));
  tick();
  setImage("web", "app:2");
  std::vector<std::int32_t> updated;
  for (int i = 0; i < 3; ++i) {
    tick();
    const api::Deployment d = *state_.deployments.get("team", "web");
    EXPECT_EQ(d.status.replicas, 3);
    updated.push_back(d.status.updatedReplicas);
  }
  EXPECT_EQ(updated, (std::vector<std::int32_t>{1, 2, 3}));
  for (const auto& name : podNames("web")) {
    EXPECT_EQ(state_.pods.get("team", name)->spec.containers[0].image, "app:2");
  }
  EXPECT_EQ(state_.replicaSets.list({}).size(), 2u);  // the old one is kept, scaled to 0
}

TEST_F(WorkloadControllersTest, StatefulSetUsesOrdinalNames) {
  ASSERT_TRUE(state_.statefulSets.create(workload<api::StatefulSet>("db", 3)));
  tick();
  EXPECT_EQ(podNames("db"), (std::set<std::string>{"db-0", "db-1", "db-2"}));
  ASSERT_TRUE(state_.evictPod("team", "db-1"));
  tick();
  EXPECT_EQ(podNames("db"), (std::set<std::string>{"db-0", "db-1", "db-2"}));
  ASSERT_TRUE(state_.statefulSets.modify("team", "db", "", [](api::StatefulSet& s) {
    s.spec.replicas = 2;
    return Change::kSpec;
  }));
  tick();
  EXPECT_EQ(podNames("db"), (std::set<std::string>{"db-0", "db-1"}));
  EXPECT_EQ(state_.statefulSets.get("team", "db")->status.replicas, 2);

  ASSERT_TRUE(state_.statefulSets.modify("team", "db", "", [](api::StatefulSet& s) {
    s.spec.template_.spec.containers[0].image = "app:2";
    return Change::kSpec;
  }));
  tick();  // highest ordinal first, one per tick
  EXPECT_EQ(state_.pods.get("team", "db-1")->spec.containers[0].image, "app:2");
  EXPECT_EQ(state_.pods.get("team", "db-0")->spec.containers[0].image, "app:1");
  EXPECT_EQ(state_.statefulSets.get("team", "db")->status.updatedReplicas, 1);
  tick();
  EXPECT_EQ(state_.statefulSets.get("team", "db")->status.updatedReplicas, 2);
}

TEST_F(WorkloadControllersTest, DaemonSetRunsOnePodPerEligibleNode) {
  ASSERT_TRUE(state_.nodes.create(
      tainted(readyNode("node-gpu", "8", "16Gi"), "dedicated", "gpu", "NoSchedule")));
  ASSERT_TRUE(state_.daemonSets.create(workload<api::DaemonSet>("agent", 0)));
  tick(2);
  std::set<std::string> nodes;
  for (const auto& name : podNames("agent"))
    nodes.insert(state_.pods.get("team", name)->spec.nodeName);
  EXPECT_EQ(nodes, (std::set<std::string>{"node-a", "node-b"}));
  EXPECT_EQ(state_.daemonSets.get("team", "agent")->status.desiredNumberScheduled, 2);

  ASSERT_TRUE(state_.daemonSets.modify("team", "agent", "", [](api::DaemonSet& ds) {
    ds.spec.template_.spec.tolerations = {{.key = "dedicated", .operator_ = "Exists"}};
    return Change::kSpec;
  }));
  tick(3);  // the new node's pod, then one outdated pod replaced per tick
  nodes.clear();
  for (const auto& name : podNames("agent"))
    nodes.insert(state_.pods.get("team", name)->spec.nodeName);
  EXPECT_EQ(nodes, (std::set<std::string>{"node-a", "node-b", "node-gpu"}));
  EXPECT_EQ(state_.daemonSets.get("team", "agent")->status.updatedNumberScheduled, 3);
}

TEST_F(WorkloadControllersTest, JobCompletesAfterCompletionsSuccesses) {
  api::Job job;
  job.metadata.namespace_ = "team";
  job.metadata.name = "batch";
  job.spec.completions = 3;
  job.spec.parallelism = 2;
  job.spec.template_ = podTemplate("batch", "work:1");
  ASSERT_TRUE(state_.jobs.create(job));
  tick();
  EXPECT_EQ(podNames("batch").size(), 2u);
  for (int succeeded = 1; succeeded <= 3; ++succeeded) {
    const api::Job before = *state_.jobs.get("team", "batch");
    EXPECT_EQ(api::findCondition(before.status.conditions, "Complete"), nullptr);
    ASSERT_FALSE(podNames("batch").empty());
    ASSERT_TRUE(markPodSucceeded(state_, "team", *podNames("batch").begin(), clock_.now()));
    tick();
    EXPECT_EQ(state_.jobs.get("team", "batch")->status.succeeded, succeeded);
  }
  const api::Job done = *state_.jobs.get("team", "batch");
  const api::Condition* complete = api::findCondition(done.status.conditions, "Complete");
  ASSERT_NE(complete, nullptr);
  EXPECT_TRUE(complete->isTrue());
  EXPECT_EQ(done.status.active, 0);
  EXPECT_EQ(done.status.completionTime, clock_.now());
  EXPECT_TRUE(podNames("batch").empty());
}

}  // namespace
}  // namespace attune::sim
