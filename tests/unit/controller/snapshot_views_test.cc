// Pods read in place: kube::PodInformer's api::PodView behind CachedClusterApi (and the simulated
// cluster's sim::InPlacePodsApi), and the ClusterSnapshot a pass takes through it, answer what a
// LIST of the same cluster answers (the same pods, in the same order) while pods are added, changed
// (labels, annotations, owners) and deleted between and across syncs.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "controller/cluster_snapshot.h"
#include "kube/cached_cluster_api.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/pod_snapshot.h"
#include "support/pod_builder.h"
#include "support/shared_list.h"

namespace attune::controller {
namespace {

using attune::testing::objectsOf;
using sim::Change;

api::OwnerReference controller(std::string apiVersion, std::string kind, std::string name) {
  return {std::move(apiVersion), std::move(kind), std::move(name), "uid-" + name, true};
}

std::vector<api::Pod> values(const std::vector<const api::Pod*>& pods) {
  std::vector<api::Pod> out;
  for (const api::Pod* p : pods) out.push_back(*p);
  return out;
}

class SnapshotViewsTest : public ::testing::Test {
 protected:
  SnapshotViewsTest() {
    for (const char* ns : {"shop", "batch"}) {
      api::Deployment d;
      d.metadata.namespace_ = ns;
      d.metadata.name = "web";
      EXPECT_TRUE(state_.deployments.create(d));
      for (const char* rs : {"web-1", "web-2"}) {
        api::ReplicaSet r;
        r.metadata.namespace_ = ns;
        r.metadata.name = rs;
        r.metadata.ownerReferences = {controller("apps/v1", "Deployment", "web")};
        EXPECT_TRUE(state_.replicaSets.create(r));
      }
      api::StatefulSet s;
      s.metadata.namespace_ = ns;
      s.metadata.name = "db";
      EXPECT_TRUE(state_.statefulSets.create(s));
    }
    api::CronJob c;
    c.metadata.namespace_ = "batch";
    c.metadata.name = "nightly";
    EXPECT_TRUE(state_.cronJobs.create(c));
    api::Job j;
    j.metadata.namespace_ = "batch";
    j.metadata.name = "nightly-1";
    j.metadata.ownerReferences = {controller("batch/v1", "CronJob", "nightly")};
    EXPECT_TRUE(state_.jobs.create(j));
    // A ReplicaSet with no known controller: its pods belong to the ReplicaSet itself.
    api::ReplicaSet orphan;
    orphan.metadata.namespace_ = "shop";
    orphan.metadata.name = "legacy";
    EXPECT_TRUE(state_.replicaSets.create(orphan));
    for (int i = 0; i < 6; ++i) add("shop", "web-1", "ReplicaSet", i);
    for (int i = 0; i < 3; ++i) add("shop", "db", "StatefulSet", i);
    for (int i = 0; i < 2; ++i) add("shop", "legacy", "ReplicaSet", i);
    for (int i = 0; i < 4; ++i) add("batch", "nightly-1", "Job", i);
    for (int i = 0; i < 2; ++i) add("batch", "web-2", "ReplicaSet", i);
    EXPECT_TRUE(state_.createPod(attune::testing::PodBuilder("shop", "bare").build()));
  }

  void add(const std::string& ns, const std::string& owner, const std::string& kind, int i) {
    const std::string group = kind == "Job" ? "batch/v1" : "apps/v1";
    const std::string name = owner + "-" + std::to_string(i) + "-" + std::to_string(serial_++);
    EXPECT_TRUE(state_.createPod(attune::testing::PodBuilder(ns, name)
                                     .label("app", owner)
                                     .owner(controller(group, kind, owner))
                                     .build()));
  }

  // Pod `ns`/`name`, changed by fn.
  void change(const std::string& ns, const std::string& name,
              const std::function<void(api::Pod&)>& fn) {
    EXPECT_TRUE(state_.pods.modify(ns, name, "", [&](api::Pod& pod) -> Result<Change> {
      fn(pod);
      return Change::kMetadata;
    }));
  }

  // One round of churn: adds, label and annotation updates, an owner change and deletes,
  // interleaved.
  void churn(int round) {
    add("shop", "web-1", "ReplicaSet", 100 + round);
    auto shop = cluster_.listPods({.namespace_ = "shop", .labelSelector = {}});
    ASSERT_TRUE(shop);
    ASSERT_GE(shop->items.size(), 4u);
    change("shop", shop->items[1].metadata.name,
           [&](api::Pod& p) { p.metadata.labels["round"] = std::to_string(round); });
    ASSERT_TRUE(state_.deletePod("shop", shop->items[0].metadata.name));
    add("batch", "nightly-1", "Job", 200 + round);
    // A pod moves from one ReplicaSet to the other (its old owner index must forget it).
    change("shop", shop->items[2].metadata.name, [](api::Pod& p) {
      p.metadata.ownerReferences = {controller("apps/v1", "ReplicaSet", "web-2")};
    });
    change("shop", shop->items[3].metadata.name,
           [&](api::Pod& p) { p.metadata.annotations["note"] = "r" + std::to_string(round); });
    auto batch = cluster_.listPods({.namespace_ = "batch", .labelSelector = {}});
    ASSERT_TRUE(batch);
    ASSERT_TRUE(state_.deletePod("batch", batch->items.back().metadata.name));
    add("shop", "db", "StatefulSet", 300 + round);
  }

  // Every check: the view against LISTs, the snapshot read in place against a listed one.
  void expectViewsMatchLists() {
    const api::PodView* view = cached_.podView("");
    ASSERT_NE(view, nullptr);
    for (const std::string ns : {"", "shop", "batch"}) {
      auto listed = cluster_.listPods({.namespace_ = ns, .labelSelector = {}});
      ASSERT_TRUE(listed);
      std::vector<api::Pod> visited;
      view->forEachPod({.namespace_ = ns, .labelSelector = {}},
                       [&](const api::Pod& p) { visited.push_back(p); });
      EXPECT_EQ(visited, listed->items) << "namespace '" << ns << "'";
    }
    api::LabelSelector web;
    web.matchLabels = {{"app", "web-1"}};
    std::vector<api::Pod> selected;
    view->forEachPod({.namespace_ = "shop", .labelSelector = web},
                     [&](const api::Pod& p) { selected.push_back(p); });
    EXPECT_EQ(selected, cluster_.listPods({.namespace_ = "shop", .labelSelector = web})->items);

    const std::set<api::TargetKind> kinds = {
        api::TargetKind::kDeployment, api::TargetKind::kStatefulSet, api::TargetKind::kCronJob};
    auto inPlace = ClusterSnapshot::take(cached_, {}, kinds);
    auto listed = ClusterSnapshot::take(cluster_, {}, kinds);
    ASSERT_TRUE(inPlace);
    ASSERT_TRUE(listed);
    EXPECT_TRUE(inPlace->readsInPlace());
    EXPECT_FALSE(listed->readsInPlace());
    EXPECT_EQ(inPlace->podListVersions(), listed->podListVersions());
    // Every workload's pods, the owner-less pod and the ReplicaSet without a controller.
    std::set<api::WorkloadRef> workloads;
    for (const api::Pod& pod : listed->pods()) workloads.insert(listed->ownerOf(pod));
    std::string seen;
    for (const api::WorkloadRef& w : workloads) seen += " " + w.ns + "/" + w.kind + "/" + w.name;
    ASSERT_GE(workloads.size(), 4u) << seen;  // churn deletes some
    workloads.insert({"shop", "Deployment", "nobody"});
    for (const api::WorkloadRef& w : workloads) {
      EXPECT_EQ(values(inPlace->podsOf(w)), values(listed->podsOf(w)))
          << w.ns << "/" << w.kind << "/" << w.name;
      for (const api::Pod* pod : listed->podsOf(w)) {
        const api::Pod* found = inPlace->pod(pod->metadata.namespace_, pod->metadata.name);
        ASSERT_NE(found, nullptr);
        EXPECT_EQ(*found, *pod);
      }
    }
    EXPECT_EQ(inPlace->pod("shop", "no-such-pod"), nullptr);
    EXPECT_EQ(inPlace->pods(), listed->pods());
    EXPECT_EQ(objectsOf(inPlace->deployments()),
              objectsOf(listed->deployments()));  // the informers' shared lists
    EXPECT_EQ(objectsOf(inPlace->replicaSets()), objectsOf(listed->replicaSets()));
    expectSimulatedViewMatchesLists(*listed, workloads, kinds);
  }

  // The simulated cluster's own view (sim::InPlacePodsApi, what `attune backtest` gives the
  // controller): a snapshot through it answers as the listed one does.
  void expectSimulatedViewMatchesLists(const ClusterSnapshot& listed,
                                       const std::set<api::WorkloadRef>& workloads,
                                       const std::set<api::TargetKind>& kinds) {
    auto simulated = ClusterSnapshot::take(simulated_, {}, kinds);
    ASSERT_TRUE(simulated);
    EXPECT_TRUE(simulated->readsInPlace());
    EXPECT_EQ(simulated->podListVersions(), listed.podListVersions());
    for (const api::WorkloadRef& w : workloads) {
      EXPECT_EQ(values(simulated->podsOf(w)), values(listed.podsOf(w)))
          << w.ns << "/" << w.kind << "/" << w.name;
    }
    for (const api::Pod& pod : listed.pods()) {
      const api::Pod* found = simulated->pod(pod.metadata.namespace_, pod.metadata.name);
      ASSERT_NE(found, nullptr);
      EXPECT_EQ(*found, pod);
    }
    EXPECT_EQ(simulated->pods(), listed.pods());
    EXPECT_EQ(objectsOf(simulated->deployments()), objectsOf(listed.deployments()));
    EXPECT_EQ(objectsOf(simulated->replicaSets()), objectsOf(listed.replicaSets()));
  }

  // Deployment `ns`/`name` with annotation note=`note`.
  void annotateDeployment(const std::string& ns, const std::string& name, const std::string& note) {
    EXPECT_TRUE(state_.deployments.modify(ns, name, "", [&](api::Deployment& d) -> Result<Change> {
      d.metadata.annotations["note"] = note;
      return Change::kMetadata;
    }));
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  kube::CachedClusterApi cached_{cluster_, clock_};
  sim::InPlacePodsApi simulated_{cluster_, state_};
  int serial_ = 0;
};

TEST_F(SnapshotViewsTest, NoViewBeforeTheFirstSync) {
  EXPECT_EQ(cached_.podView(""), nullptr);
  auto snapshot = ClusterSnapshot::take(cached_, {}, {api::TargetKind::kDeployment});
  ASSERT_TRUE(snapshot);
  EXPECT_FALSE(snapshot->readsInPlace());  // listed through to the cluster instead
}

TEST_F(SnapshotViewsTest, ViewsAnswerAsListsDoUnderWatchChurn) {
  ASSERT_TRUE(cached_.sync());
  expectViewsMatchLists();
  for (int round = 0; round < 5; ++round) {
    churn(round);
    if (round % 2 == 1) churn(round + 10);  // two rounds in one watch batch
    ASSERT_TRUE(cached_.sync());
    EXPECT_EQ(cached_.pods().stats().relists, 1u);  // the watch carried every change
    expectViewsMatchLists();
  }
}

// The simulated cluster shares its Deployment and ReplicaSet lists with the snapshots: each
// answers as a LIST made when it was taken, whatever is written to the cluster while it is held.
TEST_F(SnapshotViewsTest, SimulatedWorkloadListsAnswerAsListsAndStayUnchangedWhileHeld) {
  const std::set<api::TargetKind> kinds = {api::TargetKind::kDeployment};
  const auto take = [&](api::ClusterApi& api, std::vector<std::string> namespaces = {}) {
    auto snapshot = ClusterSnapshot::take(api, namespaces, kinds);
    EXPECT_TRUE(snapshot);
    return snapshot ? std::optional<ClusterSnapshot>(std::move(*snapshot)) : std::nullopt;
  };
  std::optional<ClusterSnapshot> held = take(simulated_);
  ASSERT_TRUE(held);
  const std::vector<api::Deployment> heldDeployments = objectsOf(held->deployments());
  const std::vector<api::ReplicaSet> heldSets = objectsOf(held->replicaSets());
  EXPECT_EQ(objectsOf(held->deployments()), objectsOf(take(cluster_)->deployments()));
  EXPECT_EQ(objectsOf(held->replicaSets()), objectsOf(take(cluster_)->replicaSets()));
  EXPECT_EQ(held->deployments().size(), 2u);
  EXPECT_EQ(held->replicaSets().size(), 5u);
  // Not written since: the same list, not a copy.
  EXPECT_EQ(&take(simulated_)->deployments(), &held->deployments());
  annotateDeployment("shop", "web", "first");
  std::optional<ClusterSnapshot> later = take(simulated_);
  ASSERT_TRUE(later);
  EXPECT_EQ(objectsOf(held->deployments()), heldDeployments);  // the held one did not change
  EXPECT_EQ(objectsOf(held->replicaSets()), heldSets);
  EXPECT_EQ(objectsOf(later->deployments()), objectsOf(take(cluster_)->deployments()));
  EXPECT_EQ(later->deployments()[1]->metadata.annotations.at("note"), "first");
  EXPECT_EQ(later->deployments()[0], held->deployments()[0]);  // unchanged: the same object
  // Nobody holds the lists any more: they are brought up to date where they are.
  held.reset();
  later.reset();
  annotateDeployment("batch", "web", "second");
  std::optional<ClusterSnapshot> updated = take(simulated_);
  ASSERT_TRUE(updated);
  EXPECT_EQ(objectsOf(updated->deployments()), objectsOf(take(cluster_)->deployments()));
  EXPECT_EQ(updated->deployments()[0]->metadata.annotations.at("note"), "second");
  EXPECT_EQ(updated->deployments()[1]->metadata.annotations.at("note"), "first");
  updated.reset();
  // Objects added and deleted: copied again, in list order.
  api::Deployment added;
  added.metadata.namespace_ = "batch";
  added.metadata.name = "api";
  ASSERT_TRUE(state_.deployments.create(added));
  ASSERT_TRUE(state_.replicaSets.erase("shop", "legacy"));
  std::optional<ClusterSnapshot> grown = take(simulated_);
  ASSERT_TRUE(grown);
  EXPECT_EQ(objectsOf(grown->deployments()), objectsOf(take(cluster_)->deployments()));
  EXPECT_EQ(grown->deployments().size(), 3u);
  EXPECT_EQ(objectsOf(grown->replicaSets()), objectsOf(take(cluster_)->replicaSets()));
  EXPECT_EQ(grown->replicaSets().size(), 4u);
  // One namespace only, as a LIST of it.
  EXPECT_EQ(objectsOf(take(simulated_, {"shop"})->deployments()),
            objectsOf(take(cluster_, {"shop"})->deployments()));
  EXPECT_EQ(objectsOf(take(simulated_, {"shop"})->replicaSets()),
            objectsOf(take(cluster_, {"shop"})->replicaSets()));
  EXPECT_EQ(take(simulated_, {"shop"})->deployments().size(), 1u);
}

// A controller's snapshots share one node table and ReplicaSet index while the cache's lists are
// unchanged, and build new ones, answering as LISTs do, once a node or a ReplicaSet changes.
TEST_F(SnapshotViewsTest, ReusesTheNodeTableAndReplicaSetIndexWhileTheCacheIsUnchanged) {
  const auto addNode = [&](const std::string& name, const std::string& cpu) {
    api::Node n;
    n.metadata.name = name;
    n.status.allocatable.cpu = Quantity::parse(cpu).value();
    EXPECT_TRUE(state_.nodes.create(n));
  };
  addNode("node-a", "4");
  addNode("node-b", "8");
  ASSERT_TRUE(cached_.sync());
  const std::set<api::TargetKind> kinds = {api::TargetKind::kDeployment};
  ClusterSnapshot::Reuse reuse;
  const auto take = [&](api::ClusterApi& api, ClusterSnapshot::Reuse* with) {
    auto snapshot = ClusterSnapshot::take(api, {}, kinds, with);
    EXPECT_TRUE(snapshot);
    return snapshot ? std::optional<ClusterSnapshot>(std::move(*snapshot)) : std::nullopt;
  };
  const api::WorkloadRef web{"shop", "Deployment", "web"};
  const auto expectAsListed = [&](const ClusterSnapshot& s) {
    std::optional<ClusterSnapshot> listed = take(cluster_, nullptr);
    ASSERT_TRUE(listed);
    EXPECT_EQ(s.nodes(), listed->nodes());
    for (const api::Node& n : listed->nodes()) {
      ASSERT_NE(s.node(n.metadata.name), nullptr) << n.metadata.name;
      EXPECT_EQ(*s.node(n.metadata.name), n);
    }
    EXPECT_EQ(values(s.podsOf(web)), values(listed->podsOf(web)));
    for (const api::Pod& pod : listed->pods()) {
      EXPECT_EQ(s.ownerOf(pod), listed->ownerOf(pod)) << pod.metadata.name;
    }
  };
  std::optional<ClusterSnapshot> first = take(cached_, &reuse);
  ASSERT_TRUE(first);
  expectAsListed(*first);
  const api::Node* firstNodes = first->nodes().data();
  ASSERT_TRUE(reuse.nodes && reuse.replicaSets);
  const auto* firstIndex = reuse.replicaSets.get();
  first.reset();  // the reused tables outlive the snapshot that built them
  std::optional<ClusterSnapshot> second = take(cached_, &reuse);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->nodes().data(), firstNodes);
  EXPECT_EQ(reuse.replicaSets.get(), firstIndex);
  expectAsListed(*second);
  // Without `reuse`, or through an api with no shared lists, each snapshot has its own.
  EXPECT_NE(take(cached_, nullptr)->nodes().data(), firstNodes);
  // A node added and the ReplicaSet without a controller adopted by the Deployment.
  addNode("node-c", "16");
  EXPECT_TRUE(
      state_.replicaSets.modify("shop", "legacy", "", [](api::ReplicaSet& r) -> Result<Change> {
        r.metadata.ownerReferences = {controller("apps/v1", "Deployment", "web")};
        return Change::kMetadata;
      }));
  ASSERT_TRUE(cached_.sync());
  std::optional<ClusterSnapshot> third = take(cached_, &reuse);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->nodes().size(), 3u);
  EXPECT_NE(reuse.replicaSets.get(), firstIndex);
  EXPECT_EQ(third->podsOf(web).size(), 8u);  // web-1's six and legacy's two
  expectAsListed(*third);
  // The snapshot taken before the change still answers as it did.
  EXPECT_EQ(second->nodes().size(), 2u);
  EXPECT_EQ(second->node("node-c"), nullptr);
}

TEST_F(SnapshotViewsTest, PointersStayValidAcrossAWriteUntilTheNextSync) {
  ASSERT_TRUE(cached_.sync());
  auto snapshot = ClusterSnapshot::take(cached_, {"shop"}, {api::TargetKind::kDeployment});
  ASSERT_TRUE(snapshot);
  ASSERT_TRUE(snapshot->readsInPlace());
  const std::vector<const api::Pod*>& pods = snapshot->podsOf({"shop", "Deployment", "web"});
  ASSERT_EQ(pods.size(), 6u);
  const api::Pod before = *pods[0];
  api::AnnotationChanges note;
  note["note"] = "written";
  ASSERT_TRUE(cached_.patchPodAnnotations("shop", before.metadata.name, note, ""));
  // The pass keeps reading what it started with; a later read sees the write.
  EXPECT_EQ(*pods[0], before);
  EXPECT_EQ(
      cached_.podView("shop")->pod("shop", before.metadata.name)->metadata.annotations.at("note"),
      "written");
}

}  // namespace
}  // namespace attune::controller

namespace attune::controller {
namespace {

api::List<api::Deployment> deploymentsIn(std::vector<std::pair<std::string, std::string>> names) {
  api::List<api::Deployment> list;
  for (auto& [ns, name] : names) {
    api::Deployment d;
    d.metadata.namespace_ = std::move(ns);
    d.metadata.name = std::move(name);
    list.items.push_back(std::move(d));
  }
  return list;
}

std::vector<std::string> keys(std::span<const std::shared_ptr<const api::Deployment>> deployments) {
  std::vector<std::string> out;
  for (const auto& d : deployments) out.push_back(d->metadata.namespace_ + "/" + d->metadata.name);
  return out;
}

ClusterSnapshot snapshotOf(api::List<api::Deployment> deployments) {
  return ClusterSnapshot::fromLists({}, {}, std::move(deployments), {}, {}, {}, {}, {}, {}, {}, {});
}

// A list in namespace order, as LISTs return it, is cut to the namespace's run; one out of
// order is returned whole, so that a caller checking the namespace still finds every object.
TEST(SnapshotNamespaceTest, AListInNamespaceOrderIsCutToTheNamespace) {
  const ClusterSnapshot sorted =
      snapshotOf(deploymentsIn({{"a", "x"}, {"b", "web"}, {"b", "api"}, {"c", "y"}}));
  EXPECT_EQ(keys(sorted.inNamespace(sorted.deployments(), "b")),
            (std::vector<std::string>{"b/web", "b/api"}));
  EXPECT_TRUE(sorted.inNamespace(sorted.deployments(), "bb").empty());
  EXPECT_EQ(keys(sorted.inNamespace(sorted.deployments(), "c")), (std::vector<std::string>{"c/y"}));

  const ClusterSnapshot unsorted =
      snapshotOf(deploymentsIn({{"b", "web"}, {"a", "x"}, {"b", "api"}}));
  EXPECT_EQ(keys(unsorted.inNamespace(unsorted.deployments(), "b")),
            (std::vector<std::string>{"b/web", "a/x", "b/api"}));
}

}  // namespace
}  // namespace attune::controller
