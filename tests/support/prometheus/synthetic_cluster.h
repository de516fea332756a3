// A small synthetic cluster written as OpenMetrics text (cAdvisor, kube-state-metrics and
// node-exporter series at 1-minute resolution) for `promtool tsdb create-blocks-from
// openmetrics`, with the values the tests expect back from Prometheus.
//
// Namespaces and workloads:
//   shop   Deployment web (ReplicaSet web-7d9c5): pods web-7d9c5-abcde (app),
//          web-7d9c5-fghij (app, istio-proxy); ReplicaSet legacy-5f6g7 without a Deployment
//   data   StatefulSet db: pod db-0 (postgres), OOM-killed once at oomAt; pod lonely (no owner)
//   ops    DaemonSet agent: pod agent-x2z4q
//   batch  CronJob nightly → Job nightly-28900000 → pod nightly-28900000-q8x7z;
//          Job migrate (no CronJob) → pod migrate-k2j4h (2 restarts)
//   odd    nan-pod/app (working set NaN, ±Inf or finite by minute), allnan/app (always NaN)
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/time.h"

namespace attune::testing {

struct SyntheticContainer {
  std::string ns;
  std::string pod;
  std::string container;
  double cpuCores = 0;       // constant usage rate; PSI waiting is 10% of it
  double throttleRatio = 0;  // throttled periods / periods (10 periods per second)
  double memoryBase = 0;     // working set at minute i is memoryBase + 4096 * i
  bool cadvisorCpu = true;   // false for the "odd" namespace (memory only)
};

class SyntheticCluster {
 public:
  // Samples every minute from `start` to `end` inclusive (both on whole minutes); the OOM kill
  // is 90 minutes after `start`.
  SyntheticCluster(Time start, Time end);

  Time start() const { return start_; }
  Time end() const { return end_; }
  Time oomAt() const { return oomAt_; }
  const std::vector<SyntheticContainer>& containers() const { return containers_; }
  const SyntheticContainer& container(const std::string& pod, const std::string& name) const;

  // The working set written for `c` at sample time `t`; nullopt for NaN or ±Inf.
  std::optional<double> memoryAt(const SyntheticContainer& c, Time t) const;

  // The whole data set, terminated by "# EOF".
  std::string openMetrics() const;

 private:
  // Writes the value (possibly NaN/Inf) for `c` at sample index i.
  double rawMemory(const SyntheticContainer& c, int i) const;
  int minuteIndex(Time t) const;

  Time start_;
  Time end_;
  Time oomAt_;
  std::vector<SyntheticContainer> containers_;
};

}  // namespace attune::testing
