// The controller's work queue: the queue itself, a requeue acted on at its due time between two
// periodic resyncs, a pod watch event that queues only the policy whose targets select it, and
// the policies a run names (a pod change's first).
#include "controller/work_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "api/k8s/eviction.h"
#include "api/policy/attune_defaults.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using Kind = ActionRecord::Kind;

const Time kT0 = Time{} + std::chrono::hours(1000);

TEST(WorkQueueTest, AKeyIsQueuedOnceAtTheEarliestTimeAskedFor) {
  WorkQueue q;
  q.add("apps/web", kT0 + 10min);
  q.add("apps/web", kT0 + 5min);
  q.add("apps/web", kT0 + 20min);
  EXPECT_EQ(q.size(), 1u);
  EXPECT_EQ(q.dueOf("apps/web"), kT0 + 5min);
  EXPECT_EQ(q.nextDue(), kT0 + 5min);
}

TEST(WorkQueueTest, PopDueHandsOutWhatIsDueSoonestFirstAndKeepsTheRest) {
  WorkQueue q;
  q.add("b/late", kT0 + 3min);
  q.add("b/two", kT0 + 2min);
  q.add("a/two", kT0 + 2min);
  q.add("c/one", kT0 + 1min);
  EXPECT_TRUE(q.popDue(kT0).empty());
  EXPECT_EQ(q.popDue(kT0 + 2min), (std::vector<std::string>{"c/one", "a/two", "b/two"}));
  EXPECT_EQ(q.nextDue(), kT0 + 3min);
  q.forget("b/late");
  EXPECT_FALSE(q.nextDue().has_value());
}

// A popped key is no longer queued (the queue keeps its name for the next add): it is queued
// again at whatever time is asked, and a forgotten one is gone whether queued or not.
TEST(WorkQueueTest, APoppedKeyIsQueuedAgainAtAnyTimeAndAForgottenOneIsGone) {
  WorkQueue q;
  q.add("a/web", kT0 + 1min);
  q.add("a/api", kT0 + 1min);
  ASSERT_EQ(q.popDue(kT0 + 1min), (std::vector<std::string>{"a/api", "a/web"}));
  EXPECT_EQ(q.size(), 0u);
  EXPECT_FALSE(q.dueOf("a/web").has_value());
  EXPECT_FALSE(q.nextDue().has_value());
  q.add("a/web", kT0 + 30min);  // later than its popped time
  q.add("a/api", kT0 + 2min);
  q.add("a/web", kT0 + 3min);
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.dueOf("a/web"), kT0 + 3min);
  q.forget("a/api");
  EXPECT_FALSE(q.dueOf("a/api").has_value());
  EXPECT_EQ(q.nextDue(), kT0 + 3min);
  EXPECT_TRUE(q.popDue(kT0 + 2min).empty());
  EXPECT_EQ(q.popDue(kT0 + 3min), (std::vector<std::string>{"a/web"}));
  q.forget("a/web");  // popped: forgetting it is harmless
  q.forget("a/none");
  EXPECT_EQ(q.size(), 0u);
  q.add("a/api", kT0 + 4min);
  EXPECT_EQ(q.popDue(kT0 + 4min), (std::vector<std::string>{"a/api"}));
}

const std::string kResizedAtStart =
    "    annotations: {attune.io/last-resize-time: \"" + std::string(kStart) + "\"}\n";

// The cooldown ends at minute 45; the periodic resync runs every 10 minutes (1, 11, ..., 41, 51).
// The skip's requeue time brings the pass that resizes to minute 45 exactly.
TEST(WorkQueueTest, ACooldownEndingBetweenTwoResyncsIsActedOnAtItsEnd) {
  ScenarioHarness h(scenarioYaml(workloadYaml({.name = "web", .workloadExtra = kResizedAtStart}),
                                 policyYaml({.name = "web",
                                             .target = "web",
                                             .updateStrategy = "{type: Auto, cooldown: 45m}"})),
                    HarnessOptions{.reconcileInterval = 10min});
  ASSERT_TRUE(h.usable());
  h.runMinutes(12);
  const std::uint64_t passesAt12 = h.controller().passesOf("apps/web").value_or(0);
  h.runMinutes(32);  // minute 44
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  EXPECT_EQ(h.controller().passesOf("apps/web").value_or(0) - passesAt12, 3u)
      << "only the resyncs at minutes 21, 31 and 41 run while nothing changes";
  h.runMinutes(2);
  ASSERT_EQ(h.actions(Kind::kResized).size(), 1u);
  EXPECT_EQ(h.actions(Kind::kResized)[0].time, h.sim().scenario().start + 45min)
      << "not at the next resync (minute 51)";
}

// Two policies in one namespace. A pod of `web` is evicted and its ReplicaSet makes a new one:
// the watch events queue `web` at once; `api` waits for its resync.
TEST(WorkQueueTest, APodWatchEventQueuesOnlyThePolicyWhoseTargetsSelectThePod) {
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "web", .replicas = 2}) + workloadYaml({.name = "api"}),
                   policyYaml({.name = "web", .target = "web"}) +
                       policyYaml({.name = "api", .target = "api"})),
      HarnessOptions{.reconcileInterval = 30min});
  ASSERT_TRUE(h.usable());
  h.runMinutes(5);  // the first passes; the pods are up and their watch digests known
  const std::uint64_t web = h.controller().passesOf("apps/web").value_or(0);
  const std::uint64_t api = h.controller().passesOf("apps/api").value_or(0);
  ASSERT_GT(web, 0u);
  ASSERT_GT(api, 0u);
  h.runMinutes(5);
  ASSERT_EQ(h.controller().passesOf("apps/web"), web) << "nothing changed: no pass";
  ASSERT_EQ(h.controller().passesOf("apps/api"), api);

  const std::vector<api::Pod> pods = h.pods("apps", "web");
  ASSERT_EQ(pods.size(), 2u);
  api::Eviction eviction;
  eviction.metadata.namespace_ = "apps";
  eviction.metadata.name = pods[0].metadata.name;
  ASSERT_TRUE(h.sim().api().evictPod(eviction).has_value());
  h.runMinutes(1);
  EXPECT_GT(h.controller().passesOf("apps/web").value_or(0), web)
      << "the eviction and the replacement pod queue `web` within a tick";
  EXPECT_EQ(h.controller().passesOf("apps/api"), api) << "`api`'s pods did not change";
}

// A run names at most Controller::kNamedPerCall policies: those a pod change brought in first,
// so that a changed pod's policy is named even in a run of more policies than that.
TEST(WorkQueueTest, ARunNamesThePolicyAPodChangeBroughtInBeforeTheOthers) {
  constexpr std::size_t kPolicies = Controller::kNamedPerCall + 8;
  ScenarioHarness h(overRequestingWorkloads(static_cast<int>(kPolicies), 1),
                    HarnessOptions{.reconcileInterval = 30min});
  ASSERT_TRUE(h.usable());
  h.runMinutes(5);  // the first passes and resizes; the pods' watch digests known

  // In one instant: new cluster defaults (every policy's effective spec may change: all are
  // due) and an evicted pod of web-9, the policy named last in namespace/name order.
  auto decoded = api::checkDefaults(
      "apiVersion: attune.io/v1alpha1\nkind: AttuneDefaults\nmetadata: {name: cluster}\n"
      "spec:\n  updateStrategy: {type: Recommend}\n");
  ASSERT_EQ(decoded.size(), 1u);
  ASSERT_TRUE(decoded[0].defaults.has_value());
  ASSERT_TRUE(h.sim().state().attuneDefaults.create(std::move(*decoded[0].defaults)));
  const std::vector<api::Pod> pods = h.pods("apps", "web-9", /*all=*/true);
  ASSERT_EQ(pods.size(), 1u);
  api::Eviction eviction;
  eviction.metadata.namespace_ = "apps";
  eviction.metadata.name = pods[0].metadata.name;
  ASSERT_TRUE(h.sim().api().evictPod(eviction).has_value());

  ASSERT_TRUE(h.controller().reconcileDue().has_value());
  ASSERT_EQ(h.controller().reconciledLastCall(), kPolicies);
  const std::vector<std::string>& named = h.controller().namedLastCall();
  ASSERT_EQ(named.size(), Controller::kNamedPerCall);
  EXPECT_EQ(named.front(), "apps/web-9");
  EXPECT_TRUE(std::is_sorted(named.begin() + 1, named.end())) << "then in the order they ran";
  EXPECT_EQ(std::count(named.begin(), named.end(), "apps/web-9"), 1);

  // Run, it is no longer a pod change's: the next run of every policy names them in order.
  ASSERT_TRUE(h.sim().state().attuneDefaults.erase("", "cluster"));
  ASSERT_TRUE(h.controller().reconcileDue().has_value());
  ASSERT_EQ(h.controller().reconciledLastCall(), kPolicies);
  EXPECT_TRUE(std::ranges::is_sorted(h.controller().namedLastCall()));
}

}  // namespace
}  // namespace attune::controller::testing
