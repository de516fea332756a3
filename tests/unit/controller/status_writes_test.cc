// Status writes sent together (ControllerOptions::statusWriteBatch): the passes' writes go out in
// calls of updateAttunePolicyStatuses of at most the batch size, the cluster ends in the same
// state as when each pass sends its own, and a write refused for a conflict is written again
// over the latest version.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "api/forwarding_cluster_api.h"
#include "controller/policy_status.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

// What the controller's status writes looked like, kept by the test (the harness owns the api).
struct Seen {
  std::vector<std::size_t> batches;    // the size of each updateAttunePolicyStatuses call
  std::size_t singles = 0;             // updateAttunePolicyStatus calls
  std::set<std::string> conflictOnce;  // policies whose next status write is refused
};

class CountingApi final : public api::ForwardingClusterApi {
 public:
  CountingApi(api::ClusterApi& inner, Seen& seen) : ForwardingClusterApi(inner), seen_(seen) {}

  std::vector<Result<api::AttunePolicy>> updateAttunePolicyStatuses(
      std::span<const api::AttunePolicy> policies) override {
    seen_.batches.push_back(policies.size());
    return ForwardingClusterApi::updateAttunePolicyStatuses(policies);
  }
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override {
    ++seen_.singles;
    if (seen_.conflictOnce.erase(policy.metadata.name) > 0) {
      return std::unexpected(Error{ErrorCode::kConflict, "the object has been modified", {}});
    }
    return ForwardingClusterApi::updateAttunePolicyStatus(policy);
  }

 private:
  Seen& seen_;
};

std::string fivePolicies() {
  std::string workloads;
  std::string policies;
  for (int i = 0; i < 5; ++i) {
    const std::string name = "web-" + std::to_string(i);
    workloads += workloadYaml({.name = name});
    policies += policyYaml({.name = name, .target = name});
  }
  return scenarioYaml(workloads, policies);
}

HarnessOptions counted(Seen& seen, std::size_t batch) {
  HarnessOptions options;
  options.controller.statusWriteBatch = batch;
  options.wrapApi = [&seen](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<CountingApi>(cluster, seen);
  };
  return options;
}

TEST(StatusWritesTest, PassesSendTheirWritesTogetherAndEndAsIfEachSentItsOwn) {
  Seen batched;
  ScenarioHarness h(fivePolicies(), counted(batched, 2));
  Seen alone;
  ScenarioHarness reference(fivePolicies(), counted(alone, 0));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(reference.usable());
  h.run(3h);
  reference.run(3h);

  // The first pass writes all five statuses: in calls of two, two and one.
  ASSERT_GE(batched.batches.size(), 3U);
  EXPECT_EQ(std::vector<std::size_t>(batched.batches.begin(), batched.batches.begin() + 3),
            (std::vector<std::size_t>{2, 2, 1}));
  std::size_t sent = 0;
  for (std::size_t size : batched.batches) {
    EXPECT_LE(size, 2U);
    sent += size;
  }
  EXPECT_EQ(sent, batched.singles);  // every write went through a batch
  EXPECT_TRUE(alone.batches.empty());
  EXPECT_EQ(alone.singles, batched.singles);

  ASSERT_FALSE(h.actions(ActionRecord::Kind::kResized).empty());
  for (int i = 0; i < 5; ++i) {
    const std::string name = "web-" + std::to_string(i);
    const api::AttunePolicy policy = h.policy("apps", name);
    EXPECT_TRUE(policy.status.lastReconcileTime.has_value()) << name;
    EXPECT_EQ(policy.status, reference.policy("apps", name).status) << name;
  }
}

TEST(StatusWritesTest, AConflictIsWrittenAgainOverTheLatestVersion) {
  Seen seen;
  seen.conflictOnce = {"web-1"};
  ScenarioHarness h(fivePolicies(), counted(seen, 8));
  ASSERT_TRUE(h.usable());
  h.run(2min);
  EXPECT_TRUE(seen.conflictOnce.empty());  // refused once
  EXPECT_TRUE(h.policy("apps", "web-1").status.lastReconcileTime.has_value());
  // Five writes in one call, then the refused one again on its own.
  ASSERT_FALSE(seen.batches.empty());
  EXPECT_EQ(seen.batches.front(), 5U);
  EXPECT_GE(seen.singles, 6U);
}

TEST(StatusWritesTest, ALaterWriteOfAPolicyReplacesThePendingOne) {
  StatusWrites writes;
  api::AttunePolicy first;
  first.metadata.name = "p";
  first.metadata.namespace_ = "a";
  api::AttunePolicy second = first;
  second.status.observedGeneration = 2;
  api::AttunePolicy other = first;
  other.metadata.name = "q";
  writes.add(first);
  writes.add(other);
  writes.add(second);
  EXPECT_EQ(writes.size(), 2U);
}

}  // namespace
}  // namespace attune::controller::testing
