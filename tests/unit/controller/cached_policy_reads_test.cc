// The controller reads its AttunePolicies as kube::CachedClusterApi shares them
// (ClusterApi::sharedAttunePolicies): while the cache hands back the very list the controller
// holds, no policy changed and none is copied or compared. Any change (a new spec, a new
// policy, a deleted one) still reaches the work queue at the next call, within the same
// simulated instant.
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

TEST(CachedPolicyReadsTest, EveryPolicyChangeReachesTheQueueThroughTheSharedList) {
  SimulatedClock cacheClock(*parseRfc3339("2025-01-01T00:00:00Z"));
  kube::CachedClusterApi* cache = nullptr;
  HarnessOptions options;
  options.wrapApi = [&](api::ClusterApi& cluster) {
    auto cached = std::make_unique<kube::CachedClusterApi>(cluster, cacheClock);
    cache = cached.get();
    return cached;
  };
  ScenarioHarness h(
      scenarioYaml(
          workloadYaml({.name = "web"}) + workloadYaml({.name = "api"}),
          policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"}) +
              policyYaml({.name = "api", .target = "api", .updateStrategy = "{type: Recommend}"})),
      options);
  ASSERT_TRUE(h.usable());
  ASSERT_NE(cache, nullptr);
  api::ClusterApi& cluster = h.sim().api();
  // Every call at the same simulated instant: only what changed is due.
  const auto reconciled = [&] {
    EXPECT_TRUE(cache->sync().has_value());
    EXPECT_TRUE(h.controller().reconcileDue().has_value());
    return h.controller().reconciledLastCall();
  };
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(h.sim().step().has_value());
    reconciled();
  }
  ASSERT_EQ(h.controller().policyCount(), 2u);
  ASSERT_TRUE(h.controller().passesOf("apps/web").has_value());
  EXPECT_EQ(reconciled(), 0u);  // nothing changed, nothing due before the next minute
  const auto held = cache->sharedAttunePolicies("");
  ASSERT_NE(held, nullptr);
  EXPECT_EQ(cache->sharedAttunePolicies(""), held);
  EXPECT_EQ(reconciled(), 0u);

  // A new spec: that policy alone, at once.
  api::AttunePolicy web = *cluster.getAttunePolicy("apps", "web");
  web.spec.updateStrategy.type = api::UpdateMode::kObserve;
  ASSERT_TRUE(cluster.updateAttunePolicy(web));
  EXPECT_EQ(reconciled(), 1u);
  EXPECT_EQ(h.controller().namedLastCall(), std::vector<std::string>{"apps/web"});
  EXPECT_EQ(h.controller().passesOf("apps/web"), 1u);  // a new state for the new generation
  EXPECT_EQ(reconciled(), 0u);
  EXPECT_TRUE(h.controller().namedLastCall().empty());

  // A new policy.
  ASSERT_TRUE(cluster.createAttunePolicy([&] {
    api::AttunePolicy p = *cluster.getAttunePolicy("apps", "api");
    p.metadata.name = "api-too";
    p.metadata.uid.clear();
    p.metadata.resourceVersion.clear();
    p.status = {};
    return p;
  }()));
  EXPECT_EQ(reconciled(), 1u);
  EXPECT_EQ(h.controller().namedLastCall(), std::vector<std::string>{"apps/api-too"});
  EXPECT_EQ(h.controller().policyCount(), 3u);
  EXPECT_TRUE(h.controller().passesOf("apps/api-too").has_value());

  // A deleted one: forgotten.
  ASSERT_TRUE(h.sim().state().attunePolicies.erase("apps", "api-too"));
  EXPECT_EQ(reconciled(), 0u);
  EXPECT_EQ(h.controller().policyCount(), 2u);
  EXPECT_FALSE(h.controller().passesOf("apps/api-too").has_value());
}

// A call names the policies it reconciled, in the order they ran (namespace, then name), up to
// Controller::kNamedPerCall; the count covers them all.
TEST(CachedPolicyReadsTest, ACallNamesThePoliciesItReconciledUpToItsLimit) {
  constexpr std::size_t kPolicies = Controller::kNamedPerCall + 8;
  ScenarioHarness h(overRequestingWorkloads(static_cast<int>(kPolicies), 1));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.controller().reconcileDue().has_value());  // every new policy is due
  ASSERT_EQ(h.controller().reconciledLastCall(), kPolicies);
  std::vector<std::string> all;
  for (std::size_t i = 0; i < kPolicies; ++i) all.push_back("apps/web-" + std::to_string(i));
  std::ranges::sort(all);
  all.resize(Controller::kNamedPerCall);
  EXPECT_EQ(h.controller().namedLastCall(), all);
}

}  // namespace
}  // namespace attune::controller::testing
