// A reconcile runs its due policies in groups of whole namespaces (ControllerOptions::passGroup,
// and passGroupSamples for the samples their usage reads bring), each prepared and finished
// before the next, with the pods unpacked for a group freed before
// the next group reads its own (ControllerOptions::releasePods, kube::PodInformer::
// releaseUnpacked). Grouped or not, the controller takes the same actions at the same times;
// grouped, the pod cache holds at most one namespace's unpacked pods after a reconcile instead
// of every target pod. Under ASan a pod pointer kept past its group would be a use after free.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kube/cached_cluster_api.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

const std::vector<std::string>& kNamespaces = kFourNamespaces;
constexpr std::size_t kReplicas = 3;

struct Outcome {
  // Every action: its kind, pod and time.
  std::vector<std::string> actions;
  int releases = 0;                 // releasePods calls
  std::size_t mostUnpacked = 0;     // unpacked pods held after a reconcile, at most
  std::size_t leastUnpacked = ~0u;  // and at least, after a reconcile that ran every policy
};

Outcome run(std::size_t passGroup, std::size_t passGroupSamples = 1'000'000) {
  Outcome out;
  // The cache's own clock only schedules full relists: it stays put (the watch is followed).
  SimulatedClock cacheClock(*parseRfc3339("2025-01-01T00:00:00Z"));
  kube::CachedClusterApi* cache = nullptr;
  HarnessOptions options;
  options.controller.passGroup = passGroup;
  options.controller.passGroupSamples = passGroupSamples;
  options.controller.releasePods = [&] {
    ++out.releases;
    cache->pods().releaseUnpacked();
  };
  options.wrapApi = [&](api::ClusterApi& cluster) {
    auto cached = std::make_unique<kube::CachedClusterApi>(cluster, cacheClock);
    cache = cached.get();
    return cached;
  };
  ScenarioHarness h(fourNamespaces(static_cast<int>(kReplicas)), options);
  EXPECT_TRUE(h.usable());
  if (!h.usable() || cache == nullptr) return out;
  const Time end = h.now() + 3h;
  while (h.now() < end) {
    EXPECT_TRUE(h.sim().step().has_value());
    EXPECT_TRUE(cache->sync().has_value());
    EXPECT_TRUE(h.controller().reconcileDue().has_value());
    if (h.controller().reconciledLastCall() == 0) continue;
    const std::size_t held = cache->pods().unpackedCount();
    out.mostUnpacked = std::max(out.mostUnpacked, held);
    if (h.controller().reconciledLastCall() == kNamespaces.size()) {
      out.leastUnpacked = std::min(out.leastUnpacked, held);
    }
  }
  for (const ActionRecord& a : h.actions()) {
    out.actions.push_back(std::string(toString(a.kind)) + " " + a.workload.ns + "/" + a.pod + " " +
                          a.container + " " + a.detail + " " + formatRfc3339(a.time));
  }
  return out;
}

TEST(PassGroupsTest, GroupsOfOneNamespaceActAsOneReconcileAndFreeEachGroupsPods) {
  const Outcome whole = run(/*passGroup=*/256);
  const Outcome grouped = run(/*passGroup=*/1);
  ASSERT_FALSE(whole.actions.empty()) << "the scenario resized nothing: it tests nothing";
  EXPECT_EQ(grouped.actions, whole.actions);
  // Four namespaces in one group: nothing to release, every target pod held until the next sync.
  EXPECT_EQ(whole.releases, 0);
  EXPECT_EQ(whole.leastUnpacked, kNamespaces.size() * kReplicas);
  // One group per namespace: releases between groups, and only the last group's pods held after
  // a reconcile (each at most twice: as read, and as replaced by the pass's own resize).
  EXPECT_GT(grouped.releases, 0);
  EXPECT_GT(grouped.mostUnpacked, 0u);
  EXPECT_LE(grouped.mostUnpacked, 2 * kReplicas);
  EXPECT_LT(grouped.mostUnpacked, whole.leastUnpacked);
}

TEST(PassGroupsTest, ANamespaceWhoseReadsReachTheSampleBudgetClosesItsGroup) {
  // The first pass reads each namespace's history window (kReplicas pods × its steps); steady
  // passes read a step or two per pod.
  const Outcome whole = run(/*passGroup=*/256);
  const Outcome oneNamespace = run(/*passGroup=*/256, /*passGroupSamples=*/1);
  const Outcome firstPassOnly = run(/*passGroup=*/256, /*passGroupSamples=*/3 * kReplicas);
  EXPECT_EQ(oneNamespace.actions, whole.actions);
  EXPECT_EQ(firstPassOnly.actions, whole.actions);
  EXPECT_EQ(whole.releases, 0);
  // Every namespace's reads reach a budget of 1: one group per namespace in every reconcile.
  EXPECT_EQ(oneNamespace.releases, run(/*passGroup=*/1).releases);
  EXPECT_LE(oneNamespace.mostUnpacked, 2 * kReplicas);
  // A budget of 3 steps a pod: only reads of more than that close a group.
  EXPECT_GT(firstPassOnly.releases, 0);
  EXPECT_LT(firstPassOnly.releases, oneNamespace.releases);
}

}  // namespace
}  // namespace attune::controller::testing
