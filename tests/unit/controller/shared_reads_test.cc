// The usage reads of a pass are shared by the policies of one namespace
// (ControllerOptions::sharedUsageReads, usage/shared_usage_reads.h): one read per metric per
// pass instead of one per policy, each later pass reading only the new steps, with the same
// recommendations, actions and fail-closed conditions as when every policy reads on its own.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "controller/policy_pass.h"
#include "scenario_harness.h"
#include "usage/usage_history.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

// Forwards to a real source and records the range of every CPU usage query (the first of the
// four of a usage read); told to fail(), every usage query fails as an unreachable backend.
class CountingMetricsSource final : public metrics::MetricsSource {
 public:
  // With `clock`, the time each CPU usage query is asked is recorded too.
  explicit CountingMetricsSource(metrics::MetricsSource& real, Clock* clock = nullptr)
      : real_(real), clock_(clock) {}
  void fail() { failing_ = true; }
  const std::vector<metrics::Range>& cpuQueries() const { return cpu_; }
  const std::vector<Time>& cpuAsked() const { return asked_; }
  std::size_t usageQueries() const { return usage_; }

  Result<std::vector<metrics::ContainerSeries>> cpuUsage(const metrics::Scope& s,
                                                         const metrics::Range& r) override {
    cpu_.push_back(r);
    if (clock_ != nullptr) asked_.push_back(clock_->now());
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
  Clock* clock_;
  bool failing_ = false;
  std::vector<metrics::Range> cpu_;
  std::vector<Time> asked_;
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
  std::vector<Time> cpuAsked;
  std::vector<api::AttunePolicy> policies;
  std::size_t resizes = 0;
};

// Runs the scenario for `minutes` with shared reads on or off; with `failAfter`, the metrics
// backend fails from then on.
// With `spread`, reads are spread over each step (ControllerOptions::spreadUsageReads).
Outcome run(bool shared, int minutes, std::optional<int> failAfter = std::nullopt,
            bool spread = false) {
  HarnessOptions options;
  options.controller.sharedUsageReads = shared;
  options.controller.spreadUsageReads = spread;
  ScenarioHarness h(scenario(), options);
  Outcome out;
  if (!h.usable()) return out;
  CountingMetricsSource source(h.sim().metrics(), &h.sim().clock());
  h.restartController(&source);
  h.runMinutes(failAfter.value_or(minutes));
  if (failAfter) {
    source.fail();
    h.runMinutes(minutes - *failAfter);
  }
  out.cpuQueries = source.cpuQueries();
  out.cpuAsked = source.cpuAsked();
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

TEST(SharedReadsTest, SpreadReadsReachEachStepAtTheNamespacesPhaseAndDecideTheSame) {
  const Outcome spread = run(true, 30, std::nullopt, true);
  const Outcome plain = run(true, 30);
  ASSERT_FALSE(spread.cpuQueries.empty());
  ASSERT_EQ(spread.cpuQueries.size(), spread.cpuAsked.size());
  const Duration step = spread.cpuQueries.front().step;
  const Duration phase = usageReadPhase("apps", step);
  // Otherwise the reads below would be those of unspread reads.
  ASSERT_GT(phase, Duration::zero());
  ASSERT_LT(phase, step);
  bool late = false;  // some read ended a step before the unspread read would have
  for (std::size_t i = 0; i < spread.cpuQueries.size(); ++i) {
    const Time asked = spread.cpuAsked[i];
    EXPECT_EQ(spread.cpuQueries[i].end, usage::floorToStep(asked - phase, step)) << i;
    if (i > 0) {
      EXPECT_EQ(spread.cpuQueries[i].start, spread.cpuQueries[i - 1].end + step) << i;
    }
    late = late || spread.cpuQueries[i].end < usage::floorToStep(asked, step);
  }
  EXPECT_TRUE(late);
  // The same pods are resized: one step's delay in a day of history changes no decision here.
  EXPECT_GT(spread.resizes, 0u);
  EXPECT_EQ(spread.resizes, plain.resizes);
}

TEST(SharedReadsTest, ReadPhasesAreSpreadEvenlyOverAStep) {
  constexpr Duration kStep = 5min;
  std::vector<int> perMinute(5, 0);
  for (int i = 0; i < 200; ++i) {
    const std::string ns = "team-" + std::to_string(i);
    const Duration phase = usageReadPhase(ns, kStep);
    ASSERT_GE(phase, Duration::zero()) << ns;
    ASSERT_LT(phase, kStep) << ns;
    EXPECT_EQ(phase, usageReadPhase(ns, kStep)) << ns;  // a pure function of the name
    EXPECT_EQ(phase % 1s, Duration::zero()) << ns;
    ++perMinute[static_cast<std::size_t>(phase / 1min)];
  }
  // About 40 namespaces cross into a new step in each minute of it, not 200 in one.
  for (int minute = 0; minute < 5; ++minute) {
    EXPECT_GE(perMinute[minute], 25) << minute;
    EXPECT_LE(perMinute[minute], 55) << minute;
  }
  EXPECT_EQ(usageReadPhase("team-0", 500ms), Duration::zero());
}

}  // namespace
}  // namespace attune::controller::testing
