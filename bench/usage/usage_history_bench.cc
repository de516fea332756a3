// Adding a first read to a UsageHistory (usage/usage_history.h): what a controller's first pass
// does with a day of one namespace's usage at a 1-minute step. Fifty Deployments of ten pods, one
// container each: 500 containers, 1,441 points a metric. The baseline, measured in the same run,
// is the statistics' own work: as many samples as add() makes (one a minute a container), fed
// straight to a ContainerStats each.
// Prints both and the ratio, i.e. what add() costs above the statistics it feeds.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/clock.h"
#include "stats/config.h"
#include "stats/container_stats.h"
#include "usage/usage_history.h"

namespace {

using namespace attune;
using std::chrono::hours;
using std::chrono::minutes;

constexpr int kWorkloads = 50;
constexpr int kPods = 10;
const Time kEnd = Time(std::chrono::seconds(1'790'006'400));

stats::StatsConfig config() {
  stats::StatsConfig c;
  c.cpu.history = c.memory.history = stats::historyCovering(hours(24));
  return c;
}

std::string workloadName(int w) { return "app-" + std::to_string(w); }

usage::UsageReading reading(Time start) {
  usage::UsageReading r;
  for (int w = 0; w < kWorkloads; ++w) {
    for (int p = 0; p < kPods; ++p) {
      const metrics::ContainerId id{"team", workloadName(w) + "-pod-" + std::to_string(p), "app"};
      metrics::ContainerSeries cpu{.id = id}, memory{.id = id};
      int i = 0;
      for (Time t = start; t <= kEnd; t += minutes(1), ++i) {
        cpu.points.push_back({t, 0.2 + 0.01 * ((i * 7 + p) % 13)});
        memory.points.push_back({t, 2e8 + 1e6 * ((i * 3 + w) % 17)});
      }
      r.cpu.push_back(std::move(cpu));
      r.memory.push_back(std::move(memory));
    }
  }
  return r;
}

std::optional<api::WorkloadRef> workloadOf(const metrics::ContainerId& id) {
  const auto dash = id.pod.find("-pod-");
  return api::WorkloadRef{id.ns, "Deployment", id.pod.substr(0, dash)};
}

double seconds(const Time& from, const Time& to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

int main() {
  const usage::UsageReading day = reading(kEnd - hours(24));
  SystemClock wall;
  constexpr int kRounds = 5;
  double added = 0;
  double statsOnly = 0;
  std::size_t samples = 0;
  for (int round = 0; round < kRounds + 1; ++round) {  // the first round warms up
    usage::UsageHistory history(config(), api::PodAggregation::kMax, hours(24), minutes(1), {});
    const usage::ReadRange range = *history.nextRead(kEnd);
    const Time start = wall.now();
    history.add(day, range, workloadOf);
    const Time mid = wall.now();
    // The same samples, straight into statistics of their own.
    std::vector<stats::ContainerStats> direct;
    direct.reserve(history.containers().size());
    std::size_t fed = 0;
    const Time directStart = wall.now();
    for (const auto& [key, usage] : history.containers()) {
      (void)key;
      stats::ContainerStats& s = direct.emplace_back(config());
      const auto& source = usage.stats();
      // One sample a minute, as many as add() made (the maximum over the pods).
      int i = 0;
      for (Time t = range.samples.start; t <= kEnd; t += minutes(1), ++i) {
        (void)s.add({t, 0.32, std::nullopt, 2.16e8 + 1e6 * (i % 17)});
        ++fed;
      }
      if (source.sampleCount() == 0) std::exit(1);
    }
    const Time end = wall.now();
    if (round == 0) continue;
    added += seconds(start, mid);
    statsOnly += seconds(directStart, end);
    samples = fed;
  }
  added /= kRounds;
  statsOnly /= kRounds;
  std::printf("%d containers, %zu samples each after aggregation (%d pods a container)\n",
              kWorkloads, samples / kWorkloads, kPods);
  std::printf("baseline: the samples fed straight to ContainerStats  %8.2f ms\n", statsOnly * 1e3);
  std::printf(
      "UsageHistory::add of the reading                       %8.2f ms   %.2fx the baseline\n",
      added * 1e3, added / statsOnly);
  return 0;
}
