// The namespace filter of the informer caches (InformerOptions::namespaceFilter, as a sharded
// controller sets it): under watch churn across nine namespaces, a filtered PodInformer holds
// exactly the pods one LIST per owned namespace returns (same pods, same order), through paged
// LISTs restarted by a 410 Gone, expired watches and resyncs; its indexes and its log of recent
// events know no other namespace; CachedClusterApi filters every namespaced kind, keeps nodes
// whole, and answers reads of another namespace from its caches (empty) without a request.
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "faulty_cluster_api.h"
#include "kube/cached_cluster_api.h"
#include "kube/informer.h"
#include "kube_test_pods.h"
#include "sim/cluster/cluster.h"

namespace attune::kube {
namespace {

using testing::FaultyClusterApi;
using testing::makePod;

const std::set<std::string, std::less<>> kOwned = {"ns-1", "ns-4", "ns-7"};

bool owned(std::string_view ns) { return kOwned.contains(ns); }

std::vector<std::string> names(const std::vector<api::Pod>& pods) {
  std::vector<std::string> out;
  for (const api::Pod& p : pods) out.push_back(p.metadata.namespace_ + "/" + p.metadata.name);
  return out;
}

class NamespaceFilterTest : public ::testing::Test {
 protected:
  NamespaceFilterTest() {
    for (int n = 0; n < 9; ++n) {
      for (int i = 0; i < 4; ++i) add(n, i % 2 == 0 ? "web" : "db");
    }
  }

  static std::string ns(int n) { return "ns-" + std::to_string(n); }

  void add(int n, const std::string& owner) {
    const std::string name = owner + "-" + std::to_string(serial_++);
    EXPECT_TRUE(state_.createPod(makePod(ns(n), name, owner, {{"app", owner}})));
  }

  // What one LIST per owned namespace returns, concatenated in namespace order.
  std::vector<api::Pod> filteredList() {
    std::vector<api::Pod> out;
    for (const std::string& n : kOwned) {
      auto listed = cluster_.listPods({.namespace_ = n, .labelSelector = {}});
      EXPECT_TRUE(listed);
      for (api::Pod& p : listed->items) out.push_back(std::move(p));
    }
    return out;
  }

  // One round of churn in every namespace: an add, a label change, an owner change, a delete.
  void churn(int round) {
    for (int n = 0; n < 9; ++n) {
      add(n, round % 2 == 0 ? "web" : "db");
      auto pods = cluster_.listPods({.namespace_ = ns(n), .labelSelector = {}});
      ASSERT_TRUE(pods);
      ASSERT_GE(pods->items.size(), 3u);
      const std::string first = pods->items[0].metadata.name;
      const std::string second = pods->items[1].metadata.name;
      const std::string third = pods->items[2].metadata.name;
      EXPECT_TRUE(state_.pods.modify(ns(n), second, "", [&](api::Pod& p) -> Result<sim::Change> {
        p.metadata.labels["round"] = std::to_string(round);
        return sim::Change::kMetadata;
      }));
      EXPECT_TRUE(state_.pods.modify(ns(n), third, "", [&](api::Pod& p) -> Result<sim::Change> {
        p.metadata.ownerReferences = {{"apps/v1", "ReplicaSet", "moved", "uid-moved", true}};
        return sim::Change::kMetadata;
      }));
      EXPECT_TRUE(state_.deletePod(ns(n), first));
    }
  }

  void expectHoldsExactlyTheOwnedPods(const PodInformer& informer) {
    const std::vector<api::Pod> expected = filteredList();
    EXPECT_EQ(informer.size(), expected.size());
    std::vector<api::Pod> all;
    informer.forEachPod({}, [&](const api::Pod& p) { all.push_back(p); });
    EXPECT_EQ(names(all), names(expected));
    EXPECT_EQ(all, expected);
    for (int n = 0; n < 9; ++n) {
      std::vector<api::Pod> inNamespace;
      informer.forEachPod({.namespace_ = ns(n), .labelSelector = {}},
                          [&](const api::Pod& p) { inNamespace.push_back(p); });
      if (owned(ns(n))) {
        EXPECT_EQ(inNamespace, cluster_.listPods({.namespace_ = ns(n), .labelSelector = {}})->items)
            << ns(n);
      } else {
        EXPECT_TRUE(inNamespace.empty()) << ns(n);
        EXPECT_TRUE(informer.keysInNamespace(ns(n)).empty()) << ns(n);
        EXPECT_TRUE(informer.podsOwnedBy(ns(n), "ReplicaSet", "web").empty()) << ns(n);
      }
    }
    // The owner index: every owner of an owned pod, and no other.
    std::set<OwnerKey> owners;
    for (const api::Pod& p : expected) {
      if (const api::OwnerReference* ref = p.metadata.controllerRef()) {
        owners.insert({p.metadata.namespace_, ref->kind, ref->name});
      }
    }
    const std::vector<OwnerKey> indexed = informer.owners();
    EXPECT_EQ(std::set<OwnerKey>(indexed.begin(), indexed.end()), owners);
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  sim::ClusterState state_{clock_};
  sim::Cluster cluster_{state_};
  FaultyClusterApi api_{cluster_};
  int serial_ = 0;
};

InformerOptions filtered(std::size_t pageSize = 5) {
  InformerOptions o;
  o.resyncPeriod = std::chrono::minutes(10);
  o.pageSize = pageSize;
  o.namespaceFilter = owned;
  return o;
}

TEST_F(NamespaceFilterTest, FilteredInformerHoldsTheOwnedPodsUnderChurn) {
  PodInformer informer(api_, clock_, filtered());
  ASSERT_TRUE(informer.sync());
  expectHoldsExactlyTheOwnedPods(informer);
  EXPECT_EQ(informer.stats().filtered, 24u);  // six namespaces of four pods, dropped at LIST
  for (int round = 0; round < 12; ++round) {
    churn(round);
    if (round == 3) api_.watchError = Error{ErrorCode::kConflict, "gone", "resourceVersion"};
    if (round == 6) {
      // A paged relist (the resync) whose continue token expires mid-way.
      api_.goneOnContinue = true;
      clock_.advance(std::chrono::minutes(11));
    }
    if (round == 9) api_.watchLimit = 5;  // a lagging watch: the rest comes at the next sync
    ASSERT_TRUE(informer.sync()) << "round " << round;
    if (round == 9) {
      api_.watchLimit.reset();
      ASSERT_TRUE(informer.sync());
    }
    expectHoldsExactlyTheOwnedPods(informer);
  }
  EXPECT_EQ(informer.stats().expired, 1u);
  EXPECT_GE(informer.stats().listRestarts, 1u);
  EXPECT_EQ(informer.resourceVersion(), cluster_.listPods({})->resourceVersion);
}

TEST_F(NamespaceFilterTest, AnUnpagedListIsFilteredToo) {
  PodInformer informer(api_, clock_, filtered(/*pageSize=*/0));
  ASSERT_TRUE(informer.sync());
  expectHoldsExactlyTheOwnedPods(informer);
  churn(0);
  ASSERT_TRUE(informer.sync());
  expectHoldsExactlyTheOwnedPods(informer);
}

TEST_F(NamespaceFilterTest, RecentEventsHoldOnlyOwnedNamespaces) {
  PodInformer informer(api_, clock_, filtered());
  ASSERT_TRUE(informer.sync());
  const std::string from = informer.resourceVersion();
  churn(0);
  ASSERT_TRUE(informer.sync());
  auto batch = informer.recentEvents({}, from);
  ASSERT_TRUE(batch);
  std::set<std::string> namespaces;
  for (const auto& e : batch->events) namespaces.insert(e.object.metadata.namespace_);
  EXPECT_EQ(namespaces, (std::set<std::string>{"ns-1", "ns-4", "ns-7"}));
  EXPECT_EQ(batch->events.size(), 3u * 4u);  // add, two changes, delete per owned namespace
  EXPECT_EQ(informer.stats().events, 12u);
}

TEST_F(NamespaceFilterTest, AWriteToAnotherNamespaceIsNotCached) {
  PodInformer informer(api_, clock_, filtered());
  ASSERT_TRUE(informer.sync());
  auto other = cluster_.getPod("ns-0", "web-0");
  ASSERT_TRUE(other);
  informer.recordWrite(*other);
  EXPECT_EQ(informer.get("ns-0", "web-0"), nullptr);
  expectHoldsExactlyTheOwnedPods(informer);
}

TEST_F(NamespaceFilterTest, CachedClusterApiFiltersNamespacedKindsOnly) {
  for (int n = 0; n < 9; ++n) {
    api::Deployment d;
    d.metadata.namespace_ = ns(n);
    d.metadata.name = "web";
    ASSERT_TRUE(state_.deployments.create(d));
    api::Node node;
    node.metadata.name = "node-" + std::to_string(n);
    ASSERT_TRUE(state_.nodes.create(node));
  }
  CachedClusterApiOptions options;
  options.namespaceFilter = owned;
  CachedClusterApi api(api_, clock_, options);
  ASSERT_TRUE(api.sync());
  EXPECT_EQ(names(api.listPods({})->items), names(filteredList()));
  EXPECT_EQ(api.pods().size(), filteredList().size());
  std::vector<std::string> deployments;
  const auto listed = api.listDeployments({});
  ASSERT_TRUE(listed);
  for (const auto& d : listed->items) deployments.push_back(d.metadata.namespace_);
  EXPECT_EQ(deployments, (std::vector<std::string>{"ns-1", "ns-4", "ns-7"}));
  EXPECT_EQ(api.listNodes({})->items.size(), 9u);  // cluster-scoped: whole
  EXPECT_EQ(api.nodes().size(), 9u);
  // Another shard's namespace reads as empty, from the caches: no request goes out for it.
  const int gets = api_.getPodCalls;
  const int lists = api_.listPodsCalls;
  const int deploymentLists = api_.listDeploymentsCalls;
  auto pod = api.getPod("ns-0", "web-0");
  ASSERT_FALSE(pod);
  EXPECT_EQ(pod.error().code, ErrorCode::kNotFound);
  auto other = api.listPods({.namespace_ = "ns-2", .labelSelector = {}});
  ASSERT_TRUE(other);
  EXPECT_TRUE(other->items.empty());
  EXPECT_TRUE(api.listDeployments({.namespace_ = "ns-2", .labelSelector = {}})->items.empty());
  EXPECT_EQ(api.getDeployment("ns-2", "web").error().code, ErrorCode::kNotFound);
  const api::PodView* view = api.podView("ns-0");
  ASSERT_NE(view, nullptr);
  int seen = 0;
  view->forEachPod({.namespace_ = "ns-0", .labelSelector = {}}, [&](const api::Pod&) { ++seen; });
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(api_.getPodCalls, gets);
  EXPECT_EQ(api_.listPodsCalls, lists);
  EXPECT_EQ(api_.listDeploymentsCalls, deploymentLists);
  EXPECT_EQ(api.listPods({.namespace_ = "ns-4", .labelSelector = {}})->items.size(), 4u);
  // A write there passes through and leaves the cache as it was.
  api::AnnotationChanges note;
  note["note"] = "x";
  ASSERT_TRUE(api.patchPodAnnotations("ns-0", "web-0", note, ""));
  EXPECT_EQ(api.pods().get("ns-0", "web-0"), nullptr);
  EXPECT_EQ(api.pods().size(), filteredList().size());
}

}  // namespace
}  // namespace attune::kube
