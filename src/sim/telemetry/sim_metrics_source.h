// SimMetricsSource: the simulator as a MetricsSource. Range queries read the Recorder's history
// with the semantics of the PromQL the Prometheus backend sends (metrics/prometheus/promql.h);
// instant queries read the ClusterState as kube-state-metrics would report it now. Series,
// windows and deviations from Prometheus are in docs/simulator-metrics.md.
//
// Range points are at start, start + step, ... up to end inclusive. A container's series is
// identified by (namespace, pod, container); histories of several pods of the same name (a
// StatefulSet pod recreated with a new uid) are combined as PromQL's `sum by` / `max by` would.
// Missing data is absent: a step without enough samples has no point, a container without
// points has no series. Results are sorted by container (or node) name, points by time. The
// scope's excluded containers are left out before their samples are read; podOwners is per pod
// and lists every pod in the scope's namespaces.
//
// Holds references to the recorder and the state, which must outlive it; reads them on every
// call (never caches), so it sees what was recorded since. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "metrics/metrics_source.h"
#include "sim/cluster/cluster_state.h"
#include "sim/telemetry/recorder.h"

namespace attune::sim {

struct SimMetricsOptions {
  // cpuUsage and cpuPressureWaiting: rate over [t - max(step, minRateWindow), t].
  Duration minRateWindow = std::chrono::minutes(5);
  // cpuThrottleRatio: over [t - max(step, throttleWindow), t] (the safety spec's [5m]).
  Duration throttleWindow = std::chrono::minutes(5);
  // memoryWorkingSet and nodeLoad: the last sample in (t - lookback, t] (Prometheus' default
  // lookback delta).
  Duration lookback = std::chrono::minutes(5);
};

class SimMetricsSource final : public metrics::MetricsSource {
 public:
  SimMetricsSource(const Recorder& recorder, const ClusterState& state,
                   SimMetricsOptions options = {});

  // Per step t: the counter's increase between the first and the last sample in the window
  // [t - W, t], W = max(step, minRateWindow), divided by the seconds between those two samples;
  // at least two samples, else no point. No extrapolation to the window's edges (Prometheus
  // extrapolates; when samples fall on the edges, as with aligned ticks, the two agree).
  Result<std::vector<metrics::ContainerSeries>> cpuUsage(const metrics::Scope& scope,
                                                         const metrics::Range& range) override;
  // Same as cpuUsage over the PSI waiting-seconds counter.
  Result<std::vector<metrics::ContainerSeries>> cpuPressureWaiting(
      const metrics::Scope& scope, const metrics::Range& range) override;
  // Per step t: the last working-set sample in (t - lookback, t]; the highest of several pods
  // of the same name.
  Result<std::vector<metrics::ContainerSeries>> memoryWorkingSet(
      const metrics::Scope& scope, const metrics::Range& range) override;
  // Per step t: rate(throttled periods) / rate(periods) over [t - max(step, throttleWindow), t];
  // no point when no period elapsed.
  Result<std::vector<metrics::ContainerSeries>> cpuThrottleRatio(
      const metrics::Scope& scope, const metrics::Range& range) override;
  // Every recorded kill with start <= time <= end, at its exact time (the Prometheus backend
  // can only place a kill at the end of its step), with the working set the kubelet saw.
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope& scope,
                                                 const metrics::Range& range) override;
  // The following read the state as it is now; `at` is not used. Regular containers only
  // (kube-state-metrics reports sidecars and init containers in separate families).
  // status.containerStatuses[].restartCount of every pod in scope.
  Result<std::vector<metrics::RestartCount>> restartCounts(const metrics::Scope& scope,
                                                           Time at) override;
  // spec.containers[].resources; a container without any cpu or memory request or limit is
  // absent. CPU is rounded up to whole millicores.
  Result<std::vector<metrics::ContainerResourceValues>> resources(const metrics::Scope& scope,
                                                                  Time at) override;
  // Pod → ReplicaSet → Deployment, Job → CronJob, other owners as they are, kind "Pod" for a
  // pod without owner; the controller owner reference wins over the others.
  Result<std::vector<metrics::PodOwner>> podOwners(const metrics::Scope& scope, Time at) override;
  // Per step t: the last load1 sample in (t - lookback, t].
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const metrics::Range& range) override;
  // status.capacity, each of cpu and memory falling back to status.allocatable when absent;
  // nodes without both are left out.
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time at) override;

 private:
  // Per step, the rate of the counter whose per-sample increase is `counter` (cpuUsage and
  // cpuPressureWaiting).
  Result<std::vector<metrics::ContainerSeries>> counterRate(const metrics::Scope& scope,
                                                            const metrics::Range& range,
                                                            float ContainerSample::*counter);
  // The recorded pods (indices into recorder.pods()) of the scope's namespaces, in index order;
  // valid until the next call.
  const std::vector<std::uint32_t>& podsIn(const metrics::Scope& scope);

  const Recorder& recorder_;
  const ClusterState& state_;
  SimMetricsOptions options_;
  std::size_t indexedPods_ = 0;
  std::map<std::string, std::vector<std::uint32_t>, std::less<>> podsByNamespace_;
  std::vector<std::uint32_t> allPods_;
  std::vector<std::uint32_t> scopePods_;
  const std::vector<std::uint32_t> noPods_;
};

}  // namespace attune::sim
