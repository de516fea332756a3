// Two controllers as two shards of one cluster (controller/shard.h, docs/sharding.md), on one
// simulated clock: each reconciles and resizes only the policies of the namespaces it owns, and
// the Events it writes carry its identity. Without the shard filter both would resize every
// namespace.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "controller/shard.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using Kind = ActionRecord::Kind;

const std::vector<std::string>& kNamespaces = kFourNamespaces;

TEST(ShardedControllersTest, EachShardResizesOnlyThePodsOfItsNamespaces) {
  std::map<std::string, int> owner;
  std::set<int> owners;
  for (const std::string& ns : kNamespaces) {
    owner[ns] = shardOfNamespace(ns, 2);
    owners.insert(owner[ns]);
  }
  ASSERT_EQ(owners.size(), 2u) << "every namespace on one shard";

  HarnessOptions options;
  options.controller.shard = {.shard = 0, .total = 2};
  options.controller.reportingInstance = "shard-0";
  ScenarioHarness h(fourNamespaces(), options);
  ASSERT_TRUE(h.usable());
  metrics::Registry registry;
  ControllerOptions secondOptions;
  secondOptions.shard = {.shard = 1, .total = 2};
  secondOptions.reportingInstance = "shard-1";
  Controller second(h.sim().api(), h.sim().metrics(), h.sim().clock(), registry, secondOptions);
  std::vector<ActionRecord> secondActions;
  second.setObserver([&](const ActionRecord& a) { secondActions.push_back(a); });

  // Both shards on the one clock until every namespace's pod has been resized.
  std::map<int, std::vector<ActionRecord>> byShard;
  const auto resizedNamespaces = [&] {
    std::set<std::string> done;
    for (const ActionRecord& a : h.actions(Kind::kResized)) done.insert(a.workload.ns);
    for (const ActionRecord& a : secondActions) {
      if (a.kind == Kind::kResized) done.insert(a.workload.ns);
    }
    return done.size();
  };
  const Time end = h.sim().clock().now() + 3h;
  while (resizedNamespaces() < kNamespaces.size() && h.sim().clock().now() < end) {
    ASSERT_TRUE(h.sim().step().has_value());
    ASSERT_TRUE(h.controller().reconcileDue().has_value());
    ASSERT_TRUE(second.reconcileDue().has_value());
  }
  ASSERT_EQ(resizedNamespaces(), kNamespaces.size());

  // Whatever each shard did, it did in its own namespaces only.
  for (const ActionRecord& a : h.actions(Kind::kResized)) {
    EXPECT_EQ(owner[a.workload.ns], 0) << "shard 0 resized in " << a.workload.ns;
  }
  for (const ActionRecord& a : secondActions) {
    EXPECT_EQ(owner[a.workload.ns], 1)
        << "shard 1 acted in " << a.workload.ns << ": " << toString(a.kind);
  }
  // Each policy is reconciled by its owner only: the other shard never even started a pass.
  for (const std::string& ns : kNamespaces) {
    Controller& mine = owner[ns] == 0 ? h.controller() : second;
    Controller& other = owner[ns] == 0 ? second : h.controller();
    EXPECT_TRUE(mine.passesOf(ns + "/web").has_value()) << ns;
    EXPECT_FALSE(other.passesOf(ns + "/web").has_value()) << ns;
  }
  // The Events name the replica that wrote them.
  std::size_t resizedEvents = 0;
  for (const api::Event& e : h.events("Resized")) {
    ++resizedEvents;
    EXPECT_EQ(e.reportingInstance, "shard-" + std::to_string(owner[e.involvedObject.namespace_]))
        << e.involvedObject.namespace_ << "/" << e.involvedObject.name;
  }
  EXPECT_GE(resizedEvents, kNamespaces.size());
}

TEST(ShardedControllersTest, OneShardOfOneIsTheUnshardedController) {
  HarnessOptions options;
  options.controller.shard = {.shard = 0, .total = 1};
  ScenarioHarness h(fourNamespaces(), options);
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil(
      [&] {
        std::set<std::string> done;
        for (const ActionRecord& a : h.actions(Kind::kResized)) done.insert(a.workload.ns);
        return done.size() == kNamespaces.size();
      },
      3h));
  for (const api::Event& e : h.events("Resized")) EXPECT_EQ(e.reportingInstance, "");
}

}  // namespace
}  // namespace attune::controller::testing
