// UsageHistory: the ranges of incremental reads, aggregation across pods, OOM kills read twice
// counted once, and the strategies' per-container states.
#include "usage/usage_history.h"

#include <gtest/gtest.h>

#include "recommend/strategy.h"

namespace attune::usage {
namespace {

using metrics::ContainerId;
using metrics::ContainerSeries;
using std::chrono::hours;
using std::chrono::minutes;

const Time kT0 = Time(std::chrono::seconds(1714521600));  // 2024-05-01T00:00:00Z
const api::WorkloadRef kWeb{"shop", "Deployment", "web"};

ContainerSeries constant(const ContainerId& id, double value, Time from, Time to) {
  ContainerSeries s{.id = id};
  for (Time t = from; t <= to; t += minutes(5)) s.points.push_back({t, value});
  return s;
}

std::optional<api::WorkloadRef> web(const ContainerId& id) {
  if (id.ns != "shop") return std::nullopt;
  return kWeb;
}

UsageHistory history(std::vector<const recommend::Strategy*> strategies = {}) {
  return UsageHistory(stats::StatsConfig{}, api::PodAggregation::kMax, hours(24), minutes(5),
                      std::move(strategies));
}

TEST(UsageHistoryTest, FirstReadCoversTheWindowLaterOnesWhatIsNew) {
  UsageHistory h = history();
  const Time end = kT0 + hours(24);
  auto first = h.nextRead(end);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->samples.start, kT0);
  EXPECT_EQ(first->samples.end, end);
  EXPECT_EQ(first->oomKills.start, kT0 - minutes(5));
  h.add({}, *first, web);
  EXPECT_EQ(h.readEnd(), end);
  EXPECT_FALSE(h.nextRead(end));  // nothing new
  auto next = h.nextRead(end + minutes(10));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->samples.start, end + minutes(5));
  EXPECT_EQ(next->oomKills.start, end);
  EXPECT_EQ(floorToStep(end + minutes(7), minutes(5)), end + minutes(5));
}

TEST(UsageHistoryTest, PodsOfAWorkloadAreAggregatedAndOtherNamespacesDropped) {
  UsageHistory h = history();
  const Time end = kT0 + hours(1);
  const ReadRange range = *h.nextRead(end);
  const ContainerId a{"shop", "web-a", "app"}, b{"shop", "web-b", "app"};
  const ContainerId other{"other", "x", "app"};
  UsageReading reading;
  reading.cpu = {constant(a, 0.2, kT0, end), constant(b, 0.4, kT0, end),
                 constant(other, 1, kT0, end)};
  reading.memory = {constant(a, 1e8, kT0, end), constant(b, 3e8, kT0, end),
                    constant(other, 1e9, kT0, end)};
  h.add(reading, range, web);
  ASSERT_EQ(h.containers().size(), 1u);
  const ContainerUsage* app = h.find(kWeb, "app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->stats().sampleCount(), 13u);  // one sample per timestamp: max across pods
  EXPECT_EQ(h.find(kWeb, "sidecar"), nullptr);
}

TEST(UsageHistoryTest, AnOomKillReadTwiceCountsOnce) {
  UsageHistory h = history();
  const ContainerId a{"shop", "web-a", "app"};
  const Time end = kT0 + hours(24);
  const metrics::OomKill kill{a, end, Bytes(512 << 20)};
  UsageReading reading;
  reading.oomKills = {kill};
  h.add(reading, *h.nextRead(end), web);
  // The next read starts its OOM range at the previous end and so returns the kill again (here
  // with another memory figure, to tell the copies apart): the history drops it.
  reading.oomKills = {{a, end, Bytes(900 << 20)}};
  h.add(reading, *h.nextRead(end + minutes(5)), web);
  const ContainerUsage* app = h.find(kWeb, "app");
  ASSERT_NE(app, nullptr);
  EXPECT_EQ(app->stats().maxOomMemory(end + minutes(5)), Bytes(512 << 20));
}

// Counts the samples it is fed.
class CountingState final : public recommend::ContainerState {
 public:
  void add(const stats::Sample&) override { ++samples; }
  int samples = 0;
};

class CountingStrategy final : public recommend::Strategy {
 public:
  std::string_view name() const override { return "counting"; }
  recommend::ContainerStatePtr newContainerState() const override {
    return std::make_unique<CountingState>();
  }
  recommend::Recommendation recommend(const recommend::StrategyInput& in) const override {
    recommend::Recommendation r;
    const auto* state = dynamic_cast<const CountingState*>(in.state);
    r.reason = state == nullptr ? "no state" : std::to_string(state->samples) + " samples";
    return r;
  }
};

TEST(UsageHistoryTest, EachStrategyGetsItsOwnStateFedTheSameSamples) {
  const CountingStrategy counting;
  const CountingStrategy notKept;
  UsageHistory h = history({&counting});
  const ContainerId a{"shop", "web-a", "app"};
  const Time end = kT0 + hours(1);
  UsageReading reading;
  reading.cpu = {constant(a, 0.2, kT0, end)};
  reading.memory = {constant(a, 1e8, kT0, end)};
  h.add(reading, *h.nextRead(end), web);
  const ContainerUsage& app = *h.find(kWeb, "app");
  static const api::AttunePolicySpec policy;
  const ContainerContext context{.now = end, .current = {}, .policy = policy};
  EXPECT_EQ(recommendFor(counting, app, context).reason, "13 samples");
  EXPECT_EQ(recommendFor(notKept, app, context).reason, "no state");
}

}  // namespace
}  // namespace attune::usage
