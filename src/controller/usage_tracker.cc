#include "controller/usage_tracker.h"

#include <utility>
#include <vector>

#include "recommend/pod_aggregation.h"

namespace attune::controller {
namespace {

struct PodPoint {
  std::optional<double> cpu;
  std::optional<double> psi;
  std::optional<double> memory;
};

using ContainerKey = std::pair<metrics::WorkloadRef, std::string>;
// container → pod → time → point
using Grouped = std::map<ContainerKey, std::map<std::string, std::map<Time, PodPoint>>>;

}  // namespace

UsageTracker::UsageTracker(stats::StatsConfig config, api::PodAggregation aggregation,
                           Duration window, Duration step)
    : config_(std::move(config)), aggregation_(aggregation), window_(window), step_(step) {}

Result<void> UsageTracker::refresh(metrics::MetricsSource& source, const metrics::Scope& scope,
                                   Time now, const WorkloadOf& workloadOf) {
  const Time end = floorToStep(now, step_);
  const Time start = readUntil_ ? *readUntil_ + step_ : end - window_;
  if (start > end) return {};
  const metrics::Range range{start, end, step_};
  auto cpu = source.cpuUsage(scope, range);
  if (!cpu) return std::unexpected(cpu.error());
  auto psi = source.cpuPressureWaiting(scope, range);
  if (!psi) return std::unexpected(psi.error());
  auto memory = source.memoryWorkingSet(scope, range);
  if (!memory) return std::unexpected(memory.error());
  auto ooms = source.oomKills(scope, {range.start - step_, range.end, step_});
  if (!ooms) return std::unexpected(ooms.error());

  Grouped grouped;
  const auto add = [&](const std::vector<metrics::ContainerSeries>& all,
                       std::optional<double> PodPoint::*field) {
    for (const auto& series : all) {
      auto workload = workloadOf(series.id);
      if (!workload) continue;
      auto& points = grouped[{std::move(*workload), series.id.container}][series.id.pod];
      for (const auto& p : series.points) points[p.time].*field = p.value;
    }
  };
  add(*cpu, &PodPoint::cpu);
  add(*psi, &PodPoint::psi);
  add(*memory, &PodPoint::memory);

  for (const auto& [key, pods] : grouped) {
    std::vector<std::vector<stats::Sample>> perPod;
    for (const auto& [pod, points] : pods) {
      std::vector<stats::Sample> samples;
      for (const auto& [t, p] : points) {
        if (p.cpu && p.memory) samples.push_back({t, *p.cpu, p.psi, *p.memory});
      }
      perPod.push_back(std::move(samples));
    }
    auto it = containers_.try_emplace(key, config_).first;
    for (const stats::Sample& s : recommend::aggregateSamples(perPod, aggregation_)) {
      it->second.stats.add(s);
      it->second.vpa.add(s.time, s.cpuCores, s.memoryBytes, std::nullopt);
    }
  }
  for (const auto& kill : *ooms) {
    // An OOM kill at the range's start was read by the previous refresh.
    if (readUntil_ && kill.time <= *readUntil_) continue;
    auto workload = workloadOf(kill.id);
    if (!workload) continue;
    auto it = containers_.try_emplace({std::move(*workload), kill.id.container}, config_).first;
    it->second.stats.addOomKill(kill.time, kill.memoryAtKill);
  }
  readUntil_ = end;
  return {};
}

const TrackedContainer* UsageTracker::find(const metrics::WorkloadRef& workload,
                                           std::string_view container) const {
  auto it = containers_.find(ContainerKey{workload, std::string(container)});
  return it == containers_.end() ? nullptr : &it->second;
}

Time floorToStep(Time t, Duration step) {
  const auto since = t.time_since_epoch();
  return Time(since - since % step);
}

}  // namespace attune::controller
