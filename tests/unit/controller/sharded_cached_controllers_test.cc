// Two shards reading the cluster as the operator does, through a kube::CachedClusterApi whose
// caches keep only the shard's namespaces (CachedClusterApiOptions::namespaceFilter,
// docs/sharding.md): each shard's pod cache holds exactly its namespaces' pods, nodes stay whole,
// and each shard still resizes every pod of its own namespaces and none of the other's. Run once
// over all namespaces and once with every namespace named as a watch namespace: either way no
// pass reads pods from the API server (no LIST or GET of pods beyond the informers' own).
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "api/forwarding_cluster_api.h"
#include "controller/shard.h"
#include "kube/cached_cluster_api.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using Kind = ActionRecord::Kind;

const std::vector<std::string>& kNamespaces = kFourNamespaces;

// Counts the pod reads that reach the API server other than the informer's paged LIST and watch.
class PodReadCounter final : public api::ForwardingClusterApi {
 public:
  using ForwardingClusterApi::ForwardingClusterApi;
  int reads = 0;
  Result<api::Pod> getPod(std::string_view ns, std::string_view name) override {
    ++reads;
    return inner().getPod(ns, name);
  }
  Result<api::List<api::Pod>> listPods(const api::ListOptions& options) override {
    ++reads;
    return inner().listPods(options);
  }
};

kube::CachedClusterApiOptions shardCache(ShardAssignment shard) {
  kube::CachedClusterApiOptions options;
  options.namespaceFilter = [shard](std::string_view ns) { return shard.owns(ns); };
  return options;
}

void runTwoShards(const std::vector<std::string>& watchNamespaces) {
  const ShardAssignment zero{.shard = 0, .total = 2};
  const ShardAssignment one{.shard = 1, .total = 2};
  std::map<std::string, int> owner;
  for (const std::string& ns : kNamespaces) owner[ns] = shardOfNamespace(ns, 2);
  ASSERT_EQ(std::set<int>({owner["team-a"], owner["team-b"], owner["team-c"], owner["team-d"]}),
            (std::set<int>{0, 1}))
      << "every namespace on one shard";

  // The caches' own clock only schedules full relists (every 30 minutes of it): it stays put, so
  // the pod caches follow their watch throughout, as between two resyncs.
  SimulatedClock cacheClock(*parseRfc3339("2025-01-01T00:00:00Z"));
  kube::CachedClusterApi* firstCache = nullptr;
  std::unique_ptr<PodReadCounter> firstReads;
  HarnessOptions options;
  options.controller.shard = zero;
  options.controller.reportingInstance = "shard-0";
  options.controller.watchNamespaces = watchNamespaces;
  options.wrapApi = [&](api::ClusterApi& cluster) {
    firstReads = std::make_unique<PodReadCounter>(cluster);
    auto cache =
        std::make_unique<kube::CachedClusterApi>(*firstReads, cacheClock, shardCache(zero));
    firstCache = cache.get();
    return cache;
  };
  ScenarioHarness h(fourNamespaces(), options);
  ASSERT_TRUE(h.usable());
  ASSERT_NE(firstCache, nullptr);
  PodReadCounter secondReads(h.sim().api());
  kube::CachedClusterApi secondCache(secondReads, cacheClock, shardCache(one));
  metrics::Registry registry;
  ControllerOptions secondOptions;
  secondOptions.watchNamespaces = watchNamespaces;
  secondOptions.shard = one;
  secondOptions.reportingInstance = "shard-1";
  Controller second(secondCache, h.sim().metrics(), h.sim().clock(), registry, secondOptions);
  std::vector<ActionRecord> secondActions;
  second.setObserver([&](const ActionRecord& a) { secondActions.push_back(a); });

  // What each cache must hold: the pods of its shard's namespaces, as the cluster lists them.
  const auto expectCachesHoldTheirNamespaces = [&] {
    std::vector<std::string> want[2];
    for (const std::string& ns : kNamespaces) {
      auto listed = h.sim().api().listPods({.namespace_ = ns, .labelSelector = {}});
      ASSERT_TRUE(listed);
      for (const api::Pod& p : listed->items) want[owner[ns]].push_back(ns + "/" + p.metadata.name);
    }
    const kube::CachedClusterApi* caches[2] = {firstCache, &secondCache};
    for (int s = 0; s < 2; ++s) {
      std::vector<std::string> held;
      caches[s]->pods().forEach("", [&](const api::Pod& p) {
        held.push_back(p.metadata.namespace_ + "/" + p.metadata.name);
      });
      EXPECT_EQ(held, want[s]) << "shard " << s;
      EXPECT_EQ(caches[s]->nodes().size(), h.sim().api().listNodes({})->items.size());
    }
  };

  const auto resizedNamespaces = [&] {
    std::set<std::string> done;
    for (const ActionRecord& a : h.actions(Kind::kResized)) done.insert(a.workload.ns);
    for (const ActionRecord& a : secondActions) {
      if (a.kind == Kind::kResized) done.insert(a.workload.ns);
    }
    return done.size();
  };
  const Time end = h.sim().clock().now() + 3h;
  int steps = 0;
  while (resizedNamespaces() < kNamespaces.size() && h.sim().clock().now() < end) {
    ASSERT_TRUE(h.sim().step().has_value());
    ASSERT_TRUE(firstCache->sync().has_value());
    ASSERT_TRUE(secondCache.sync().has_value());
    if (++steps % 50 == 1) expectCachesHoldTheirNamespaces();
    ASSERT_TRUE(h.controller().reconcileDue().has_value());
    ASSERT_TRUE(second.reconcileDue().has_value());
  }
  ASSERT_EQ(resizedNamespaces(), kNamespaces.size());
  ASSERT_TRUE(firstCache->sync().has_value());
  ASSERT_TRUE(secondCache.sync().has_value());
  expectCachesHoldTheirNamespaces();
  EXPECT_GT(firstCache->pods().stats().filtered, 0u);
  EXPECT_GT(secondCache.pods().stats().filtered, 0u);

  for (const ActionRecord& a : h.actions(Kind::kResized)) {
    EXPECT_EQ(owner[a.workload.ns], 0) << "shard 0 resized in " << a.workload.ns;
  }
  for (const ActionRecord& a : secondActions) {
    EXPECT_EQ(owner[a.workload.ns], 1)
        << "shard 1 acted in " << a.workload.ns << ": " << toString(a.kind);
  }
  for (const std::string& ns : kNamespaces) {
    Controller& mine = owner[ns] == 0 ? h.controller() : second;
    EXPECT_TRUE(mine.passesOf(ns + "/web").has_value()) << ns;
  }
  // Every pod a pass read came from the caches, the other shard's namespaces included.
  EXPECT_EQ(firstReads->reads, 0);
  EXPECT_EQ(secondReads.reads, 0);
}

TEST(ShardedCachedControllersTest, EachShardCachesAndResizesOnlyItsNamespaces) { runTwoShards({}); }

TEST(ShardedCachedControllersTest, WatchNamespacesOfAnotherShardCostNoRequest) {
  runTwoShards(kNamespaces);
}

}  // namespace
}  // namespace attune::controller::testing
