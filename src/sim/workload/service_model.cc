#include "sim/workload/service_model.h"

#include "sim/workload/noise.h"

namespace attune::sim {

double serviceRate(const ServiceParams& p, const std::vector<RateChange>& changes, Time start,
                   Time now) {
  double rate = p.requestsPerSecond;
  if (p.amplitude > 0) rate *= 1 + p.amplitude * dailyWave(now, p.peakHour);
  const Duration since = now - start;
  for (const RateChange& c : changes) {
    if (since >= c.from && since < c.to) rate *= c.factor;
  }
  return std::max(0.0, rate);
}

Usage ServiceModel::usage(Time now, Duration) {
  double cpu = p_.cpuCores;
  const auto& ready = endpoints_->readyPods;
  if (ready.contains(pod_)) {
    cpu += p_.cpuPerRequest * serviceRate(p_, changes_, start_, now) /
           static_cast<double>(ready.size());
  }
  return {jitter(random_, cpu, p_.noise), toBytes(jitter(random_, p_.memoryBytes, p_.noise))};
}

}  // namespace attune::sim
