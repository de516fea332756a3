// PodInformer and ListedInformer over a simulated cluster: the initial LIST, watch events,
// 410 Gone, dropped streams, resync, indexes, write-through; and the compact pod encoding.
#include "kube/informer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "api/k8s/decode.h"
#include "faulty_cluster_api.h"
#include "kube/compact_pod.h"
#include "kube_test_pods.h"
#include "sim/cluster/cluster.h"
#include "support/pod_builder.h"
#include "support/pod_json.h"
#include "support/shared_list.h"

namespace attune::kube {
namespace {

using attune::testing::objectsOf;
using attune::testing::resources;
using testing::FaultyClusterApi;
using testing::makePod;

Quantity q(std::string_view text) { return *Quantity::parse(text); }

std::vector<std::string> names(const std::vector<const ObjectKey*>& keys) {
  std::vector<std::string> out;
  for (const ObjectKey* k : keys) out.push_back(k->namespace_ + "/" + k->name);
  return out;
}

api::AnnotationChanges annotate(std::string key, std::string value) {
  api::AnnotationChanges changes;
  changes[std::move(key)] = std::move(value);
  return changes;
}

class InformerTest : public ::testing::Test {
 protected:
  InformerTest() {
    EXPECT_TRUE(state_.createPod(makePod("team-a", "web-1", "web-rs")));
    EXPECT_TRUE(state_.createPod(makePod("team-a", "web-2", "web-rs")));
    EXPECT_TRUE(state_.createPod(makePod("team-b", "api-1", "api-rs")));
  }

  InformerOptions options(Duration resync = std::chrono::minutes(10)) {
    InformerOptions o;
    o.resyncPeriod = resync;
    return o;
  }

  std::string annotation(const PodInformer& informer, std::string_view ns, std::string_view name,
                         const std::string& key) {
    const api::Pod* pod = informer.get(ns, name);
    if (pod == nullptr) return "<no pod>";
    auto it = pod->metadata.annotations.find(key);
    return it == pod->metadata.annotations.end() ? "<none>" : it->second;
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  FaultyClusterApi api_{cluster_};
};

TEST_F(InformerTest, FirstSyncListsEverything) {
  PodInformer informer(api_, clock_, options());
  EXPECT_FALSE(informer.synced());
  EXPECT_EQ(informer.get("team-a", "web-1"), nullptr);
  ASSERT_TRUE(informer.sync());
  EXPECT_TRUE(informer.synced());
  EXPECT_EQ(api_.listPodsCalls, 1);
  EXPECT_EQ(api_.watchCalls, 0);
  EXPECT_EQ(informer.size(), 3u);
  EXPECT_EQ(informer.resourceVersion(), cluster_.listPods({})->resourceVersion);
  const api::Pod* pod = informer.get("team-b", "api-1");
  ASSERT_NE(pod, nullptr);
  EXPECT_EQ(*pod, *cluster_.getPod("team-b", "api-1"));
  EXPECT_EQ(informer.get("team-b", "web-1"), nullptr);
  EXPECT_EQ(informer.stats().relists, 1u);
}

TEST_F(InformerTest, NamespaceAndSelectorScopeTheCache) {
  ASSERT_TRUE(state_.createPod(makePod("team-a", "db-1", "", {{"tier", "db"}})));
  InformerOptions scoped = options();
  scoped.list.namespace_ = "team-a";
  scoped.list.labelSelector.matchLabels = {{"tier", "db"}};
  PodInformer informer(api_, clock_, scoped);
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.size(), 1u);
  EXPECT_NE(informer.get("team-a", "db-1"), nullptr);
  ASSERT_TRUE(state_.createPod(makePod("team-a", "db-2", "", {{"tier", "db"}})));
  ASSERT_TRUE(state_.createPod(makePod("team-a", "web-3", "web-rs")));
  ASSERT_TRUE(state_.createPod(makePod("team-b", "db-3", "", {{"tier", "db"}})));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(names(informer.keysInNamespace("team-a")),
            (std::vector<std::string>{"team-a/db-1", "team-a/db-2"}));
  EXPECT_EQ(informer.size(), 2u);
}

TEST_F(InformerTest, WatchAppliesAddModifyDeleteInOrder) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  ASSERT_TRUE(state_.createPod(makePod("team-a", "web-3", "web-rs")));
  ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-1", annotate("note", "one"), ""));
  ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-1", annotate("note", "two"), ""));
  ASSERT_TRUE(state_.deletePod("team-b", "api-1"));
  // Added then deleted within one batch: gone at the end.
  ASSERT_TRUE(state_.createPod(makePod("team-b", "tmp", "")));
  ASSERT_TRUE(state_.deletePod("team-b", "tmp"));

  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(api_.listPodsCalls, 1);  // no relist: the watch carried everything
  EXPECT_EQ(api_.watchCalls, 1);
  EXPECT_EQ(informer.stats().events, 6u);
  EXPECT_NE(informer.get("team-a", "web-3"), nullptr);
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "note"), "two");
  EXPECT_EQ(informer.get("team-b", "api-1"), nullptr);
  EXPECT_EQ(informer.get("team-b", "tmp"), nullptr);
  EXPECT_EQ(informer.size(), 3u);
  // The namespace counts follow adds and deletes (team-b's last pod went, so it has none).
  EXPECT_EQ(informer.podCount("team-a"), 3u);
  EXPECT_EQ(informer.podCount("team-b"), 0u);
  EXPECT_EQ(informer.podCount(""), 0u);
  EXPECT_EQ(informer.resourceVersion(), cluster_.listPods({})->resourceVersion);
  // Every cached pod equals the server's.
  informer.forEach("", [&](const api::Pod& pod) {
    EXPECT_EQ(pod, *cluster_.getPod(pod.metadata.namespace_, pod.metadata.name));
  });
}

TEST_F(InformerTest, ExpiredWatchRelists) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  ASSERT_TRUE(state_.createPod(makePod("team-a", "web-3", "web-rs")));
  api_.dropWatchEvents = true;  // whatever the watch had is lost with the 410
  api_.watchError = Error{ErrorCode::kConflict, "too old resource version", "resourceVersion"};
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(api_.listPodsCalls, 2);
  EXPECT_EQ(informer.stats().expired, 1u);
  EXPECT_EQ(informer.stats().relists, 2u);
  EXPECT_NE(informer.get("team-a", "web-3"), nullptr);
  EXPECT_EQ(informer.size(), 4u);
  EXPECT_EQ(informer.podCount("team-a"), 3u);  // counted once, not added to the first list's
  EXPECT_EQ(informer.podCount("team-b"), 1u);
}

TEST_F(InformerTest, UnavailableWatchKeepsCacheAndReconnects) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  const std::string rv = informer.resourceVersion();
  ASSERT_TRUE(state_.deletePod("team-a", "web-2"));
  api_.watchError = Error{ErrorCode::kUnavailable, "connection reset", ""};
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.stats().reconnects, 1u);
  EXPECT_EQ(api_.listPodsCalls, 1);  // no relist
  EXPECT_EQ(informer.size(), 3u);    // the cache as it was
  EXPECT_NE(informer.get("team-a", "web-2"), nullptr);
  EXPECT_EQ(informer.resourceVersion(), rv);
  ASSERT_TRUE(informer.stats().lastError);
  EXPECT_EQ(informer.stats().lastError->code, ErrorCode::kUnavailable);

  // The next sync resumes from the same resourceVersion and catches up.
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(api_.listPodsCalls, 1);
  EXPECT_EQ(informer.get("team-a", "web-2"), nullptr);
  EXPECT_EQ(informer.size(), 2u);
}

TEST_F(InformerTest, ResyncRelistHealsAMissedChange) {
  PodInformer informer(api_, clock_, options(std::chrono::minutes(10)));
  ASSERT_TRUE(informer.sync());
  api_.dropWatchEvents = true;
  ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-1", annotate("note", "missed"), ""));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "note"), "<none>");  // drifted
  clock_.advance(std::chrono::minutes(9));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "note"), "<none>");
  EXPECT_EQ(api_.listPodsCalls, 1);
  clock_.advance(std::chrono::minutes(1));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(api_.listPodsCalls, 2);
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "note"), "missed");
}

TEST_F(InformerTest, FailedRelistKeepsTheCacheAndReturnsTheError) {
  PodInformer informer(api_, clock_, options(std::chrono::minutes(1)));
  ASSERT_TRUE(informer.sync());
  ASSERT_TRUE(state_.deletePod("team-a", "web-1"));
  clock_.advance(std::chrono::minutes(1));
  api_.listPodsError = Error{ErrorCode::kUnavailable, "apiserver down", ""};
  auto result = informer.sync();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().message, "apiserver down");
  EXPECT_EQ(informer.size(), 3u);
  EXPECT_NE(informer.get("team-a", "web-1"), nullptr);
  // Still due: the next sync lists again.
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.size(), 2u);
  EXPECT_EQ(informer.stats().relists, 2u);
}

// Every cached pod, whole, in the informer's (namespace, name) order.
std::vector<api::Pod> cachedPods(const PodInformer& informer) {
  std::vector<api::Pod> out;
  informer.forEachPod({}, [&](const api::Pod& pod) { out.push_back(pod); });
  return out;
}

TEST_F(InformerTest, PagedListFillsTheCacheAsAnUnpagedListDoes) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(state_.createPod(makePod("team-c", "batch-" + std::to_string(i), "batch-rs")));
  }
  InformerOptions paged = options();
  paged.pageSize = 3;
  PodInformer informer(api_, clock_, paged);
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(api_.pageCalls, 5);  // 13 pods, 3 a page
  EXPECT_EQ(informer.stats().listRestarts, 0u);

  InformerOptions whole = options();
  whole.pageSize = 0;
  PodInformer unpaged(api_, clock_, whole);
  ASSERT_TRUE(unpaged.sync());
  EXPECT_EQ(cachedPods(informer), cachedPods(unpaged));
  EXPECT_EQ(cachedPods(informer), cluster_.listPods({})->items);
  EXPECT_EQ(informer.resourceVersion(), unpaged.resourceVersion());
}

TEST_F(InformerTest, PagedListRestartsAfterA410MidWay) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(state_.createPod(makePod("team-c", "batch-" + std::to_string(i), "batch-rs")));
  }
  InformerOptions paged = options();
  paged.pageSize = 4;
  PodInformer informer(api_, clock_, paged);
  // After the first page the cluster changes (a pod added, one deleted, one annotated) and the
  // continue token expires: the list starts again and sees the cluster as it now is.
  bool changed = false;
  api_.afterPage = [&] {
    if (std::exchange(changed, true)) return;
    ASSERT_TRUE(state_.createPod(makePod("team-a", "web-0", "web-rs")));
    ASSERT_TRUE(state_.deletePod("team-c", "batch-7"));
    ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-2", annotate("note", "late"), ""));
    api_.goneOnContinue = true;
  };
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.stats().listRestarts, 1u);
  EXPECT_EQ(informer.stats().relists, 1u);
  EXPECT_EQ(api_.listPodsCalls, 2);  // two first pages
  EXPECT_EQ(api_.pageCalls, 2 + 4);  // the first page and the 410, then 13 pods 4 a page

  InformerOptions whole = options();
  whole.pageSize = 0;
  PodInformer unpaged(api_, clock_, whole);
  ASSERT_TRUE(unpaged.sync());
  EXPECT_EQ(cachedPods(informer), cachedPods(unpaged));
  EXPECT_EQ(cachedPods(informer), cluster_.listPods({})->items);
  EXPECT_EQ(informer.resourceVersion(), cluster_.listPods({})->resourceVersion);
  EXPECT_EQ(annotation(informer, "team-a", "web-2", "note"), "late");
  EXPECT_EQ(informer.get("team-c", "batch-7"), nullptr);
  // The indexes hold only what the last attempt listed.
  EXPECT_EQ(informer.keysOwnedBy("team-c", "ReplicaSet", "batch-rs").size(), 9u);
  EXPECT_EQ(informer.keysInNamespace("team-a").size(), 3u);
  // So do the namespace counts: the first attempt's page is not counted again.
  for (const std::string ns : {"team-a", "team-b", "team-c"}) {
    EXPECT_EQ(informer.podCount(ns), unpaged.podCount(ns)) << ns;
    EXPECT_EQ(informer.podCount(ns), informer.keysInNamespace(ns).size()) << ns;
  }

  // The watch goes on from the restarted list's resourceVersion.
  ASSERT_TRUE(state_.deletePod("team-a", "web-0"));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.get("team-a", "web-0"), nullptr);
  EXPECT_EQ(api_.listPodsCalls, 3);  // no relist since the unpaged informer's LIST
}

TEST_F(InformerTest, PagedListGivesUpAfterRepeated410sAndKeepsTheCache) {
  InformerOptions paged = options(std::chrono::minutes(1));
  paged.pageSize = 1;
  PodInformer informer(api_, clock_, paged);
  ASSERT_TRUE(informer.sync());
  const std::vector<api::Pod> before = cachedPods(informer);
  ASSERT_TRUE(state_.deletePod("team-a", "web-1"));
  clock_.advance(std::chrono::minutes(1));
  api_.afterPage = [&] { api_.goneOnContinue = true; };  // every continue token expires
  auto result = informer.sync();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::kConflict);
  EXPECT_EQ(informer.stats().listRestarts,
            static_cast<std::uint64_t>(PodInformer::kListRestarts - 1));
  EXPECT_EQ(cachedPods(informer), before);  // the cache as it was, indexes included
  EXPECT_EQ(informer.keysOwnedBy("team-a", "ReplicaSet", "web-rs").size(), 2u);
  EXPECT_EQ(informer.podCount("team-a"), 2u);  // and its counts
  api_.afterPage = nullptr;
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.size(), 2u);
  EXPECT_EQ(informer.podCount("team-a"), 1u);
  EXPECT_EQ(informer.podCount("team-b"), 1u);
}

TEST_F(InformerTest, IndexesFollowUpdates) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(names(informer.keysOwnedBy("team-a", "ReplicaSet", "web-rs")),
            (std::vector<std::string>{"team-a/web-1", "team-a/web-2"}));
  EXPECT_TRUE(informer.keysOwnedBy("team-b", "ReplicaSet", "web-rs").empty());
  EXPECT_TRUE(informer.keysOwnedBy("team-a", "Deployment", "web-rs").empty());

  ASSERT_TRUE(state_.createPod(makePod("team-a", "web-0", "web-rs")));
  ASSERT_TRUE(state_.createPod(makePod("team-b", "solo", "")));
  ASSERT_TRUE(state_.deletePod("team-a", "web-2"));
  ASSERT_TRUE(state_.deletePod("team-b", "api-1"));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(names(informer.keysOwnedBy("team-a", "ReplicaSet", "web-rs")),
            (std::vector<std::string>{"team-a/web-0", "team-a/web-1"}));
  EXPECT_TRUE(informer.keysOwnedBy("team-b", "ReplicaSet", "api-rs").empty());
  EXPECT_EQ(names(informer.keysInNamespace("team-a")),
            (std::vector<std::string>{"team-a/web-0", "team-a/web-1"}));
  EXPECT_EQ(names(informer.keysInNamespace("team-b")), (std::vector<std::string>{"team-b/solo"}));
  std::vector<OwnerKey> owners = informer.owners();
  ASSERT_EQ(owners.size(), 1u);
  EXPECT_EQ(owners[0], (OwnerKey{"team-a", "ReplicaSet", "web-rs"}));
  // The keys lead to the pods.
  for (const ObjectKey* key : informer.keysOwnedBy("team-a", "ReplicaSet", "web-rs")) {
    ASSERT_NE(informer.get(*key), nullptr);
    EXPECT_EQ(informer.get(*key)->metadata.controllerRef()->name, "web-rs");
  }
  // A relist rebuilds them.
  ASSERT_TRUE(state_.createPod(makePod("team-b", "api-2", "api-rs")));
  api_.watchError = Error{ErrorCode::kConflict, "expired", "resourceVersion"};
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(names(informer.keysOwnedBy("team-b", "ReplicaSet", "api-rs")),
            (std::vector<std::string>{"team-b/api-2"}));
  EXPECT_EQ(informer.owners().size(), 2u);
}

TEST_F(InformerTest, GetKeepsItsSnapshotUntilTheNextSync) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  const api::Pod* before = informer.get("team-a", "web-1");
  ASSERT_NE(before, nullptr);
  EXPECT_EQ(informer.get("team-a", "web-1"), before);  // unpacked once
  auto meta = cluster_.patchPodAnnotations("team-a", "web-1", annotate("note", "x"), "");
  ASSERT_TRUE(meta);
  informer.recordWrite(*meta);
  EXPECT_FALSE(before->metadata.annotations.contains("note"));  // still readable, unchanged
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "note"), "x");
}

TEST_F(InformerTest, ReleaseUnpackedFreesThePodsGotButKeepsTheCache) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.unpackedCount(), 0u);
  ASSERT_NE(informer.get("team-a", "web-1"), nullptr);
  ASSERT_NE(informer.get("team-b", "api-1"), nullptr);
  EXPECT_EQ(informer.unpackedCount(), 2u);
  // A write recorded meanwhile keeps the replaced pod until the release.
  auto meta = cluster_.patchPodAnnotations("team-a", "web-1", annotate("note", "x"), "");
  ASSERT_TRUE(meta);
  informer.recordWrite(*meta);
  EXPECT_EQ(informer.unpackedCount(), 2u);  // api-1, and web-1 as it was
  informer.releaseUnpacked();
  EXPECT_EQ(informer.unpackedCount(), 0u);
  // The cache is whole: the pods unpack again, the recorded write included.
  EXPECT_EQ(informer.size(), 3u);
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "note"), "x");
  const api::Pod* again = informer.get("team-b", "api-1");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->metadata.name, "api-1");
  EXPECT_EQ(informer.unpackedCount(), 2u);
}

TEST_F(InformerTest, PodsUnpackedAfterAReleaseFillTheFreedObjectsAndReadAsUnpackedAnew) {
  // A large pod (three ready containers, labels, an annotation, a node) and a small one with one
  // label and one annotation of its own: each unpacked into the other's object must read as
  // unpacked anew, with nothing of the other left (map entries refilled, extra ones dropped).
  auto big = attune::testing::PodBuilder("team-c", "big")
                 .label("app", "big")
                 .label("tier", "batch")
                 .node("node-7")
                 .container("a", resources("1", "1Gi", "2", "2Gi"))
                 .container("b", resources("200m", "128Mi", "", ""))
                 .container("c", resources("", "", "1", "512Mi"))
                 .ready(clock_.now(), 3)
                 .build();
  big.metadata.annotations["note"] = "kept";
  big.metadata.annotations["owner-team"] = "a name longer than the small string buffer";
  auto small = makePod("team-c", "small", "", {{"zone", "b"}});
  small.metadata.annotations["x"] = "y";
  ASSERT_TRUE(state_.createPod(big));
  ASSERT_TRUE(state_.createPod(small));
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  const std::vector<api::Pod> listed = informer.list({.namespace_ = "team-c", .labelSelector = {}});
  ASSERT_EQ(listed.size(), 2u);  // big, small
  const api::Pod* first = informer.get("team-c", "big");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(informer.sparePods(), 0u);
  for (int round = 0; round < 2; ++round) {
    informer.releaseUnpacked();
    EXPECT_EQ(informer.sparePods(), 1u);
    const api::Pod* smallAgain = informer.get("team-c", "small");
    EXPECT_EQ(smallAgain, first);  // the freed object, filled again
    EXPECT_EQ(informer.sparePods(), 0u);
    EXPECT_EQ(*smallAgain, listed[1]);
    informer.releaseUnpacked();
    const api::Pod* bigAgain = informer.get("team-c", "big");
    EXPECT_EQ(bigAgain, first);
    EXPECT_EQ(*bigAgain, listed[0]);
    EXPECT_EQ(bigAgain->spec.containers.size(), 3u);
  }
}

TEST_F(InformerTest, AReleaseKeepsAtMostSparePodsObjectsForReuse) {
  for (std::size_t i = 0; i < PodInformer::kSparePods; ++i) {
    ASSERT_TRUE(state_.createPod(makePod("team-d", "p-" + std::to_string(i))));
  }
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  ASSERT_EQ(informer.size(), PodInformer::kSparePods + 3);
  std::size_t got = 0;
  for (const ObjectKey* key : informer.keysInNamespace("team-d")) {
    got += informer.get(*key) != nullptr ? 1 : 0;
  }
  ASSERT_NE(informer.get("team-a", "web-1"), nullptr);
  EXPECT_EQ(got, PodInformer::kSparePods);
  EXPECT_EQ(informer.unpackedCount(), PodInformer::kSparePods + 1);
  informer.releaseUnpacked();
  EXPECT_EQ(informer.unpackedCount(), 0u);
  EXPECT_EQ(informer.sparePods(), PodInformer::kSparePods);  // one object freed for good
  // A sync releases too, and keeps the bound.
  ASSERT_NE(informer.get("team-a", "web-2"), nullptr);
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.sparePods(), PodInformer::kSparePods);
}

TEST_F(InformerTest, LastAppliedConfigurationIsDropped) {
  api::Pod pod = makePod("team-c", "bare");
  pod.metadata.annotations[std::string(kLastAppliedAnnotation)] = std::string(4096, 'x');
  pod.metadata.annotations["keep"] = "me";
  ASSERT_TRUE(state_.createPod(pod));
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  const api::Pod* cached = informer.get("team-c", "bare");
  ASSERT_NE(cached, nullptr);
  EXPECT_EQ(cached->metadata.annotations, (api::StringMap{{"keep", "me"}}));
}

TEST_F(InformerTest, OwnWriteIsNotUndoneByALaggingWatch) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  // Someone else writes first; then this process resizes the same pod.
  ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-1", annotate("other", "1"), ""));
  api::ContainerResize resize{"app", {}};
  resize.resources = resources("200m", "64Mi", "500m", "256Mi");
  auto resized = cluster_.resizePod("team-a", "web-1", std::span(&resize, 1));
  ASSERT_TRUE(resized);
  informer.recordWrite(*resized);
  EXPECT_EQ(informer.get("team-a", "web-1")->spec.containers[0].resources.requests.cpu, q("200m"));

  // The watch delivers only the older event: the cache keeps the write.
  api_.watchLimit = 1;
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(informer.get("team-a", "web-1")->spec.containers[0].resources.requests.cpu, q("200m"));
  // Then the write's own event: applied (it is the same object).
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(*informer.get("team-a", "web-1"), *cluster_.getPod("team-a", "web-1"));
  // Later changes by others flow again.
  ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-1", annotate("other", "2"), ""));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "other"), "2");
}

TEST_F(InformerTest, NoOpWriteDoesNotBlockLaterEvents) {
  PodInformer informer(api_, clock_, options());
  ASSERT_TRUE(informer.sync());
  auto meta = cluster_.patchPodAnnotations("team-a", "web-1", {}, "");  // changes nothing
  ASSERT_TRUE(meta);
  informer.recordWrite(*meta);
  ASSERT_TRUE(cluster_.patchPodAnnotations("team-a", "web-1", annotate("later", "yes"), ""));
  ASSERT_TRUE(informer.sync());
  EXPECT_EQ(annotation(informer, "team-a", "web-1", "later"), "yes");
}

TEST_F(InformerTest, ListedInformerRelistsWhenDue) {
  api::Deployment d;
  d.metadata.namespace_ = "team-a";
  d.metadata.name = "web";
  ASSERT_TRUE(state_.deployments.create(d));
  InformerOptions o;
  o.resyncPeriod = std::chrono::minutes(30);
  o.unwatchedResync = std::chrono::minutes(5);  // the simulated cluster cannot watch deployments
  ListedInformer<api::Deployment> informer(api_, &api::ClusterApi::listDeployments, clock_, o);
  ASSERT_TRUE(informer.sync());
  ASSERT_NE(informer.get("team-a", "web"), nullptr);
  d.metadata.name = "api";
  ASSERT_TRUE(state_.deployments.create(d));
  ASSERT_TRUE(informer.sync());  // not due
  EXPECT_EQ(informer.get("team-a", "api"), nullptr);
  EXPECT_EQ(api_.listDeploymentsCalls, 1);
  clock_.advance(std::chrono::minutes(5));
  ASSERT_TRUE(informer.sync());
  EXPECT_NE(informer.get("team-a", "api"), nullptr);
  EXPECT_EQ(informer.size(), 2u);
  EXPECT_EQ(informer.stats().relists, 2u);
  EXPECT_FALSE(informer.watched());
}

// A Deployment watch over the simulated cluster's store: its changes, recorded as they happen,
// served after a resourceVersion as ClusterApi::watch serves them.
class DeploymentLog {
 public:
  explicit DeploymentLog(sim::ClusterState& state) {
    state.deployments.setWatchObserver([this](api::WatchEventType type, const api::Deployment& d) {
      events_.push_back({type, d, {}});
    });
  }
  Result<api::WatchBatch<api::Deployment>> after(const api::ListOptions& options,
                                                 std::string_view resourceVersion) const {
    api::WatchBatch<api::Deployment> batch{{}, std::string(resourceVersion)};
    const std::uint64_t from = std::stoull(std::string(resourceVersion));
    for (const auto& e : events_) {
      if (std::stoull(e.object.metadata.resourceVersion) <= from) continue;
      batch.resourceVersion = e.object.metadata.resourceVersion;
      if (options.namespace_.empty() || e.object.metadata.namespace_ == options.namespace_) {
        batch.events.push_back(e);
      }
    }
    return batch;
  }
  // Makes `api`'s Deployment watch answer from this log.
  void serve(FaultyClusterApi& api) const {
    api.deploymentWatch = [this](const api::ListOptions& o, std::string_view rv) {
      return after(o, rv);
    };
  }

 private:
  std::vector<api::WatchEvent<api::Deployment>> events_;
};

api::Deployment deployment(std::string ns, std::string name) {
  api::Deployment d;
  d.metadata.namespace_ = std::move(ns);
  d.metadata.name = std::move(name);
  return d;
}

// A Deployment informer (resync every 30 minutes) whose watch answers from a DeploymentLog,
// synced once over the Deployments created first.
class ListedInformerTest : public InformerTest {
 protected:
  ListedInformerTest() { log_.serve(api_); }

  void syncOver(std::initializer_list<std::pair<std::string, std::string>> deployments) {
    for (const auto& [ns, name] : deployments) {
      ASSERT_TRUE(state_.deployments.create(deployment(ns, name)));
    }
    ASSERT_TRUE(informer_.sync());
  }

  DeploymentLog log_{state_};
  ListedInformer<api::Deployment> informer_{api_, &api::ClusterApi::listDeployments, clock_,
                                            options(std::chrono::minutes(30))};
};

TEST_F(ListedInformerTest, FollowsTheWatchOfItsKind) {
  ASSERT_NO_FATAL_FAILURE(syncOver({{"team-a", "web"}, {"team-a", "db"}}));
  EXPECT_EQ(api_.listDeploymentsCalls, 1);

  // Added, modified, deleted: carried by the watch, no relist.
  ASSERT_TRUE(state_.deployments.create(deployment("team-b", "api")));
  ASSERT_TRUE(cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-a", "web",
                                                annotate("note", "one"), ""));
  ASSERT_TRUE(state_.deployments.erase("team-a", "db"));
  ASSERT_TRUE(informer_.sync());
  EXPECT_TRUE(informer_.watched());
  EXPECT_EQ(api_.listDeploymentsCalls, 1);
  EXPECT_EQ(api_.deploymentWatchCalls, 1);
  EXPECT_EQ(informer_.stats().events, 3u);
  EXPECT_EQ(informer_.list({}), cluster_.listDeployments({})->items);
  EXPECT_EQ(informer_.get("team-a", "web")->metadata.annotations.at("note"), "one");
  EXPECT_EQ(informer_.get("team-a", "db"), nullptr);

  // A write of this process is not undone by a watch that has not brought it yet.
  auto written = cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-a", "web",
                                                   annotate("note", "two"), "");
  ASSERT_TRUE(written);
  ASSERT_TRUE(cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-b", "api",
                                                annotate("note", "x"), ""));
  const auto full = api_.deploymentWatch;
  api_.deploymentWatch = [&](const api::ListOptions& opts, std::string_view rv) {
    auto batch = log_.after(opts, rv);
    batch->events.clear();  // the stream lags: nothing has arrived yet
    batch->resourceVersion = std::string(rv);
    return batch;
  };
  informer_.recordWrite(*written);
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(informer_.get("team-a", "web")->metadata.annotations.at("note"), "two");
  api_.deploymentWatch = full;
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(informer_.list({}), cluster_.listDeployments({})->items);

  // 410 Gone: relist.
  api_.deploymentWatch = [](const api::ListOptions&, std::string_view) {
    return Result<api::WatchBatch<api::Deployment>>(
        fail(ErrorCode::kConflict, "too old resource version", "resourceVersion"));
  };
  ASSERT_TRUE(state_.deployments.create(deployment("team-b", "late")));
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(api_.listDeploymentsCalls, 2);
  EXPECT_EQ(informer_.stats().expired, 1u);
  EXPECT_NE(informer_.get("team-b", "late"), nullptr);

  // Unavailable: the cache stays, the next sync resumes.
  api_.deploymentWatch = [](const api::ListOptions&, std::string_view) {
    return Result<api::WatchBatch<api::Deployment>>(
        fail(ErrorCode::kUnavailable, "connection reset"));
  };
  ASSERT_TRUE(state_.deployments.erase("team-b", "late"));
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(informer_.stats().reconnects, 1u);
  EXPECT_NE(informer_.get("team-b", "late"), nullptr);
  api_.deploymentWatch = full;
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(informer_.get("team-b", "late"), nullptr);
  EXPECT_EQ(api_.listDeploymentsCalls, 2);

  // The full resync still relists.
  clock_.advance(std::chrono::minutes(30));
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(api_.listDeploymentsCalls, 3);
}

// shared(): the cached objects themselves, one list handed to every reader while the cache is
// unchanged, a new one once a watch event, a relist or a recorded write changed it; what list()
// returns either way. A change gives the objects it touches new objects: a held list keeps
// showing what it showed, and the objects nothing touched are the same in both lists.
TEST_F(ListedInformerTest, SharesOneListUntilItChanges) {
  ASSERT_NO_FATAL_FAILURE(syncOver({{"team-a", "web"}, {"team-b", "api"}}));

  const auto all = informer_.shared("");
  const auto teamA = informer_.shared("team-a");
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(objectsOf(*all), informer_.list({}));
  EXPECT_EQ(objectsOf(*teamA), informer_.list({.namespace_ = "team-a", .labelSelector = {}}));
  EXPECT_EQ(teamA->size(), 1u);
  EXPECT_EQ(teamA->front(), all->front());  // the same object: not copied for either list
  EXPECT_EQ(all->front().get(), informer_.get("team-a", "web"));
  // Unchanged (a sync with nothing new): the same lists.
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(informer_.shared(""), all);
  EXPECT_EQ(informer_.shared("team-a"), teamA);

  // A watch event: new lists; the ones held keep what they showed.
  ASSERT_TRUE(cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-a", "web",
                                                annotate("note", "one"), ""));
  ASSERT_TRUE(informer_.sync());
  const auto afterEvent = informer_.shared("");
  EXPECT_NE(afterEvent, all);
  EXPECT_EQ(objectsOf(*afterEvent), cluster_.listDeployments({})->items);
  EXPECT_TRUE(all->front()->metadata.annotations.empty());
  EXPECT_EQ(afterEvent->front()->metadata.annotations.at("note"), "one");
  EXPECT_EQ(afterEvent->back(), all->back());  // team-b/api did not change

  // A recorded write: a new list showing it; the held list and its object unchanged.
  auto written = cluster_.patchWorkloadAnnotations(api::WorkloadKind::kDeployment, "team-b", "api",
                                                   annotate("note", "two"), "");
  ASSERT_TRUE(written);
  informer_.recordWrite(*written);
  const auto afterWrite = informer_.shared("");
  EXPECT_NE(afterWrite, afterEvent);
  EXPECT_EQ(afterWrite->back()->metadata.annotations.at("note"), "two");
  EXPECT_TRUE(afterEvent->back()->metadata.annotations.empty());
  EXPECT_EQ(afterWrite->front(), afterEvent->front());

  // A relist: a new list, even with the same objects.
  clock_.advance(std::chrono::hours(1));
  ASSERT_TRUE(informer_.sync());
  EXPECT_EQ(api_.listDeploymentsCalls, 2);
  const auto afterRelist = informer_.shared("");
  EXPECT_NE(afterRelist, afterWrite);
  EXPECT_EQ(objectsOf(*afterRelist), informer_.list({}));
}

// --- The compact encoding

// A pod with every field of api::Pod set to something other than its default.
api::Pod everyFieldPod() {
  api::Pod pod = makePod("ns", "name", "owner", {{"a", "b"}});
  api::ObjectMeta& m = pod.metadata;
  m.generateName = "name-";
  m.uid = "uid-1";
  m.resourceVersion = "42";
  m.generation = -7;
  m.annotations = {{"k", std::string(300, 'v')}};
  m.creationTimestamp = *parseRfc3339("2025-03-01T10:00:00Z");
  m.deletionTimestamp = *parseRfc3339("2025-03-01T10:00:00.123456789Z");
  api::Container& c = pod.spec.containers[0];
  c.image = "registry/app:1";
  c.resources.requests.set("nvidia.com/gpu", q("1"));
  c.resources.limits.set("ephemeral-storage", q("4Ei"));  // needs more than 64 bits of nanos
  c.resizePolicy = {{"cpu", "NotRequired"}, {"memory", "RestartContainer"}};
  api::Container init = c;
  init.name = "sidecar";
  init.restartPolicy = "Always";
  pod.spec.initContainers.push_back(init);
  pod.spec.nodeName = "node-1";
  pod.spec.priority = -3;
  pod.spec.priorityClassName = "high";
  pod.spec.schedulerName = "default-scheduler";
  pod.spec.restartPolicy = "Always";
  pod.spec.nodeSelector = {{"zone", "a"}};
  pod.spec.tolerations.push_back(api::Toleration{"k", "Exists", "v", "NoExecute", 300});
  pod.spec.overhead.cpu = q("10m");
  pod.spec.resources = api::ResourceRequirements{};
  pod.spec.resources->limits.memory = q("1.5Gi");
  api::PodStatus& s = pod.status;
  s.qosClass = "Burstable";
  s.reason = "Evicted";
  s.message = "low on memory";
  s.conditions.push_back(api::Condition{"Ready", "True", "r", "msg", m.creationTimestamp, 3});
  s.observedGeneration = 9;
  s.startTime = m.creationTimestamp;
  api::ContainerStatus cs;
  cs.name = "app";
  cs.ready = true;
  cs.started = false;
  cs.restartCount = 2;
  cs.state.waiting = api::ContainerStateWaiting{"CrashLoopBackOff", "back-off"};
  cs.state.running = api::ContainerStateRunning{m.creationTimestamp};
  cs.lastState.terminated = api::ContainerStateTerminated{-137, "OOMKilled", "oom",
                                                          m.creationTimestamp, m.deletionTimestamp};
  cs.resources = c.resources;
  cs.allocatedResources.cpu = q("100m");
  s.containerStatuses.push_back(cs);
  cs.name = "sidecar";
  s.initContainerStatuses.push_back(cs);
  s.resize = "InProgress";
  return pod;
}

TEST(CompactPodTest, RoundTripsEveryField) {
  const api::Pod pod = everyFieldPod();
  const std::string packed = packPod(pod);
  EXPECT_EQ(unpackPod(packed), pod);
  // Unpacking into a used object overwrites all of it.
  api::Pod reused = everyFieldPod();
  reused.metadata.labels["extra"] = "x";
  reused.spec.containers.resize(3);
  reused.status.containerStatuses[0].state.waiting.reset();
  api::Pod plain = makePod("other", "pod");
  unpackPod(packPod(plain), reused);
  EXPECT_EQ(reused, plain);
}

// A map entry of a reused object keeps its node when its key is the packed one at that place;
// whatever the two maps hold, the object ends equal to the packed pod.
TEST(CompactPodTest, UnpackingIntoAReusedObjectGivesThePackedMapsWhateverItHeld) {
  const std::vector<api::StringMap> maps = {
      {},
      {{"a", "1"}},
      {{"a", "1"}, {"b", "2"}},
      {{"a", "other value"}, {"b", ""}},
      {{"a", "1"}, {"c", "3"}},
      {{"b", "2"}, {"c", "3"}, {"d", "4"}},
      {{"a", "1"}, {"b", "2"}, {"c", "3"}, {"d", "a value longer than the short-string buffer"}},
  };
  for (const api::StringMap& held : maps) {
    for (const api::StringMap& packed : maps) {
      api::Pod before = everyFieldPod();
      before.metadata.labels = held;
      before.metadata.annotations = packed;
      before.spec.containers[0].resources.requests.other = {{"nvidia.com/gpu", q("1")}};
      api::Pod pod = makePod("shop", "web-1");
      pod.metadata.labels = packed;
      pod.metadata.annotations = held;
      api::Pod reused = before;
      unpackPod(packPod(pod), reused);
      EXPECT_EQ(reused, pod) << held.size() << " entries held, " << packed.size() << " packed";
    }
  }
}

TEST(CompactPodTest, RealisticPodIsSmallAndExact) {
  auto pod = api::decodePod(attune::testing::realisticPod(7).dump());
  ASSERT_TRUE(pod);
  const std::string packed = packPod(*pod);
  EXPECT_EQ(unpackPod(packed), *pod);
  EXPECT_LT(packed.size(), 2500u);
}

}  // namespace
}  // namespace attune::kube
