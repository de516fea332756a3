// A policy's usage statistics per (workload, container), kept current incrementally: the first
// refresh reads the whole history window from the MetricsSource, later ones only what is new.
// Statistics are an in-memory cache of the source's history: a restarted controller rebuilds
// them with one full read.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"
#include "metrics/metrics_source.h"
#include "recommend/vpa_histogram.h"
#include "stats/config.h"
#include "stats/container_stats.h"

namespace attune::controller {

// The statistics of one container of one workload, over all its pods.
struct TrackedContainer {
  explicit TrackedContainer(const stats::StatsConfig& config) : stats(config) {}
  stats::ContainerStats stats;
  recommend::VpaHistograms vpa;
};

// Which workload a container's samples belong to; nullopt drops them (a container the policy
// does not target, or one it excludes).
using WorkloadOf =
    std::function<std::optional<metrics::WorkloadRef>(const metrics::ContainerId& container)>;

class UsageTracker {
 public:
  // `config` must be valid; `window` > 0 is how far back the first refresh reads (the policy's
  // historyWindow; the sketches of `config` keep at least that); `step` > 0 is the query
  // resolution.
  UsageTracker(stats::StatsConfig config, api::PodAggregation aggregation, Duration window,
               Duration step);

  // Reads the samples of `scope` from the end of the previous refresh (or from `now` minus the
  // history window, the first time) up to `now` rounded down to the step, and adds them to the
  // statistics of the containers `workloadOf` maps. Samples of the pods of one workload are
  // combined per timestamp as the aggregation says. A source error leaves the tracker as it
  // was (the same range is read again next time) and is returned.
  Result<void> refresh(metrics::MetricsSource& source, const metrics::Scope& scope, Time now,
                       const WorkloadOf& workloadOf);

  // The statistics of a container of a workload, or nullptr when it never had a sample.
  const TrackedContainer* find(const metrics::WorkloadRef& workload,
                               std::string_view container) const;
  // The end of the range read so far.
  std::optional<Time> readUntil() const { return readUntil_; }
  const stats::StatsConfig& config() const { return config_; }

 private:
  stats::StatsConfig config_;
  api::PodAggregation aggregation_;
  Duration window_;
  Duration step_;
  std::optional<Time> readUntil_;
  std::map<std::pair<metrics::WorkloadRef, std::string>, TrackedContainer, std::less<>> containers_;
};

// `t` rounded down to a whole multiple of `step` (> 0) since the epoch: the grid range queries
// are evaluated on.
Time floorToStep(Time t, Duration step);

}  // namespace attune::controller
