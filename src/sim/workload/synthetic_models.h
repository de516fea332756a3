// Synthetic usage models: steady, diurnal, bursty, memory leak, JVM-like and batch. Each takes a
// parameter struct whose field names are also the parameter names of a UsageModelSpec (see
// usage_model_factory.h), and the sim::Random stream it draws its noise from.
//
// Units: CPU in cores, memory in bytes, durations in seconds. `noise` is the relative standard
// deviation of multiplicative Gaussian noise (0.05 = ±5 %), applied where a model says so.
// Constructors require valid parameters (as makeUsageModel checks them); they assert nothing.
#pragma once

#include "sim/random.h"
#include "sim/workload/usage_model.h"

namespace attune::sim {

// Constant CPU and memory, each with noise.
struct SteadyParams {
  double cpuCores = 0;
  double memoryBytes = 0;
  double noise = 0.05;
};

// A daily sinusoid: value(t) = mean * (1 + amplitude * cos(2π (hour(t) - peakHour) / 24)), with
// hour(t) the UTC hour of day (fractional), then noise. Peaks at peakHour, troughs 12 h later.
struct DiurnalParams {
  double cpuCores = 0;         // daily mean CPU
  double memoryBytes = 0;      // daily mean memory
  double amplitude = 0.5;      // CPU swing as a fraction of the mean, in [0, 1]
  double memoryAmplitude = 0;  // memory swing as a fraction of the mean, in [0, 1]
  double peakHour = 14;        // UTC hour of the peak, in [0, 24)
  double noise = 0.05;
};

// A noisy baseline; each usage() call is independently a spike with spikeProbability, when CPU
// is multiplied by spikeFactor and memory by spikeMemoryFactor.
struct BurstyParams {
  double cpuCores = 0;
  double memoryBytes = 0;
  double spikeProbability = 0.01;  // per sample, in [0, 1]
  double spikeFactor = 5;          // >= 1
  double spikeMemoryFactor = 1;    // >= 1
  double noise = 0.05;
};

// Memory grows linearly from memoryBytes by leakBytesPerHour since the container started (no
// noise on memory); a restart resets it. CPU is steady with noise.
struct MemoryLeakParams {
  double cpuCores = 0;
  double memoryBytes = 0;
  double leakBytesPerHour = 0;
  double noise = 0.05;
};

// A JVM with a fixed heap: memory climbs linearly from floorBytes to heapBytes over each
// gcPeriodSeconds of the run, then a GC drops it back to floorBytes (no noise on memory). For
// gcDurationSeconds after each GC (at k * gcPeriodSeconds, k >= 1) CPU gains gcCpuCores.
struct JvmParams {
  double cpuCores = 0;
  double heapBytes = 0;          // > floorBytes
  double floorBytes = 0;         // live set right after a GC
  double gcPeriodSeconds = 300;  // > 0
  double gcDurationSeconds = 5;  // in [0, gcPeriodSeconds)
  double gcCpuCores = 1;         // extra CPU while collecting
  double noise = 0.05;           // on CPU
};

// A run-to-completion task: uses cpuCores and memoryBytes (with noise) for durationSeconds after
// it starts, then is finished and uses nothing. A restart starts the work over.
struct BatchParams {
  double cpuCores = 0;
  double memoryBytes = 0;
  double durationSeconds = 0;  // > 0
  double noise = 0.05;
};

// The parts every model shares: its stream and the default "never finishes".
class SyntheticModel : public UsageModel {
 public:
  explicit SyntheticModel(Random random) : random_(random) {}
  bool finished(Time, Duration) const override { return false; }

 protected:
  Random random_;
};

class SteadyModel final : public SyntheticModel {
 public:
  SteadyModel(const SteadyParams& p, Random random) : SyntheticModel(random), p_(p) {}
  Usage usage(Time now, Duration sinceStart) override;

 private:
  SteadyParams p_;
};

class DiurnalModel final : public SyntheticModel {
 public:
  DiurnalModel(const DiurnalParams& p, Random random) : SyntheticModel(random), p_(p) {}
  Usage usage(Time now, Duration sinceStart) override;

 private:
  DiurnalParams p_;
};

class BurstyModel final : public SyntheticModel {
 public:
  BurstyModel(const BurstyParams& p, Random random) : SyntheticModel(random), p_(p) {}
  Usage usage(Time now, Duration sinceStart) override;

 private:
  BurstyParams p_;
};

class MemoryLeakModel final : public SyntheticModel {
 public:
  MemoryLeakModel(const MemoryLeakParams& p, Random random) : SyntheticModel(random), p_(p) {}
  Usage usage(Time now, Duration sinceStart) override;

 private:
  MemoryLeakParams p_;
};

class JvmModel final : public SyntheticModel {
 public:
  JvmModel(const JvmParams& p, Random random) : SyntheticModel(random), p_(p) {}
  Usage usage(Time now, Duration sinceStart) override;

 private:
  JvmParams p_;
};

class BatchModel final : public SyntheticModel {
 public:
  BatchModel(const BatchParams& p, Random random) : SyntheticModel(random), p_(p) {}
  Usage usage(Time now, Duration sinceStart) override;
  bool finished(Time now, Duration sinceStart) const override;

 private:
  BatchParams p_;
};

}  // namespace attune::sim
