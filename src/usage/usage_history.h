// The one usage pipeline, shared by the controller and `attune recommend`:
//   series of a scope (readUsage) → per-pod points → samples (the timestamps with both CPU and
//   memory) → aggregation across a workload's pods (spec.metricsSource.podAggregation) →
//   per-container statistics, and the per-container state of the strategies that keep one.
// Incremental: the first read covers the history window, later ones only what is new. The
// statistics are an in-memory cache of the source's history: a restarted controller rebuilds
// them with one full read.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/k8s/resource_values.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"
#include "metrics/metrics_source.h"
#include "recommend/strategy.h"
#include "stats/config.h"
#include "stats/container_stats.h"
#include "usage/usage_reading.h"

namespace attune::usage {

// Which workload a container's samples belong to; nullopt drops them (a container the caller
// does not look at: another workload, an excluded container).
using WorkloadOf =
    std::function<std::optional<api::WorkloadRef>(const metrics::ContainerId& container)>;

// The usage of one container of one workload, over all its pods. Not copyable (it owns the
// strategies' states).
class ContainerUsage {
 public:
  explicit ContainerUsage(const stats::StatsConfig& config) : stats_(config) {}

  const stats::ContainerStats& stats() const { return stats_; }
  // The state `strategy` made for this container (Strategy::newContainerState), or nullptr when
  // the history does not keep one for it.
  const recommend::ContainerState* stateOf(const recommend::Strategy& strategy) const;

 private:
  friend class UsageHistory;
  stats::ContainerStats stats_;
  std::vector<std::pair<const recommend::Strategy*, recommend::ContainerStatePtr>> states_;
};

// What a strategy needs besides a container's usage.
struct ContainerContext {
  Time now;
  api::ResourceValues current;  // the container's requests and limits now
  const api::AttunePolicySpec& policy;
  int containersInPod = 1;
};

// `strategy`'s recommendation from `usage` (its statistics and, when kept, its state for the
// strategy) and `context`. The controller and `attune recommend` both recommend through this.
recommend::Recommendation recommendFor(const recommend::Strategy& strategy,
                                       const ContainerUsage& usage,
                                       const ContainerContext& context);

class UsageHistory {
 public:
  using Key = std::pair<api::WorkloadRef, std::string>;  // (workload, container name)

  // `config` must be valid; `window` > 0 is how far back the first read goes (the sketches of
  // `config` keep at least that); `step` > 0 is the query resolution. The history keeps the
  // per-container state of each of `strategies` that makes one; they must outlive it.
  UsageHistory(stats::StatsConfig config, api::PodAggregation aggregation, Duration window,
               Duration step, std::vector<const recommend::Strategy*> strategies);

  // What the next read covers to bring the history up to `end`: samples from the end of the
  // previous read plus one step (the first time: `end` minus the window) to `end`, OOM kills
  // from one step earlier. nullopt when there is nothing new.
  std::optional<ReadRange> nextRead(Time end) const;

  // Adds `reading`, the answer for `range` (from nextRead), to the containers `workloadOf` maps:
  // the samples of the pods of one workload are combined per timestamp as the aggregation
  // says; OOM kills an earlier read covered are dropped. The history then ends at range's end.
  void add(const UsageReading& reading, const ReadRange& range, const WorkloadOf& workloadOf);
  void add(const UsageView& reading, const ReadRange& range, const WorkloadOf& workloadOf);

  // nextRead(floorToStep(now, step)), readUsage and add: the controller's refresh, on the grid
  // of whole steps so that successive refreshes line up. A source error leaves the history as
  // it was (the same range is read again next time) and is returned.
  Result<void> refresh(metrics::MetricsSource& source, const metrics::Scope& scope, Time now,
                       const WorkloadOf& workloadOf);
  // The same, reading through `read` (e.g. a pass's SharedUsageReads) instead of readUsage:
  // `read` reads `range` and, when that succeeds, gives the reading to `use` once (which adds
  // it), in place: the reading need only live during that call.
  using Reader = std::function<Result<void>(const ReadRange& range, const ViewUser& use)>;
  Result<void> refresh(const Reader& read, Time now, const WorkloadOf& workloadOf);
  // What refresh(..., now, ...) reads: nextRead(floorToStep(now, step)).
  std::optional<ReadRange> nextRefresh(Time now) const;

  // The usage of a container of a workload, or nullptr when it never had a sample or OOM kill.
  const ContainerUsage* find(const api::WorkloadRef& workload, std::string_view container) const;
  // Every container with usage, ordered by (workload, container name).
  const std::map<Key, ContainerUsage>& containers() const { return containers_; }
  // The end of the range read so far.
  std::optional<Time> readEnd() const { return readEnd_; }
  // The newest finite memory working-set sample (bytes) the reads saw of one pod's container,
  // per pod (not aggregated), for the containers `workloadOf` mapped; nullopt when none was
  // seen within the history window of the last read. Used to check a memory limit decrease
  // against what the container uses now (rollout/memory_limit_decrease.h).
  struct PodSample {
    Time time;
    double value = 0;
  };
  std::optional<PodSample> latestMemory(std::string_view ns, std::string_view pod,
                                        std::string_view container) const;
  const stats::StatsConfig& config() const { return config_; }
  // The query step the history is read at.
  Duration step() const { return step_; }

 private:
  ContainerUsage& at(Key key);

  stats::StatsConfig config_;
  api::PodAggregation aggregation_;
  Duration window_;
  Duration step_;
  std::vector<const recommend::Strategy*> strategies_;
  std::optional<Time> readEnd_;
  std::map<Key, ContainerUsage> containers_;
  std::map<metrics::ContainerId, PodSample> latestMemory_;
};

// `t` rounded down to a whole multiple of `step` (> 0) since the epoch: the grid range queries
// are evaluated on.
Time floorToStep(Time t, Duration step);

}  // namespace attune::usage
