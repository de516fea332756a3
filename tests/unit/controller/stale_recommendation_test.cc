// Stale recommendations are not applied: when a workload's newest usage sample is older than
// the freshness bound (max(15m, 3 × queryStep)), its recommendation is marked stale in the
// status and the workload is skipped with reason StaleRecommendation until fresh data arrives.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

// Forwards to a real source, but answers usage queries with nothing after `cutoff`: a scrape
// that stopped while the backend itself still answers.
class FrozenMetricsSource final : public metrics::MetricsSource {
 public:
  explicit FrozenMetricsSource(metrics::MetricsSource& real) : real_(real) {}
  void freezeAt(Time cutoff) { cutoff_ = cutoff; }
  void thaw() { cutoff_.reset(); }

  Result<std::vector<metrics::ContainerSeries>> cpuUsage(const metrics::Scope& s,
                                                         const metrics::Range& r) override {
    return frozen(real_.cpuUsage(s, r));
  }
  Result<std::vector<metrics::ContainerSeries>> cpuPressureWaiting(
      const metrics::Scope& s, const metrics::Range& r) override {
    return frozen(real_.cpuPressureWaiting(s, r));
  }
  Result<std::vector<metrics::ContainerSeries>> memoryWorkingSet(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return frozen(real_.memoryWorkingSet(s, r));
  }
  Result<std::vector<metrics::ContainerSeries>> cpuThrottleRatio(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return real_.cpuThrottleRatio(s, r);
  }
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope& s,
                                                 const metrics::Range& r) override {
    return real_.oomKills(s, r);
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
  Result<std::vector<metrics::ContainerSeries>> frozen(
      Result<std::vector<metrics::ContainerSeries>> answer) const {
    if (!answer || !cutoff_) return answer;
    for (metrics::ContainerSeries& series : *answer) {
      std::erase_if(series.points, [&](const metrics::Point& p) { return p.time > *cutoff_; });
    }
    return answer;
  }

  metrics::MetricsSource& real_;
  std::optional<Time> cutoff_;
};

TEST(StaleRecommendationTest, AStaleRecommendationIsSkippedUntilFreshDataArrives) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web"}),
      policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"})));
  ASSERT_TRUE(h.usable());
  FrozenMetricsSource source(h.sim().metrics());
  source.freezeAt(h.sim().scenario().start + 20min);
  h.restartController(&source);
  h.runMinutes(40);
  api::AttunePolicy p = h.policy("apps", "web");
  ASSERT_EQ(p.status.recommendations.size(), 1u);
  const api::WorkloadRecommendation& rec = p.status.recommendations[0];
  ASSERT_TRUE(rec.lastDataTime);
  EXPECT_LE(*rec.lastDataTime, h.sim().scenario().start + 20min);
  EXPECT_EQ(rec.stale, true) << "no sample for 20 minutes";
  ASSERT_TRUE(rec.containers.at(0).recommended.cpuRequest) << "the cached recommendation stays";

  // Auto now: the stale recommendation is not applied.
  p.spec.updateStrategy.type = api::UpdateMode::kAuto;
  ASSERT_TRUE(h.sim().api().updateAttunePolicy(p).has_value());
  h.runMinutes(10);
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  EXPECT_EQ(specResources(h.pod("apps", "web"), "app").cpuRequest, 500_m);
  const api::AttunePolicy skipped = h.policy("apps", "web");
  const auto entries = history(skipped, api::ResizeResult::kSkipped, "StaleRecommendation");
  ASSERT_EQ(entries.size(), 1u) << "recorded once while it repeats";
  const auto events = h.events("ResizeSkipped");
  ASSERT_FALSE(events.empty());
  EXPECT_NE(events[0].message.find("older than the freshness bound of 15m"), std::string::npos)
      << events[0].message;

  // Samples arrive again: the recommendation is fresh and applied.
  source.thaw();
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 10min));
  EXPECT_TRUE(near(specResources(h.pod("apps", "web"), "app").cpuRequest, 300_m));
  EXPECT_EQ(h.policy("apps", "web").status.recommendations.at(0).stale, false);
}

}  // namespace
}  // namespace attune::controller::testing
