#include "sim/workload/synthetic_models.h"

#include <chrono>
#include <cmath>
#include <numbers>

#include "sim/workload/noise.h"

namespace attune::sim {
Usage SteadyModel::usage(Time, Duration) {
  return {jitter(random_, p_.cpuCores, p_.noise),
          toBytes(jitter(random_, p_.memoryBytes, p_.noise))};
}

Usage DiurnalModel::usage(Time now, Duration) {
  const double wave = dailyWave(now, p_.peakHour);
  return {jitter(random_, p_.cpuCores * (1 + p_.amplitude * wave), p_.noise),
          toBytes(jitter(random_, p_.memoryBytes * (1 + p_.memoryAmplitude * wave), p_.noise))};
}

Usage BurstyModel::usage(Time, Duration) {
  const bool spike = random_.chance(p_.spikeProbability);
  const double cpu = p_.cpuCores * (spike ? p_.spikeFactor : 1.0);
  const double memory = p_.memoryBytes * (spike ? p_.spikeMemoryFactor : 1.0);
  return {jitter(random_, cpu, p_.noise), toBytes(jitter(random_, memory, p_.noise))};
}

Usage MemoryLeakModel::usage(Time, Duration sinceStart) {
  const double leaked = p_.leakBytesPerHour * toSeconds(sinceStart) / 3600.0;
  return {jitter(random_, p_.cpuCores, p_.noise), toBytes(p_.memoryBytes + leaked)};
}

Usage JvmModel::usage(Time, Duration sinceStart) {
  // Whole nanoseconds, so GC boundaries fall exactly on multiples of the period.
  const Duration period = fromSeconds(p_.gcPeriodSeconds);
  const Duration intoCycle = sinceStart % period;
  const bool collecting = sinceStart >= period && intoCycle < fromSeconds(p_.gcDurationSeconds);
  const double memory =
      p_.floorBytes + (p_.heapBytes - p_.floorBytes) * (toSeconds(intoCycle) / toSeconds(period));
  const double cpu = p_.cpuCores + (collecting ? p_.gcCpuCores : 0.0);
  return {jitter(random_, cpu, p_.noise), toBytes(memory)};
}

Usage BatchModel::usage(Time now, Duration sinceStart) {
  if (finished(now, sinceStart)) return {};
  return {jitter(random_, p_.cpuCores, p_.noise),
          toBytes(jitter(random_, p_.memoryBytes, p_.noise))};
}

bool BatchModel::finished(Time, Duration sinceStart) const {
  return sinceStart >= fromSeconds(p_.durationSeconds);
}

}  // namespace attune::sim
