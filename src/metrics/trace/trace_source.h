// TraceSource: a MetricsSource that answers from trace files loaded into memory — Bitbrains
// GWA-T-12 VM traces or Attune CSV traces (docs/trace-format.md) — for backtests and replays.
//
// Query semantics:
// - Series (cpuUsage, memoryWorkingSet, cpuPressureWaiting, cpuThrottleRatio): with a positive
//   range.step, one point per step point t = start, start+step, ... <= end, valued by the last
//   sample in (t - lookback, t] and stamped t (as Prometheus query_range); no sample there, no
//   point. With step <= 0, the raw samples with start <= time <= end. A container without any
//   point has no series. Series are ordered by ContainerId.
// - resources, restartCounts: the latest row at or before `at`; containers with no row by then
//   are absent. podOwners: every pod with a row at or before `at`.
// - oomKills: the kills recorded in [start, end] with the working set of the same row.
// - A metric the trace lacks (PSI, throttling, restarts, OOM kills in Bitbrains files) and the
//   node queries answer with empty vectors: "no data".
// - Scope filters by namespace and leaves out the excluded containers before their rows are
//   read; podOwners lists every pod in the scope's namespaces, excluded containers or not.
// Not thread-safe (as the interface allows); the loaded trace is immutable.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "metrics/metrics_source.h"
#include "metrics/trace/trace_data.h"

namespace attune::metrics {

struct TraceOptions {
  // Namespace of the workloads read from Bitbrains files.
  std::string bitbrainsNamespace = "bitbrains";
  // How far back from a step point a sample still counts (Prometheus' lookback delta).
  Duration lookback = std::chrono::minutes(5);
  // A range query with more step points than this is rejected (kInvalidArgument).
  std::int64_t maxStepPoints = 1'000'000;
};

// The first and last timestamp of any row in the trace, for replaying it.
struct TraceSpan {
  Time first;
  Time last;
};

class TraceSource final : public MetricsSource {
 public:
  // Loads `paths` (trace files, or directories of "*.csv" / "*.csv.gz" files, formats mixed
  // freely) into memory. kNotFound for a missing path, kInvalidArgument for a malformed file
  // (the message names file, line and column) or a trace without a single usable row.
  static Result<std::unique_ptr<TraceSource>> load(const std::vector<std::filesystem::path>& paths,
                                                   TraceOptions options = {});

  TraceSpan span() const { return span_; }
  // Rows the readers skipped as unusable (Bitbrains rows with zero CPU cores or capacity).
  std::int64_t skippedRows() const { return data_.skippedRows(); }
  // The loaded trace, container by container.
  const TraceData& data() const { return data_; }

  Result<std::vector<ContainerSeries>> cpuUsage(const Scope& scope, const Range& range) override;
  Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope& scope,
                                                          const Range& range) override;
  Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope& scope,
                                                        const Range& range) override;
  Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope& scope,
                                                        const Range& range) override;
  Result<std::vector<OomKill>> oomKills(const Scope& scope, const Range& range) override;
  Result<std::vector<RestartCount>> restartCounts(const Scope& scope, Time at) override;
  Result<std::vector<ContainerResourceValues>> resources(const Scope& scope, Time at) override;
  Result<std::vector<PodOwner>> podOwners(const Scope& scope, Time at) override;
  Result<std::vector<NodeSeries>> nodeLoad(const Range& range) override;
  Result<std::vector<NodeCapacity>> nodeCapacity(Time at) override;

 private:
  TraceSource(TraceData data, TraceSpan span, TraceOptions options);
  Result<std::vector<ContainerSeries>> series(const Scope& scope, const Range& range,
                                              std::vector<Point> ContainerTrace::*member) const;

  TraceData data_;
  TraceSpan span_;
  TraceOptions options_;
};

}  // namespace attune::metrics
