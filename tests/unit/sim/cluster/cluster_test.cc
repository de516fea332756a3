// The simulated cluster's API-server semantics: resourceVersion and generation bookkeeping,
// preconditions, 404s, lists, the pod watch log, eviction, events and leases.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "pod_builder.h"
#include "sim/cluster/cluster.h"

namespace attune::sim {
namespace {

using testing::burstablePod;
using testing::guaranteedPod;
using testing::resources;
using Type = api::WatchEventType;

class ClusterTest : public ::testing::Test {
 protected:
  ClusterTest() {
    EXPECT_TRUE(state_.createPod(guaranteedPod()));
    EXPECT_TRUE(state_.createPod(burstablePod()));
  }

  static void expectCode(const auto& result, ErrorCode code) {
    ASSERT_FALSE(result);
    EXPECT_EQ(result.error().code, code) << result.error().toString();
  }

  api::Deployment deployment() {
    api::Deployment d;
    d.metadata.namespace_ = "team";
    d.metadata.name = "web";
    return *state_.deployments.create(d);
  }

  api::Lease lease() {
    api::Lease l;
    l.metadata.namespace_ = "attune-system";
    l.metadata.name = "attune-leader";
    l.spec.holderIdentity = "pod-a";
    return *cluster_.createLease(l);
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
};

TEST_F(ClusterTest, CreateStampsUidTimestampGenerationAndQos) {
  auto pod = cluster_.getPod("team", "web");
  ASSERT_TRUE(pod);
  EXPECT_FALSE(pod->metadata.uid.empty());
  EXPECT_NE(pod->metadata.uid, cluster_.getPod("team", "api")->metadata.uid);
  EXPECT_EQ(pod->metadata.creationTimestamp, clock_.now());
  EXPECT_EQ(pod->metadata.generation, 1);
  EXPECT_EQ(pod->status.qosClass, "Guaranteed");
  EXPECT_EQ(cluster_.getPod("team", "api")->status.qosClass, "Burstable");
}

TEST_F(ClusterTest, ResourceVersionAdvancesAndIsUniquePerWrite) {
  std::set<std::string> seen = {cluster_.getPod("team", "web")->metadata.resourceVersion,
                                cluster_.getPod("team", "api")->metadata.resourceVersion};
  std::vector<std::string> versions;
  auto record = [&](const std::string& rv) {
    EXPECT_TRUE(seen.insert(rv).second) << rv;
    versions.push_back(rv);
  };
  record(cluster_.patchPodAnnotations("team", "web", {{"a", "1"}}, "")->resourceVersion);
  record(cluster_.patchPodAnnotations("team", "web", {{"a", "2"}}, "")->resourceVersion);
  record(cluster_
             .resizePod(
                 "team", "web",
                 std::vector<api::ContainerResize>{{"app", resources("1", "256Mi", "1", "256Mi")}})
             ->metadata.resourceVersion);
  record(deployment().metadata.resourceVersion);
  record(lease().metadata.resourceVersion);
  for (std::size_t i = 1; i < versions.size(); ++i) {
    EXPECT_LT(std::stoull(versions[i - 1]), std::stoull(versions[i]));
  }
  EXPECT_EQ(cluster_.listPods({})->resourceVersion, versions.back());
}

TEST_F(ClusterTest, AnnotationPatchDoesNotBumpGeneration) {
  auto meta = cluster_.patchPodAnnotations("team", "web", {{"attune.io/resized-at", "t"}}, "");
  ASSERT_TRUE(meta) << meta.error().toString();
  EXPECT_EQ(meta->generation, 1);
  EXPECT_EQ(meta->annotations.at("attune.io/resized-at"), "t");
  auto removed = cluster_.patchPodAnnotations("team", "web", {{"attune.io/resized-at", {}}}, "");
  EXPECT_FALSE(removed->annotations.contains("attune.io/resized-at"));
  EXPECT_EQ(removed->generation, 1);
}

TEST_F(ClusterTest, NoOpAnnotationPatchIsNotAWrite) {
  const std::string rv =
      cluster_.patchPodAnnotations("team", "web", {{"a", "1"}}, "")->resourceVersion;
  EXPECT_EQ(
      cluster_.patchPodAnnotations("team", "web", {{"a", "1"}, {"b", {}}}, "")->resourceVersion,
      rv);
}

TEST_F(ClusterTest, StaleResourceVersionOnAnnotationPatchIsConflict) {
  const std::string rv = cluster_.getPod("team", "web")->metadata.resourceVersion;
  ASSERT_TRUE(cluster_.patchPodAnnotations("team", "web", {{"a", "1"}}, rv));
  expectCode(cluster_.patchPodAnnotations("team", "web", {{"a", "2"}}, rv), ErrorCode::kConflict);
  EXPECT_EQ(cluster_.getPod("team", "web")->metadata.annotations.at("a"), "1");

  const api::Deployment d = deployment();
  auto patched = cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team", "web",
                                                   {{"attune.io/last-resize-time", "t"}},
                                                   d.metadata.resourceVersion);
  ASSERT_TRUE(patched) << patched.error().toString();
  EXPECT_EQ(patched->generation, d.metadata.generation);
  expectCode(cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team", "web",
                                               {{"x", "y"}}, d.metadata.resourceVersion),
             ErrorCode::kConflict);
}

TEST_F(ClusterTest, UnknownObjectsAreNotFound) {
  expectCode(cluster_.getPod("team", "ghost"), ErrorCode::kNotFound);
  expectCode(cluster_.getPod("other", "web"), ErrorCode::kNotFound);
  expectCode(cluster_.getNode("node-1"), ErrorCode::kNotFound);
  expectCode(cluster_.getDeployment("team", "web"), ErrorCode::kNotFound);
  expectCode(cluster_.getCronJob("team", "nightly"), ErrorCode::kNotFound);
  expectCode(cluster_.getLease("attune-system", "attune-leader"), ErrorCode::kNotFound);
  expectCode(cluster_.patchPodAnnotations("team", "ghost", {{"a", "1"}}, ""), ErrorCode::kNotFound);
  expectCode(cluster_.patchWorkloadAnnotations(api::WorkloadKind::kStatefulSet, "team", "db",
                                               {{"a", "1"}}, ""),
             ErrorCode::kNotFound);
  api::Eviction eviction;
  eviction.metadata.namespace_ = "team";
  eviction.metadata.name = "ghost";
  expectCode(cluster_.evictPod(eviction), ErrorCode::kNotFound);
  api::Lease l;
  l.metadata.namespace_ = "attune-system";
  l.metadata.name = "attune-leader";
  expectCode(cluster_.updateLease(l), ErrorCode::kNotFound);
}

TEST_F(ClusterTest, ListsFilterByNamespaceAndSelector) {
  ASSERT_TRUE(state_.createPod(testing::PodBuilder("other", "web").label("app", "web").build()));
  EXPECT_EQ(cluster_.listPods({})->items.size(), 3u);
  EXPECT_EQ(cluster_.listPods({.namespace_ = "team"})->items.size(), 2u);
  api::ListOptions byLabel;
  byLabel.labelSelector.matchLabels = {{"app", "web"}};
  auto web = cluster_.listPods(byLabel);
  ASSERT_EQ(web->items.size(), 2u);
  EXPECT_EQ(web->items[0].metadata.namespace_, "other");
  api::ListOptions notWeb;
  notWeb.labelSelector.matchExpressions = {{"app", "NotIn", {"web"}}};
  ASSERT_EQ(cluster_.listPods(notWeb)->items.size(), 1u);
  EXPECT_EQ(cluster_.listPods(notWeb)->items[0].metadata.name, "api");
}

TEST_F(ClusterTest, WatchReturnsEventsAfterResourceVersionInOrder) {
  const std::string start = cluster_.listPods({})->resourceVersion;
  ASSERT_TRUE(state_.createPod(testing::PodBuilder("team", "batch").build()));
  ASSERT_TRUE(cluster_.patchPodAnnotations("team", "web", {{"a", "1"}}, ""));
  api::Eviction eviction;
  eviction.metadata.namespace_ = "team";
  eviction.metadata.name = "batch";
  ASSERT_TRUE(cluster_.evictPod(eviction));

  auto batch = cluster_.watchPods({}, start);
  ASSERT_TRUE(batch) << batch.error().toString();
  ASSERT_EQ(batch->events.size(), 3u);
  EXPECT_EQ(batch->events[0].type, Type::kAdded);
  EXPECT_EQ(batch->events[0].object.metadata.name, "batch");
  EXPECT_EQ(batch->events[1].type, Type::kModified);
  EXPECT_EQ(batch->events[1].object.metadata.annotations.at("a"), "1");
  EXPECT_EQ(batch->events[2].type, Type::kDeleted);
  EXPECT_EQ(batch->events[2].object.metadata.name, "batch");
  EXPECT_EQ(batch->resourceVersion, batch->events[2].object.metadata.resourceVersion);
  for (std::size_t i = 1; i < batch->events.size(); ++i) {
    EXPECT_LT(std::stoull(batch->events[i - 1].object.metadata.resourceVersion),
              std::stoull(batch->events[i].object.metadata.resourceVersion));
  }
  // Resuming from the batch's resourceVersion gives nothing new; from the start, everything.
  EXPECT_TRUE(cluster_.watchPods({}, batch->resourceVersion)->events.empty());
  EXPECT_EQ(cluster_.watchPods({}, "")->events.size(), 5u);
  EXPECT_EQ(cluster_.watchPods({.namespace_ = "team"}, start)->events.size(), 3u);
  EXPECT_TRUE(cluster_.watchPods({.namespace_ = "other"}, start)->events.empty());
  auto bad = cluster_.watchPods({}, "abc");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "resourceVersion");
}

TEST_F(ClusterTest, EvictionDeletesThePodAndIsRecorded) {
  const api::Pod pod = *cluster_.getPod("team", "web");
  api::Eviction eviction;
  eviction.metadata.namespace_ = "team";
  eviction.metadata.name = "web";
  eviction.deleteOptions = api::DeleteOptions{.preconditionUid = "wrong-uid"};
  expectCode(cluster_.evictPod(eviction), ErrorCode::kConflict);
  eviction.deleteOptions->preconditionUid = pod.metadata.uid;
  clock_.advance(std::chrono::seconds(30));
  ASSERT_TRUE(cluster_.evictPod(eviction));
  expectCode(cluster_.getPod("team", "web"), ErrorCode::kNotFound);
  ASSERT_EQ(state_.evictions().size(), 1u);
  EXPECT_EQ(state_.evictions()[0].pod.metadata.uid, pod.metadata.uid);
  EXPECT_EQ(state_.evictions()[0].at, clock_.now());
}

TEST_F(ClusterTest, EventsAreStored) {
  api::Event event;
  event.metadata.namespace_ = "team";
  event.metadata.generateName = "web.";
  event.involvedObject = {.apiVersion = "v1", .kind = "Pod", .namespace_ = "team", .name = "web"};
  event.reason = "Resized";
  event.type = "Normal";
  event.message = "cpu 500m -> 750m";
  auto created = cluster_.createEvent(event);
  ASSERT_TRUE(created) << created.error().toString();
  EXPECT_FALSE(created->metadata.name.empty());
  EXPECT_FALSE(created->metadata.resourceVersion.empty());
  auto second = cluster_.createEvent(event);
  ASSERT_TRUE(second);
  EXPECT_NE(second->metadata.name, created->metadata.name);
  auto events = cluster_.listEvents({.namespace_ = "team"});
  ASSERT_EQ(events->items.size(), 2u);
  EXPECT_EQ(events->items[0].reason, "Resized");
  event.metadata.generateName.clear();
  auto unnamed = cluster_.createEvent(event);
  ASSERT_FALSE(unnamed);
  EXPECT_EQ(unnamed.error().field, "metadata.name");
}

TEST_F(ClusterTest, LeaseUpdateWithStaleResourceVersionIsConflict) {
  api::Lease held = lease();
  expectCode(cluster_.createLease(held), ErrorCode::kConflict);
  api::Lease renew = held;
  renew.spec.renewTime = clock_.now();
  auto renewed = cluster_.updateLease(renew);
  ASSERT_TRUE(renewed) << renewed.error().toString();
  EXPECT_NE(renewed->metadata.resourceVersion, held.metadata.resourceVersion);
  // A second candidate still holding the old resourceVersion loses.
  api::Lease takeover = held;
  takeover.spec.holderIdentity = "pod-b";
  expectCode(cluster_.updateLease(takeover), ErrorCode::kConflict);
  EXPECT_EQ(cluster_.getLease("attune-system", "attune-leader")->spec.holderIdentity, "pod-a");
}

}  // namespace
}  // namespace attune::sim
