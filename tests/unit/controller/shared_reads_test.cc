// The usage reads of a pass are shared by the policies of one namespace
// (ControllerOptions::sharedUsageReads, usage/shared_usage_reads.h): one read per metric per
// pass instead of one per policy, each later pass reading only the new steps, with the same
// recommendations, actions and fail-closed conditions as when every policy reads on its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

// Forwards to a real source and records the range of every CPU usage query (the first of the
// four of a usage read); told to fail(), every usage query fails as an unreachable backend.
class CountingMetricsSource final : public metrics::MetricsSource {
 public:
  explicit CountingMetricsSource(metrics::MetricsSource& real) : real_(real) {}
  void fail() { failing_ = true; }
  const std::vector<metrics::Range>& cpuQueries() const { return cpu_; }
  std::size_t usageQueries() const { return usage_; }

  Result<std::vector<metrics::ContainerSeries>> cpuUsage(const metrics::Scope& s,
                                                         const metrics::Range& r) override {
    cpu_.push_back(r);
    return usage([&] { return real_.cpuUsage(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> cpuPressureWaiting(
      const metrics::Scope& s, const metrics::Range& r) override {
    return usage([&] { return real_.cpuPressureWaiting(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> memoryWorkingSet(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return usage([&] { return real_.memoryWorkingSet(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> cpuThrottleRatio(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return real_.cpuThrottleRatio(s, r);
  }
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope& s,
                                                 const metrics::Range& r) override {
    return usage([&] { return real_.oomKills(s, r); });
  }
  Result<std::vector<metrics::RestartCount>> restartCounts(const metrics::Scope& s,
                                                           Time at) override {
    return real_.restartCounts(s, at);
  }
  Result<std::vector<metrics::ContainerResourceValues>> resources(const metrics::Scope& s,
                                                                  Time at) override {
    return real_.resources(s, at);
  }
  Result<std::vector<metrics::PodOwner>> podOwners(const metrics::Scope& s, Time at) override {
    return real_.podOwners(s, at);
  }
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const metrics::Range& r) override {
    return real_.nodeLoad(r);
  }
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time at) override {
    return real_.nodeCapacity(at);
  }

 private:
  template <typename Query>
  auto usage(Query query) -> decltype(query()) {
    ++usage_;
    if (failing_) return attune::fail(ErrorCode::kUnavailable, "metrics backend unreachable");
    return query();
  }

  metrics::MetricsSource& real_;
  bool failing_ = false;
  std::vector<metrics::Range> cpu_;
  std::size_t usage_ = 0;
};

constexpr int kPolicies = 4;

// Four Deployments in `apps` of two pods each, each with its policy; two resize (Auto), two only
// recommend. The last policy excludes its pods' container `app`: the shared read includes it (the
// others want it) and must not hand it to that policy.
std::string scenario() {
  std::string workloads, policies;
  for (int i = 0; i < kPolicies; ++i) {
    const std::string name = "web" + std::to_string(i);
    workloads += workloadYaml({.name = name,
                               .replicas = 2,
                               .model = "{kind: steady, cpuCores: " + std::to_string(100 + 50 * i) +
                                        "m, memoryBytes: 200Mi, noise: 0}",
                               .containerExtra = {},
                               .workloadExtra = {}});
    policies +=
        policyYaml({.name = name,
                    .target = name,
                    .updateStrategy = i < 2 ? "{type: Auto}" : "{type: Recommend}",
                    .extra = i == kPolicies - 1 ? "      excludedContainers: [app]\n" : ""});
  }
  return scenarioYaml(workloads, policies);
}

struct Outcome {
  std::vector<metrics::Range> cpuQueries;
  std::vector<api::AttunePolicy> policies;
  std::size_t resizes = 0;
};

// Runs the scenario for `minutes` with shared reads on or off; with `failAfter`, the metrics
// backend fails from then on.
Outcome run(bool shared, int minutes, std::optional<int> failAfter = std::nullopt) {
  HarnessOptions options;
  options.controller.sharedUsageReads = shared;
  ScenarioHarness h(scenario(), options);
  Outcome out;
  if (!h.usable()) return out;
  CountingMetricsSource source(h.sim().metrics());
  h.restartController(&source);
  h.runMinutes(failAfter.value_or(minutes));
  if (failAfter) {
    source.fail();
    h.runMinutes(minutes - *failAfter);
  }
  out.cpuQueries = source.cpuQueries();
  for (int i = 0; i < kPolicies; ++i)
    out.policies.push_back(h.policy("apps", "web" + std::to_string(i)));
  out.resizes = h.actions(ActionRecord::Kind::kResized).size();
  return out;
}

TEST(SharedReadsTest, PoliciesOfOneNamespaceReadOncePerPassAndThenOnlyTheNewSteps) {
  const Outcome shared = run(true, 30);
  const Outcome alone = run(false, 30);
  ASSERT_FALSE(shared.cpuQueries.empty());
  // Every pass reconciles the four policies together: one read instead of four.
  EXPECT_EQ(alone.cpuQueries.size(), kPolicies * shared.cpuQueries.size());
  // The first read covers the history window (24 h at a 1 m step); every later one starts one
  // step after the previous one ended.
  const metrics::Range& first = shared.cpuQueries.front();
  EXPECT_EQ(first.end - first.start, 24h);
  for (std::size_t i = 1; i < shared.cpuQueries.size(); ++i) {
    EXPECT_EQ(shared.cpuQueries[i].start, shared.cpuQueries[i - 1].end + first.step) << i;
    EXPECT_LE(shared.cpuQueries[i].end - shared.cpuQueries[i].start, 2min) << i;
  }
  // Sharing changes what is sent, not what is decided.
  EXPECT_GT(shared.resizes, 0u);
  EXPECT_EQ(shared.resizes, alone.resizes);
  for (int i = 0; i < kPolicies; ++i) {
    const api::AttunePolicyStatus& a = shared.policies[i].status;
    const api::AttunePolicyStatus& b = alone.policies[i].status;
    if (i < kPolicies - 1) {
      EXPECT_FALSE(a.recommendations.empty()) << i;
    }
    EXPECT_EQ(a.recommendations, b.recommendations) << i;
    EXPECT_EQ(a.resizeHistory, b.resizeHistory) << i;
  }
  // The policy excluding its only container has no recommendation for it.
  for (const auto& w : shared.policies[kPolicies - 1].status.recommendations) {
    for (const auto& c : w.containers) EXPECT_NE(c.name, "app");
  }
}

TEST(SharedReadsTest, AFailedSharedReadFailsEveryPolicyWithTheReasonOfItsOwnRead) {
  const Outcome shared = run(true, 20, 10);
  const Outcome alone = run(false, 20, 10);
  ASSERT_EQ(shared.policies.size(), static_cast<std::size_t>(kPolicies));
  for (int i = 0; i < kPolicies; ++i) {
    const api::Condition* ready = condition(shared.policies[i], api::kConditionReady);
    const api::Condition* readyAlone = condition(alone.policies[i], api::kConditionReady);
    ASSERT_NE(ready, nullptr);
    ASSERT_NE(readyAlone, nullptr);
    EXPECT_EQ(ready->status, "False") << i;
    EXPECT_EQ(ready->reason, "PrometheusUnavailable") << i;
    EXPECT_EQ(ready->message, readyAlone->message) << i;
  }
  EXPECT_EQ(shared.resizes, alone.resizes);
}

}  // namespace
}  // namespace attune::controller::testing
