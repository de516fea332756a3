// sim::PodSnapshot: the simulated cluster's pods read in place. It answers as a LIST made at its
// last refresh, stays unchanged across writes until the next refresh, and copies again only
// the pods written since. ObjectStore::writes counts the writes it relies on.
#include "sim/cluster/pod_snapshot.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cluster/cluster.h"
#include "support/pod_builder.h"

namespace attune::sim {
namespace {

api::OwnerReference replicaSet(std::string name) {
  return {"apps/v1", "ReplicaSet", std::move(name), "uid-rs", true};
}

class PodSnapshotTest : public ::testing::Test {
 protected:
  void add(const std::string& ns, const std::string& name, const std::string& owner) {
    EXPECT_TRUE(state_.createPod(attune::testing::PodBuilder(ns, name)
                                     .label("app", owner)
                                     .owner(replicaSet(owner))
                                     .build()));
  }
  void annotate(const std::string& ns, const std::string& name, const std::string& note) {
    EXPECT_TRUE(state_.pods.modify(ns, name, "", [&](api::Pod& pod) -> Result<Change> {
      pod.metadata.annotations["note"] = note;
      return Change::kMetadata;
    }));
  }
  // The view against LISTs of the cluster as it is now.
  void expectMatchesLists(const api::PodView& view) {
    for (const std::string ns : {"", "a", "b"}) {
      auto listed = cluster_.listPods({.namespace_ = ns, .labelSelector = {}});
      ASSERT_TRUE(listed);
      std::vector<api::Pod> visited;
      view.forEachPod({.namespace_ = ns, .labelSelector = {}},
                      [&](const api::Pod& p) { visited.push_back(p); });
      EXPECT_EQ(visited, listed->items) << "namespace '" << ns << "'";
      EXPECT_EQ(view.resourceVersion(), listed->resourceVersion);
      for (const api::Pod& pod : listed->items) {
        const api::Pod* found = view.pod(pod.metadata.namespace_, pod.metadata.name);
        ASSERT_NE(found, nullptr);
        EXPECT_EQ(*found, pod);
      }
    }
    for (const char* owner : {"web", "api"}) {
      std::vector<api::Pod> owned;
      for (const api::Pod* p : view.podsOwnedBy("a", "ReplicaSet", owner)) owned.push_back(*p);
      api::LabelSelector selector;
      selector.matchLabels = {{"app", owner}};
      EXPECT_EQ(owned, cluster_.listPods({.namespace_ = "a", .labelSelector = selector})->items);
    }
  }

  SimulatedClock clock_{*parseRfc3339("2025-01-01T00:00:00Z")};
  ClusterState state_{clock_};
  Cluster cluster_{state_};
  InPlacePodsApi api_{cluster_, state_};
};

TEST_F(PodSnapshotTest, StoreCountsItsWritesButNotNoOps) {
  const std::uint64_t before = state_.pods.writes();
  add("a", "web-1", "web");
  EXPECT_EQ(state_.pods.writes(), before + 1);
  annotate("a", "web-1", "x");
  EXPECT_EQ(state_.pods.writes(), before + 2);
  EXPECT_TRUE(state_.pods.modify("a", "web-1", "",
                                 [](api::Pod&) -> Result<Change> { return Change::kNone; }));
  EXPECT_EQ(state_.pods.writes(), before + 2);
  EXPECT_TRUE(state_.deletePod("a", "web-1"));
  EXPECT_EQ(state_.pods.writes(), before + 3);
}

TEST_F(PodSnapshotTest, AnswersAsListsAndStaysUnchangedUntilTheNextRefresh) {
  for (int i = 0; i < 4; ++i) add("a", "web-" + std::to_string(i), "web");
  for (int i = 0; i < 2; ++i) add("a", "api-" + std::to_string(i), "api");
  add("b", "web-0", "web");
  const api::PodView* view = api_.podView("");
  ASSERT_NE(view, nullptr);
  expectMatchesLists(*view);

  const api::Pod* kept = view->pod("a", "web-0");
  const api::Pod* written = view->pod("a", "web-1");
  ASSERT_NE(kept, nullptr);
  ASSERT_NE(written, nullptr);
  const api::Pod writtenBefore = *written;
  const std::string versionBefore = view->resourceVersion();
  // Writes of every kind: the view does not see them yet.
  annotate("a", "web-1", "changed");
  EXPECT_TRUE(state_.deletePod("a", "web-2"));
  add("a", "api-9", "api");
  add("a", "aaa", "web");  // before every other pod of the namespace
  EXPECT_EQ(*written, writtenBefore);
  EXPECT_NE(view->pod("a", "web-2"), nullptr);
  EXPECT_EQ(view->pod("a", "api-9"), nullptr);
  EXPECT_EQ(view->resourceVersion(), versionBefore);

  // The next call brings it up to date; an unchanged pod is not copied again.
  EXPECT_EQ(api_.podView("a"), view);
  expectMatchesLists(*view);
  EXPECT_EQ(view->pod("a", "web-0"), kept);
  EXPECT_EQ(view->pod("a", "web-1")->metadata.annotations.at("note"), "changed");
  EXPECT_EQ(view->pod("a", "web-2"), nullptr);

  // A write to another kind moves the resourceVersion only.
  api::Namespace ns;
  ns.metadata.name = "c";
  EXPECT_TRUE(state_.namespaces.create(ns));
  EXPECT_EQ(api_.podView("")->pod("a", "web-0"), kept);
  expectMatchesLists(*view);
}

TEST_F(PodSnapshotTest, EmptyClusterGivesAnEmptyView) {
  const api::PodView* view = api_.podView("");
  ASSERT_NE(view, nullptr);
  expectMatchesLists(*view);
  EXPECT_EQ(view->pod("a", "web-0"), nullptr);
  EXPECT_TRUE(view->podsOwnedBy("a", "ReplicaSet", "web").empty());
}

}  // namespace
}  // namespace attune::sim
