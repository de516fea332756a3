#include "usage/pod_aggregation.h"

#include <algorithm>
#include <optional>

#include "api/policy/policy_defaults.h"

namespace attune::usage {
namespace {

double effectiveCpu(const stats::Sample& s) {
  return s.cpuCores * (1 + s.psiCpuWaitingRate.value_or(0));
}

stats::Sample combine(Time t, const std::vector<stats::Sample>& at, api::PodAggregation how) {
  stats::Sample out{.time = t};
  if (how == api::PodAggregation::kMax) {
    const auto busiest = std::max_element(at.begin(), at.end(), [](const auto& a, const auto& b) {
      return effectiveCpu(a) < effectiveCpu(b);
    });
    out.cpuCores = busiest->cpuCores;
    out.psiCpuWaitingRate = busiest->psiCpuWaitingRate;
    for (const auto& s : at) out.memoryBytes = std::max(out.memoryBytes, s.memoryBytes);
    return out;
  }
  double effective = 0;
  bool anyPsi = false;
  for (const auto& s : at) {
    out.cpuCores += s.cpuCores;
    out.memoryBytes += s.memoryBytes;
    effective += effectiveCpu(s);
    anyPsi = anyPsi || s.psiCpuWaitingRate.has_value();
  }
  const double n = static_cast<double>(at.size());
  out.cpuCores /= n;
  out.memoryBytes /= n;
  // The PSI rate that makes cpuCores × (1 + rate) the mean of the pods' adjusted CPU.
  if (anyPsi && out.cpuCores > 0) out.psiCpuWaitingRate = effective / n / out.cpuCores - 1;
  return out;
}

}  // namespace

std::vector<stats::Sample> aggregateSamples(const std::vector<std::vector<stats::Sample>>& pods,
                                            api::PodAggregation aggregation) {
  std::vector<stats::Sample> out;
  if (aggregation == api::PodAggregation::kNone) {
    for (const auto& pod : pods) out.insert(out.end(), pod.begin(), pod.end());
    return out;
  }
  // Merged by timestamp: at each, the pods' samples of that time in pod order (and, within a
  // pod, in its own order), the same grouping a map from timestamp to samples would give.
  std::vector<std::size_t> next(pods.size(), 0);
  std::vector<stats::Sample> at;
  at.reserve(pods.size());
  while (true) {
    std::optional<Time> t;
    for (std::size_t i = 0; i < pods.size(); ++i) {
      if (next[i] < pods[i].size() && (!t || pods[i][next[i]].time < *t)) {
        t = pods[i][next[i]].time;
      }
    }
    if (!t) break;
    at.clear();
    for (std::size_t i = 0; i < pods.size(); ++i) {
      while (next[i] < pods[i].size() && pods[i][next[i]].time == *t) {
        at.push_back(pods[i][next[i]++]);
      }
    }
    out.push_back(combine(*t, at, aggregation));
  }
  return out;
}

Result<stats::StatsConfig> statsConfigFor(const api::AttunePolicySpec& spec, Duration history) {
  const auto quantile = [](std::optional<int> percentile, int fallback) {
    return (percentile.value_or(0) == 0 ? fallback : *percentile) / 100.0;
  };
  stats::StatsConfig config;
  config.cpu.history = config.memory.history = stats::historyCovering(history);
  config.cpu.hourOfDayQuantile = quantile(spec.cpu.percentile, api::kDefaultCpuPercentile);
  config.memory.hourOfDayQuantile = quantile(spec.memory.percentile, api::kDefaultMemoryPercentile);
  if (auto valid = config.validate(); !valid) return std::unexpected(valid.error());
  return config;
}

}  // namespace attune::usage
