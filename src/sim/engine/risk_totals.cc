#include "sim/engine/risk_totals.h"

#include <algorithm>

namespace attune::sim {

std::optional<RiskSample> sampleOf(const PodRuntime& pod, const ContainerRuntime& c, Time now) {
  if (c.sidecar || c.activeSecondsLastTick <= 0) return std::nullopt;
  // A pod that ended at `now` (completed, failed, evicted) ran its last tick; an older terminal
  // pod keeps the figures of the last tick it ran.
  const bool endedNow = pod.terminal() && c.terminated && c.terminated->finishedAt == now;
  if (pod.phase != "Running" && !endedNow) return std::nullopt;
  const bool killedNow = c.lastOomKillAt == now;
  return RiskSample{.seconds = c.activeSecondsLastTick,
                    .cpuRequestCores = c.cpuRequestCores,
                    .cpuDemandCores = c.cpuDemandCores,
                    .cpuUsageCores = c.cpuUsageCores,
                    .memoryRequestBytes = static_cast<double>(c.memoryRequest.value()),
                    .memoryLimitBytes = static_cast<double>(c.memoryLimit.value()),
                    .memoryWorkingSetBytes = static_cast<double>(
                        (killedNow ? c.memoryAtLastOomKill : c.memoryWorkingSet).value())};
}

void RiskTotals::add(const RiskSample& s) {
  ++samples;
  if (s.cpuUsageCores > s.cpuRequestCores) {
    ++cpuAboveRequestSamples;
    cpuAboveRequestCoreSeconds += (s.cpuUsageCores - s.cpuRequestCores) * s.seconds;
  }
  cpuShortCoreSeconds += std::max(0.0, s.cpuDemandCores - s.cpuUsageCores) * s.seconds;
  if (s.memoryWorkingSetBytes > s.memoryRequestBytes) ++memoryAboveRequestSamples;
  if (s.memoryLimitBytes > 0 && s.memoryWorkingSetBytes >= s.memoryLimitBytes) {
    ++memoryAtLimitSamples;
  }
}

void RiskTotals::addPending(std::int64_t pods, double seconds) {
  pendingPodSeconds += static_cast<double>(pods) * seconds;
  pendingPodsMax = std::max(pendingPodsMax, pods);
}

double RiskTotals::sharePct(std::int64_t n) const {
  return samples == 0 ? 0.0 : 100.0 * static_cast<double>(n) / static_cast<double>(samples);
}

}  // namespace attune::sim
