// The `service` usage model: a workload serving a request rate that its ready replicas share,
// so that scaling the workload changes each pod's usage. The rate is the workload's (each
// service container of the workload states it); each container costs a base CPU plus CPU per
// request of its pod's share.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/time.h"
#include "sim/random.h"
#include "sim/workload/usage_model.h"

namespace attune::sim {

// From `from` to `to` after the start of the run, the rate is multiplied by `factor` (an
// upstream outage: factor 0.02 over 20 minutes).
struct RateChange {
  Duration from{};
  Duration to{};
  double factor = 1;
  bool operator==(const RateChange&) const = default;
};

struct ServiceParams {
  double requestsPerSecond = 0;  // the workload's mean rate
  double cpuPerRequest = 0;      // CPU-seconds per request
  double cpuCores = 0;           // base CPU of a pod, serving or not
  double memoryBytes = 0;        // working set, with noise
  double amplitude = 0;          // daily swing of the rate, as diurnal (0: flat)
  double peakHour = 14;          // UTC hour of the rate's peak
  double noise = 0.05;           // on CPU and memory
};

// The workload's rate at `now` (requests/s) for a run that started at `start`: the mean, times
// the daily wave, times the factor of every change in effect. Pure; no noise.
double serviceRate(const ServiceParams& p, const std::vector<RateChange>& changes, Time start,
                   Time now);

// Which pods of one workload are ready to take traffic, kept current by the engine before each
// kubelet tick (from the pods' Ready conditions).
struct ServiceEndpoints {
  std::set<std::string, std::less<>> readyPods;  // pod names
};

// CPU = cpuCores + cpuPerRequest × rate / ready pods while the pod is among the ready ones
// (else cpuCores alone: an unready pod gets no traffic), memory = memoryBytes; both with noise.
class ServiceModel final : public UsageModel {
 public:
  ServiceModel(const ServiceParams& p, std::vector<RateChange> changes, Time start,
               std::shared_ptr<const ServiceEndpoints> endpoints, std::string pod, Random random)
      : p_(p),
        changes_(std::move(changes)),
        start_(start),
        endpoints_(std::move(endpoints)),
        pod_(std::move(pod)),
        random_(random) {}
  Usage usage(Time now, Duration sinceStart) override;
  bool finished(Time, Duration) const override { return false; }

 private:
  ServiceParams p_;
  std::vector<RateChange> changes_;
  Time start_;
  std::shared_ptr<const ServiceEndpoints> endpoints_;
  std::string pod_;
  Random random_;
};

}  // namespace attune::sim
