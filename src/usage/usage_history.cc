#include "usage/usage_history.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <span>
#include <utility>

#include "usage/pod_aggregation.h"

namespace attune::usage {
namespace {

using Points = std::vector<metrics::Point>;
using PointSpan = std::span<const metrics::Point>;

// The series of one pod's container, per metric (usually one each).
struct PodSeries {
  std::vector<PointSpan> cpu, psi, memory;
};

// (workload, container) → pod → its series
using Grouped = std::map<UsageHistory::Key, std::map<std::string, PodSeries>>;

bool increasing(PointSpan points) {
  return std::ranges::adjacent_find(points, [](const metrics::Point& a, const metrics::Point& b) {
           return a.time >= b.time;
         }) == points.end();
}

// One value per timestamp, in time order: where several points (of one series or of several)
// share a timestamp, the last one given counts. A single series in time order (what a source
// returns) is used as it is; anything else is copied into `scratch`.
PointSpan byTime(const std::vector<PointSpan>& series, Points& scratch) {
  if (series.empty()) return {};
  if (series.size() == 1 && increasing(series.front())) return series.front();
  scratch.clear();
  for (PointSpan s : series) scratch.insert(scratch.end(), s.begin(), s.end());
  std::ranges::stable_sort(scratch, {}, &metrics::Point::time);
  // Keep the last point of each run of equal timestamps.
  auto out = scratch.begin();
  for (auto it = scratch.begin(); it != scratch.end(); ++it) {
    if (std::next(it) != scratch.end() && std::next(it)->time == it->time) continue;
    *out++ = *it;
  }
  scratch.erase(out, scratch.end());
  return scratch;
}

// A pod's samples: the timestamps with both CPU and memory, with PSI where it has a point too.
std::vector<stats::Sample> podSamples(const PodSeries& pod) {
  Points cpuScratch, psiScratch, memoryScratch;
  const PointSpan cpu = byTime(pod.cpu, cpuScratch);
  const PointSpan psi = byTime(pod.psi, psiScratch);
  const PointSpan memory = byTime(pod.memory, memoryScratch);
  std::vector<stats::Sample> samples;
  samples.reserve(std::min(cpu.size(), memory.size()));
  auto m = memory.begin();
  auto p = psi.begin();
  for (const metrics::Point& c : cpu) {
    while (m != memory.end() && m->time < c.time) ++m;
    if (m == memory.end()) break;
    if (m->time != c.time) continue;
    while (p != psi.end() && p->time < c.time) ++p;
    std::optional<double> rate;
    if (p != psi.end() && p->time == c.time) rate = p->value;
    samples.push_back({c.time, c.value, rate, m->value});
  }
  return samples;
}

}  // namespace

const recommend::ContainerState* ContainerUsage::stateOf(
    const recommend::Strategy& strategy) const {
  for (const auto& [owner, state] : states_) {
    if (owner == &strategy) return state.get();
  }
  return nullptr;
}

recommend::Recommendation recommendFor(const recommend::Strategy& strategy,
                                       const ContainerUsage& usage,
                                       const ContainerContext& context) {
  return strategy.recommend({.stats = usage.stats(),
                             .now = context.now,
                             .current = context.current,
                             .policy = context.policy,
                             .containersInPod = context.containersInPod,
                             .state = usage.stateOf(strategy)});
}

UsageHistory::UsageHistory(stats::StatsConfig config, api::PodAggregation aggregation,
                           Duration window, Duration step,
                           std::vector<const recommend::Strategy*> strategies)
    : config_(std::move(config)),
      aggregation_(aggregation),
      window_(window),
      step_(step),
      strategies_(std::move(strategies)) {}

std::optional<ReadRange> UsageHistory::nextRead(Time end) const {
  const Time start = readEnd_ ? *readEnd_ + step_ : end - window_;
  if (start > end) return std::nullopt;
  return readRange(start, end, step_);
}

ContainerUsage& UsageHistory::at(Key key) {
  auto [it, created] = containers_.try_emplace(std::move(key), config_);
  if (created) {
    for (const recommend::Strategy* strategy : strategies_) {
      if (auto state = strategy->newContainerState()) {
        it->second.states_.emplace_back(strategy, std::move(state));
      }
    }
  }
  return it->second;
}

void UsageHistory::add(const UsageReading& reading, const ReadRange& range,
                       const WorkloadOf& workloadOf) {
  add(viewOf(reading), range, workloadOf);
}

void UsageHistory::add(const UsageView& reading, const ReadRange& range,
                       const WorkloadOf& workloadOf) {
  Grouped grouped;
  // The pod's series of `series`' container, when workloadOf maps it (asked once per series).
  const auto podOf = [&](const SeriesView& series) -> PodSeries* {
    auto workload = workloadOf(*series.id);
    if (!workload) return nullptr;
    return &grouped[{std::move(*workload), series.id->container}][series.id->pod];
  };
  for (const SeriesView& series : reading.cpu) {
    if (PodSeries* pod = podOf(series)) pod->cpu.push_back(series.points);
  }
  for (const SeriesView& series : reading.psi) {
    if (PodSeries* pod = podOf(series)) pod->psi.push_back(series.points);
  }
  for (const SeriesView& series : reading.memory) {
    PodSeries* pod = podOf(series);
    if (pod == nullptr) continue;
    pod->memory.push_back(series.points);
    // The series' newest finite point (the last of equal timestamps), then the one kept.
    const metrics::Point* newest = nullptr;
    for (const auto& p : series.points) {
      if (std::isfinite(p.value) && (newest == nullptr || newest->time <= p.time)) newest = &p;
    }
    if (newest == nullptr) continue;
    const PodSample sample{newest->time, newest->value};
    auto [it, added] = latestMemory_.try_emplace(*series.id, sample);
    if (!added && it->second.time <= sample.time) it->second = sample;
  }
  std::erase_if(latestMemory_,
                [&](const auto& entry) { return entry.second.time < range.samples.end - window_; });

  for (const auto& [key, pods] : grouped) {
    ContainerUsage& usage = at(key);
    std::vector<std::vector<stats::Sample>> samples;
    samples.reserve(pods.size());
    for (const auto& [pod, series] : pods) samples.push_back(podSamples(series));
    for (const stats::Sample& s : aggregateSamples(samples, aggregation_)) {
      usage.stats_.add(s);
      for (auto& [strategy, state] : usage.states_) state->add(s);
    }
  }
  for (const auto& kill : reading.oomKills) {
    // A kill at or before the end of the previous read was read by it.
    if (readEnd_ && kill.time <= *readEnd_) continue;
    auto workload = workloadOf(kill.id);
    if (!workload) continue;
    at({std::move(*workload), kill.id.container}).stats_.addOomKill(kill.time, kill.memoryAtKill);
  }
  readEnd_ = range.samples.end;
}

Result<void> UsageHistory::refresh(metrics::MetricsSource& source, const metrics::Scope& scope,
                                   Time now, const WorkloadOf& workloadOf) {
  return refresh(
      [&](const ReadRange& range, const ViewUser& use) -> Result<void> {
        auto reading = readUsage(source, scope, range);
        if (!reading) return std::unexpected(reading.error());
        use(viewOf(*reading));
        return {};
      },
      now, workloadOf);
}

Result<void> UsageHistory::refresh(const Reader& read, Time now, const WorkloadOf& workloadOf) {
  const std::optional<ReadRange> range = nextRefresh(now);
  if (!range) return {};
  return read(*range, [&](const UsageView& reading) { add(reading, *range, workloadOf); });
}

std::optional<ReadRange> UsageHistory::nextRefresh(Time now) const {
  return nextRead(floorToStep(now, step_));
}

const ContainerUsage* UsageHistory::find(const api::WorkloadRef& workload,
                                         std::string_view container) const {
  auto it = containers_.find(Key{workload, std::string(container)});
  return it == containers_.end() ? nullptr : &it->second;
}

std::optional<UsageHistory::PodSample> UsageHistory::latestMemory(
    std::string_view ns, std::string_view pod, std::string_view container) const {
  auto it = latestMemory_.find(
      metrics::ContainerId{std::string(ns), std::string(pod), std::string(container)});
  if (it == latestMemory_.end()) return std::nullopt;
  return it->second;
}

Time floorToStep(Time t, Duration step) {
  const auto since = t.time_since_epoch();
  return Time(since - since % step);
}

}  // namespace attune::usage
