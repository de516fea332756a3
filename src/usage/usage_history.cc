#include "usage/usage_history.h"

#include <cmath>
#include <utility>

#include "usage/pod_aggregation.h"

namespace attune::usage {
namespace {

// One pod's view of a container at one timestamp.
struct PodPoint {
  std::optional<double> cpu;
  std::optional<double> psi;
  std::optional<double> memory;
};

// (workload, container) → pod → time → point
using Grouped = std::map<UsageHistory::Key, std::map<std::string, std::map<Time, PodPoint>>>;

// Samples of each pod: the timestamps with both CPU and memory.
std::vector<std::vector<stats::Sample>> podSamples(
    const std::map<std::string, std::map<Time, PodPoint>>& pods) {
  std::vector<std::vector<stats::Sample>> out;
  for (const auto& [pod, points] : pods) {
    std::vector<stats::Sample> samples;
    for (const auto& [t, p] : points) {
      if (p.cpu && p.memory) samples.push_back({t, *p.cpu, p.psi, *p.memory});
    }
    out.push_back(std::move(samples));
  }
  return out;
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
  Grouped grouped;
  const auto group = [&](const std::vector<metrics::ContainerSeries>& all,
                         std::optional<double> PodPoint::*field) {
    for (const auto& series : all) {
      auto workload = workloadOf(series.id);
      if (!workload) continue;
      auto& points = grouped[{std::move(*workload), series.id.container}][series.id.pod];
      for (const auto& p : series.points) points[p.time].*field = p.value;
    }
  };
  group(reading.cpu, &PodPoint::cpu);
  group(reading.psi, &PodPoint::psi);
  group(reading.memory, &PodPoint::memory);
  for (const auto& series : reading.memory) {
    if (!workloadOf(series.id)) continue;
    for (const auto& p : series.points) {
      if (!std::isfinite(p.value)) continue;
      auto [it, added] = latestMemory_.try_emplace(series.id, PodSample{p.time, p.value});
      if (!added && it->second.time <= p.time) it->second = PodSample{p.time, p.value};
    }
  }
  std::erase_if(latestMemory_,
                [&](const auto& entry) { return entry.second.time < range.samples.end - window_; });

  for (const auto& [key, pods] : grouped) {
    ContainerUsage& usage = at(key);
    for (const stats::Sample& s : aggregateSamples(podSamples(pods), aggregation_)) {
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
  return refresh([&](const ReadRange& range) { return readUsage(source, scope, range); }, now,
                 workloadOf);
}

Result<void> UsageHistory::refresh(const Reader& read, Time now, const WorkloadOf& workloadOf) {
  const std::optional<ReadRange> range = nextRefresh(now);
  if (!range) return {};
  auto reading = read(*range);
  if (!reading) return std::unexpected(reading.error());
  add(*reading, *range, workloadOf);
  return {};
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
