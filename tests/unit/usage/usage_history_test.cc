// UsageHistory: the ranges of incremental reads, aggregation across pods, OOM kills read twice
// counted once, the strategies' per-container states, and the samples made of untidy readings
// (points out of order, repeated timestamps, several series of one container).
#include "usage/usage_history.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <tuple>

#include "recommend/strategy.h"
#include "usage/pod_aggregation.h"

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
  h.add(UsageReading{}, *first, web);
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

// Records the samples it is fed.
class RecordingState final : public recommend::ContainerState {
 public:
  void add(const stats::Sample& s) override { samples.push_back(s); }
  std::vector<stats::Sample> samples;
};

class RecordingStrategy final : public recommend::Strategy {
 public:
  std::string_view name() const override { return "recording"; }
  recommend::ContainerStatePtr newContainerState() const override {
    return std::make_unique<RecordingState>();
  }
  recommend::Recommendation recommend(const recommend::StrategyInput&) const override { return {}; }
};

// A sample with its values as bits, so that NaN compares equal to the same NaN.
using SampleTuple =
    std::tuple<std::int64_t, std::uint64_t, std::optional<std::uint64_t>, std::uint64_t>;

std::vector<SampleTuple> tuples(const std::vector<stats::Sample>& samples) {
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  std::vector<SampleTuple> out;
  for (const stats::Sample& s : samples) {
    std::optional<std::uint64_t> psi;
    if (s.psiCpuWaitingRate) psi = bits(*s.psiCpuWaitingRate);
    out.emplace_back(
        std::chrono::duration_cast<std::chrono::seconds>(s.time.time_since_epoch()).count(),
        bits(s.cpuCores), psi, bits(s.memoryBytes));
  }
  return out;
}

// What a container's samples are, worked out the plain way: each pod's points in a map by
// timestamp (a later point of the same timestamp replaces an earlier one), the timestamps with
// both CPU and memory, then every pod's sample of a timestamp combined in pod order.
std::vector<SampleTuple> expectedSamples(const UsageReading& reading, const std::string& container,
                                         api::PodAggregation how) {
  struct Point {
    std::optional<double> cpu, psi, memory;
  };
  std::map<std::string, std::map<Time, Point>> pods;
  const auto take = [&](const std::vector<ContainerSeries>& all, std::optional<double> Point::*f) {
    for (const ContainerSeries& s : all) {
      if (s.id.ns != "shop" || s.id.container != container) continue;
      for (const metrics::Point& p : s.points) pods[s.id.pod][p.time].*f = p.value;
    }
  };
  take(reading.cpu, &Point::cpu);
  take(reading.psi, &Point::psi);
  take(reading.memory, &Point::memory);
  std::map<Time, std::vector<std::vector<stats::Sample>>> byTime;
  std::vector<stats::Sample> all;
  for (const auto& [pod, points] : pods) {
    for (const auto& [t, p] : points) {
      if (!p.cpu || !p.memory) continue;
      const stats::Sample sample{t, *p.cpu, p.psi, *p.memory};
      byTime[t].push_back({sample});
      all.push_back(sample);
    }
  }
  if (how == api::PodAggregation::kNone) return tuples(all);
  std::vector<stats::Sample> out;
  for (const auto& [t, at] : byTime) out.push_back(aggregateSamples(at, how).at(0));
  return tuples(out);
}

TEST(UsageHistoryTest, UntidyReadingsMakeTheSamplesOfTheirTimestamps) {
  std::mt19937 random(7);
  const auto chance = [&](int percent) {
    return std::uniform_int_distribution<int>(0, 99)(random) < percent;
  };
  const auto value = [&] { return std::uniform_real_distribution<double>(0, 4)(random); };
  const Time end = kT0 + hours(2);
  // One metric's series of a pod: points every 5 minutes with gaps, shuffled now and then,
  // with repeated timestamps, and now and then split into two series.
  const auto seriesOf = [&](const ContainerId& id) {
    std::vector<ContainerSeries> out(1, ContainerSeries{.id = id});
    for (Time t = kT0; t <= end; t += minutes(5)) {
      if (chance(15)) continue;
      out.back().points.push_back({t, chance(3) ? std::nan("") : value()});
      if (chance(5)) out.back().points.push_back({t, value()});
    }
    if (chance(30)) std::ranges::shuffle(out.back().points, random);
    if (chance(30)) {
      ContainerSeries second{.id = id};
      for (Time t = kT0; t <= end; t += minutes(15)) second.points.push_back({t, value()});
      out.push_back(second);
    }
    return out;
  };
  const RecordingStrategy recording;
  for (api::PodAggregation how :
       {api::PodAggregation::kNone, api::PodAggregation::kMax, api::PodAggregation::kAvg}) {
    for (int round = 0; round < 20; ++round) {
      UsageReading reading;
      for (const char* pod : {"web-c", "web-a", "web-b", "web-d"}) {
        for (const char* container : {"app", "sidecar"}) {
          const ContainerId id{"shop", pod, container};
          for (auto& s : seriesOf(id)) reading.cpu.push_back(s);
          if (chance(60)) {
            for (auto& s : seriesOf(id)) reading.psi.push_back(s);
          }
          for (auto& s : seriesOf(id)) reading.memory.push_back(s);
        }
      }
      reading.cpu.push_back(constant({"other", "x", "app"}, 1, kT0, end));
      UsageHistory h(stats::StatsConfig{}, how, hours(24), minutes(5), {&recording});
      h.add(reading, *h.nextRead(end), web);
      for (const char* container : {"app", "sidecar"}) {
        SCOPED_TRACE(std::string(api::toString(how)) + " round " + std::to_string(round) + " " +
                     container);
        const ContainerUsage* usage = h.find(kWeb, container);
        ASSERT_NE(usage, nullptr);
        const auto* state = dynamic_cast<const RecordingState*>(usage->stateOf(recording));
        ASSERT_NE(state, nullptr);
        EXPECT_EQ(tuples(state->samples), expectedSamples(reading, container, how));
        // Each pod's newest finite memory point.
        for (const char* pod : {"web-a", "web-b", "web-c", "web-d"}) {
          std::optional<std::pair<Time, double>> newest;
          for (const ContainerSeries& s : reading.memory) {
            if (s.id.pod != pod || s.id.container != container) continue;
            for (const metrics::Point& p : s.points) {
              if (std::isfinite(p.value) && (!newest || newest->first <= p.time)) {
                newest = {p.time, p.value};
              }
            }
          }
          const auto latest = h.latestMemory("shop", pod, container);
          ASSERT_EQ(latest.has_value(), newest.has_value()) << pod;
          if (latest) {
            EXPECT_EQ(latest->time, newest->first) << pod;
            EXPECT_EQ(latest->value, newest->second) << pod;
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace attune::usage
