// CachedClusterApi over a simulated cluster: reads from the cache (filtered, sorted), reads
// passed through, writes passed through and recorded in the cache.
#include "kube/cached_cluster_api.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "faulty_cluster_api.h"
#include "kube_test_pods.h"
#include "sim/cluster/cluster.h"
#include "support/shared_list.h"

namespace attune::kube {
namespace {

using attune::testing::objectsOf;
using testing::FaultyClusterApi;
using testing::makePod;

Quantity q(std::string_view text) { return *Quantity::parse(text); }

template <typename T>
std::vector<std::string> names(const std::vector<T>& objects) {
  std::vector<std::string> out;
  for (const T& o : objects) out.push_back(o.metadata.namespace_ + "/" + o.metadata.name);
  return out;
}

class CachedClusterApiTest : public ::testing::Test {
 protected:
  CachedClusterApiTest() {
    // Created out of order: lists must come back sorted.
    EXPECT_TRUE(state_.createPod(makePod("team-b", "web-1", "", {{"app", "web"}})));
    EXPECT_TRUE(state_.createPod(makePod("team-a", "web-2", "", {{"app", "web"}})));
    EXPECT_TRUE(state_.createPod(makePod("team-a", "web-1", "", {{"app", "web"}})));
    EXPECT_TRUE(state_.createPod(makePod("team-a", "db-1", "", {{"app", "db"}})));
    api::Deployment d;
    d.metadata.namespace_ = "team-a";
    d.metadata.name = "web";
    d.metadata.labels = {{"app", "web"}};
    EXPECT_TRUE(state_.deployments.create(d));
    api::Node node;
    node.metadata.name = "node-1";
    EXPECT_TRUE(state_.nodes.create(node));
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  FaultyClusterApi inner_{cluster_};
};

TEST_F(CachedClusterApiTest, ReadsPassThroughUntilTheFirstSync) {
  CachedClusterApi api(inner_, clock_);
  auto pod = api.getPod("team-a", "web-1");
  ASSERT_TRUE(pod);
  EXPECT_EQ(inner_.getPodCalls, 1);
  ASSERT_TRUE(api.sync());
  ASSERT_TRUE(api.getPod("team-a", "web-1"));
  EXPECT_EQ(inner_.getPodCalls, 1);  // served from the cache now
}

// Every snapshot asks for the server version: answered from the last answer for a minute.
TEST_F(CachedClusterApiTest, TheServerVersionIsAskedForOnceAMinute) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.getServerVersion());
  ASSERT_TRUE(api.getServerVersion());
  EXPECT_EQ(inner_.versionCalls, 1);
  clock_.advance(std::chrono::seconds(59));
  auto version = api.getServerVersion();
  ASSERT_TRUE(version);
  EXPECT_EQ(version->gitVersion, cluster_.getServerVersion()->gitVersion);
  EXPECT_EQ(inner_.versionCalls, 1);
  clock_.advance(std::chrono::seconds(1));
  ASSERT_TRUE(api.getServerVersion());
  EXPECT_EQ(inner_.versionCalls, 2);
  CachedClusterApiOptions always;
  always.serverVersionTtl = Duration::zero();
  CachedClusterApi uncached(inner_, clock_, always);
  ASSERT_TRUE(uncached.getServerVersion());
  ASSERT_TRUE(uncached.getServerVersion());
  EXPECT_EQ(inner_.versionCalls, 4);
}

// The LIST baseline (listEveryRead): sync() caches nothing, every read is the server's.
TEST_F(CachedClusterApiTest, WithoutACacheEveryReadGoesToTheServer) {
  CachedClusterApiOptions options;
  options.listEveryRead = true;
  CachedClusterApi api(inner_, clock_, options);
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(api.podView(""), nullptr);
  ASSERT_TRUE(api.getPod("team-a", "web-1"));
  ASSERT_TRUE(api.getPod("team-a", "web-1"));
  EXPECT_EQ(inner_.getPodCalls, 2);
  // A pod created after the sync is listed at once: nothing stands between.
  ASSERT_TRUE(state_.createPod(makePod("team-c", "new-1", "", {})));
  auto listed = api.listPods({});
  ASSERT_TRUE(listed);
  EXPECT_EQ(names(listed->items), names(cluster_.listPods({})->items));
  EXPECT_EQ(listed->items.size(), 5u);
}

TEST_F(CachedClusterApiTest, ListsFilterAndSortLikeTheServer) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.sync());
  const int lists = inner_.listPodsCalls;
  ASSERT_TRUE(state_.createPod(makePod("team-a", "web-0", "", {{"app", "web"}})));
  ASSERT_TRUE(api.sync());  // brought by the watch

  auto all = api.listPods({});
  ASSERT_TRUE(all);
  EXPECT_EQ(names(all->items),
            (std::vector<std::string>{"team-a/db-1", "team-a/web-0", "team-a/web-1", "team-a/web-2",
                                      "team-b/web-1"}));
  EXPECT_EQ(all->resourceVersion, api.pods().resourceVersion());

  api::ListOptions webInA;
  webInA.namespace_ = "team-a";
  webInA.labelSelector.matchLabels = {{"app", "web"}};
  auto filtered = api.listPods(webInA);
  ASSERT_TRUE(filtered);
  EXPECT_EQ(names(filtered->items),
            (std::vector<std::string>{"team-a/web-0", "team-a/web-1", "team-a/web-2"}));
  for (const api::ListOptions& options : {api::ListOptions{}, webInA}) {
    EXPECT_EQ(api.listPods(options)->items, cluster_.listPods(options)->items);
  }
  EXPECT_EQ(inner_.listPodsCalls, lists);  // none of the reads listed

  api::ListOptions dbSelector;
  dbSelector.labelSelector.matchExpressions.push_back({"app", "In", {"db", "cache"}});
  EXPECT_EQ(names(api.listPods(dbSelector)->items), (std::vector<std::string>{"team-a/db-1"}));

  EXPECT_EQ(names(api.listDeployments({})->items), (std::vector<std::string>{"team-a/web"}));
  api::ListOptions inB;
  inB.namespace_ = "team-b";
  EXPECT_TRUE(api.listDeployments(inB)->items.empty());
  EXPECT_EQ(names(api.listNodes(inB)->items), (std::vector<std::string>{"/node-1"}));
}

TEST_F(CachedClusterApiTest, GetOfAnUncachedObjectIsNotFound) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.sync());
  auto pod = api.getPod("team-a", "nope");
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(pod.error().message, "pods \"nope\" not found");
  EXPECT_EQ(api.getDeployment("team-a", "nope").error().code, ErrorCode::kNotFound);
  EXPECT_EQ(api.getNode("node-1")->metadata.name, "node-1");
  EXPECT_EQ(inner_.getPodCalls, 0);
}

TEST_F(CachedClusterApiTest, ReadsOutsideTheCachedNamespacePassThrough) {
  CachedClusterApiOptions options;
  options.namespace_ = "team-a";
  CachedClusterApi api(inner_, clock_, options);
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(api.pods().size(), 3u);
  const int lists = inner_.listPodsCalls;
  api::ListOptions inB;
  inB.namespace_ = "team-b";
  EXPECT_EQ(names(api.listPods(inB)->items), (std::vector<std::string>{"team-b/web-1"}));
  EXPECT_EQ(names(api.listPods({})->items).size(), 4u);  // all namespaces: not cached
  EXPECT_EQ(inner_.listPodsCalls, lists + 2);
  ASSERT_TRUE(api.getPod("team-b", "web-1"));
  EXPECT_EQ(inner_.getPodCalls, 1);
}

TEST_F(CachedClusterApiTest, OtherKindsAreRelistedOnEverySync) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.sync());
  api::Deployment d;
  d.metadata.namespace_ = "team-a";
  d.metadata.name = "api";
  ASSERT_TRUE(state_.deployments.create(d));
  EXPECT_FALSE(api.getDeployment("team-a", "api"));  // a cache: not seen yet
  ASSERT_TRUE(api.sync());
  EXPECT_TRUE(api.getDeployment("team-a", "api"));
  EXPECT_EQ(inner_.listDeploymentsCalls, 2);
}

TEST_F(CachedClusterApiTest, SyncReportsAFailureAndKeepsTheOldCache) {
  CachedClusterApiOptions options;
  options.podResync = Duration::zero();  // relist pods on every sync
  CachedClusterApi api(inner_, clock_, options);
  ASSERT_TRUE(api.sync());
  inner_.listPodsError = Error{ErrorCode::kUnavailable, "down", ""};
  ASSERT_TRUE(state_.deployments.erase("team-a", "web"));
  auto result = api.sync();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "down");
  EXPECT_EQ(api.listPods({})->items.size(), 4u);     // kept
  EXPECT_FALSE(api.getDeployment("team-a", "web"));  // the others still synced
}

TEST_F(CachedClusterApiTest, WritesPassThroughAndUpdateTheCache) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.sync());

  api::AnnotationChanges changes;
  changes["attune.io/last-resize"] = "r1";
  auto meta = api.patchPodAnnotations("team-a", "web-1", changes, "");
  ASSERT_TRUE(meta);
  EXPECT_EQ(cluster_.getPod("team-a", "web-1")->metadata.annotations.at("attune.io/last-resize"),
            "r1");
  EXPECT_EQ(api.getPod("team-a", "web-1")->metadata.annotations.at("attune.io/last-resize"),
            "r1");  // before any sync
  EXPECT_EQ(api.getPod("team-a", "web-1")->metadata.resourceVersion, meta->resourceVersion);

  api::ContainerResize resize{"app", {}};
  resize.resources = attune::testing::resources("300m", "64Mi", "500m", "256Mi");
  ASSERT_TRUE(api.resizePod("team-a", "web-1", std::span(&resize, 1)));
  EXPECT_EQ(api.getPod("team-a", "web-1")->spec.containers[0].resources.requests.cpu, q("300m"));

  // A failed write changes nothing.
  auto stale = api.patchPodAnnotations("team-a", "web-1", changes, meta->resourceVersion);
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::kConflict);

  api::AnnotationChanges cooldown;
  cooldown["attune.io/cooldown"] = "until";
  ASSERT_TRUE(
      api.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-a", "web", cooldown, ""));
  EXPECT_EQ(api.getDeployment("team-a", "web")->metadata.annotations.at("attune.io/cooldown"),
            "until");

  api::AttunePolicy policy;
  policy.metadata.namespace_ = "team-a";
  policy.metadata.name = "p";
  auto created = api.createAttunePolicy(policy);
  ASSERT_TRUE(created);
  EXPECT_EQ(api.getAttunePolicy("team-a", "p")->metadata.uid, created->metadata.uid);

  // After the watch catches up the cache equals the server.
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(*api.getPod("team-a", "web-1"), *cluster_.getPod("team-a", "web-1"));
  EXPECT_EQ(api.listPods({})->items, cluster_.listPods({})->items);
}

// An inner api that runs tasks two at a time, each on a thread of its own, with a lane whose
// calls reach the simulated cluster one at a time (it is not thread-safe).
class TwoLanes final : public api::ForwardingClusterApi {
 public:
  explicit TwoLanes(api::ClusterApi& inner) : ForwardingClusterApi(inner) {}

  std::size_t taskLanes() const override { return 2; }
  void runTasks(std::span<const Task> tasks) override {
    std::atomic<std::size_t> next = 0;
    const auto lane = [&] {
      Lane through(*this);
      for (std::size_t i = next++; i < tasks.size(); i = next++) tasks[i](through);
    };
    std::jthread first(lane);
    std::jthread second(lane);
  }
  int laneCalls() {
    const std::lock_guard lock(mutex_);
    return laneCalls_;
  }

 private:
  class Lane final : public api::ForwardingClusterApi {
   public:
    explicit Lane(TwoLanes& owner) : ForwardingClusterApi(owner.inner()), owner_(owner) {}
    Result<api::Pod> getPod(std::string_view ns, std::string_view name) override {
      const auto lock = owner_.call();
      return inner().getPod(ns, name);
    }
    Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                                const api::AnnotationChanges& changes,
                                                std::string_view resourceVersion) override {
      const auto lock = owner_.call();
      return inner().patchPodAnnotations(ns, name, changes, resourceVersion);
    }
    Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                               std::span<const api::ContainerResize> containers) override {
      const auto lock = owner_.call();
      return inner().resizePod(ns, name, containers);
    }
    Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                     std::string_view name,
                                                     const api::AnnotationChanges& changes,
                                                     std::string_view resourceVersion) override {
      const auto lock = owner_.call();
      return inner().patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion);
    }

   private:
    TwoLanes& owner_;
  };

  std::unique_lock<std::mutex> call() {
    std::unique_lock lock(mutex_);
    ++laneCalls_;
    return lock;
  }

  std::mutex mutex_;
  int laneCalls_ = 0;  // guarded by mutex_
};

// What the actuation of a resize does, as a task: read the pod, record, resize.
api::ClusterApi::Task resizeTask(std::string name) {
  return [name = std::move(name)](api::ClusterApi& api) {
    auto pod = api.getPod("team-a", name);
    ASSERT_TRUE(pod) << pod.error().toString();
    api::AnnotationChanges record;
    record["attune.io/resized-at"] = name;
    ASSERT_TRUE(api.patchPodAnnotations("team-a", name, record, pod->metadata.resourceVersion));
    api::ContainerResize resize{"app", {}};
    resize.resources = attune::testing::resources("300m", "64Mi", "500m", "256Mi");
    ASSERT_TRUE(api.resizePod("team-a", name, std::span(&resize, 1)));
  };
}

TEST_F(CachedClusterApiTest, TasksOnTheInnerApisLanesRecordTheirWritesInTheCache) {
  TwoLanes lanes(inner_);
  CachedClusterApi api(lanes, clock_);
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(api.taskLanes(), 2U);
  const int reads = inner_.getPodCalls;
  std::vector<api::ClusterApi::Task> tasks{resizeTask("web-1"), resizeTask("web-2")};
  tasks.emplace_back([](api::ClusterApi& lane) {
    api::AnnotationChanges cooldown;
    cooldown["attune.io/cooldown"] = "until";
    ASSERT_TRUE(lane.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-a", "web",
                                              cooldown, ""));
  });
  api.runTasks(tasks);

  // Every call went through a lane; the tasks' reads were the server's.
  EXPECT_EQ(lanes.laneCalls(), 7);
  EXPECT_EQ(inner_.getPodCalls, reads + 2);
  // Their writes are in the cache before any sync, read from it.
  for (const char* name : {"web-1", "web-2"}) {
    auto pod = api.getPod("team-a", name);
    ASSERT_TRUE(pod);
    EXPECT_EQ(pod->metadata.annotations.at("attune.io/resized-at"), name);
    EXPECT_EQ(pod->spec.containers[0].resources.requests.cpu, q("300m")) << name;
  }
  EXPECT_EQ(api.getDeployment("team-a", "web")->metadata.annotations.at("attune.io/cooldown"),
            "until");
  EXPECT_EQ(inner_.getPodCalls, reads + 2);
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(api.listPods({})->items, cluster_.listPods({})->items);
}

// An inner api that runs tasks one at a time: they run on the cache itself, reading it.
TEST_F(CachedClusterApiTest, WithOneLaneTasksRunOnTheCache) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(api.taskLanes(), 1U);
  const int reads = inner_.getPodCalls;
  const std::vector<api::ClusterApi::Task> tasks{resizeTask("web-1")};
  api.runTasks(tasks);
  EXPECT_EQ(inner_.getPodCalls, reads);
  EXPECT_EQ(api.getPod("team-a", "web-1")->spec.containers[0].resources.requests.cpu, q("300m"));
}

// The shared lists hold what the lists would return; a write is in the next one handed out.
// None is handed out where the cache does not answer (before the first sync, outside the cached
// namespace, the LIST baseline): the reader lists then.
TEST_F(CachedClusterApiTest, SharedListsAreWhatTheListsReturn) {
  api::AttunePolicy policy;
  policy.metadata.namespace_ = "team-a";
  policy.metadata.name = "p";
  ASSERT_TRUE(cluster_.createAttunePolicy(policy));
  CachedClusterApi api(inner_, clock_);
  EXPECT_EQ(api.sharedAttunePolicies(""), nullptr);
  EXPECT_EQ(api.sharedDeployments(""), nullptr);
  ASSERT_TRUE(api.sync());
  const int lists = inner_.listDeploymentsCalls;
  ASSERT_NE(api.sharedDeployments(""), nullptr);
  EXPECT_EQ(objectsOf(*api.sharedDeployments("")), cluster_.listDeployments({})->items);
  EXPECT_EQ(objectsOf(*api.sharedReplicaSets("team-a")),
            cluster_.listReplicaSets({"team-a", {}})->items);
  const auto policies = api.sharedAttunePolicies("");
  ASSERT_NE(policies, nullptr);
  EXPECT_EQ(objectsOf(*policies), cluster_.listAttunePolicies({})->items);
  EXPECT_EQ(api.sharedAttunePolicies(""), policies);  // nothing changed: the same list
  EXPECT_EQ(inner_.listDeploymentsCalls, lists);      // no read went to the server

  api::AttunePolicy stored = *api.getAttunePolicy("team-a", "p");
  stored.status.lastReconcileTime = clock_.now();
  ASSERT_TRUE(api.updateAttunePolicyStatus(stored));
  const auto written = api.sharedAttunePolicies("");
  EXPECT_NE(written, policies);
  ASSERT_EQ(written->size(), 1u);
  EXPECT_EQ(written->front()->status.lastReconcileTime, clock_.now());
  EXPECT_FALSE(policies->front()->status.lastReconcileTime.has_value());  // held: unchanged
  EXPECT_EQ(objectsOf(*written), cluster_.listAttunePolicies({})->items);

  CachedClusterApiOptions inA;
  inA.namespace_ = "team-a";
  CachedClusterApi scoped(inner_, clock_, inA);
  ASSERT_TRUE(scoped.sync());
  EXPECT_NE(scoped.sharedAttunePolicies("team-a"), nullptr);
  EXPECT_EQ(scoped.sharedAttunePolicies("team-b"), nullptr);
  EXPECT_EQ(scoped.sharedAttunePolicies(""), nullptr);

  CachedClusterApiOptions baseline;
  baseline.listEveryRead = true;
  CachedClusterApi listing(inner_, clock_, baseline);
  ASSERT_TRUE(listing.sync());
  EXPECT_EQ(listing.sharedAttunePolicies(""), nullptr);
  EXPECT_EQ(listing.sharedDeployments(""), nullptr);
}

TEST_F(CachedClusterApiTest, EvictionIsSeenThroughTheWatch) {
  CachedClusterApi api(inner_, clock_);
  ASSERT_TRUE(api.sync());
  api::Eviction eviction;
  eviction.metadata.namespace_ = "team-a";
  eviction.metadata.name = "web-2";
  ASSERT_TRUE(api.evictPod(eviction));
  EXPECT_FALSE(cluster_.getPod("team-a", "web-2"));
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(api.getPod("team-a", "web-2").error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace attune::kube
