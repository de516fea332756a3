// TraceData: a whole trace in memory, container by container, as the trace readers build it and
// TraceSource queries it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "core/units.h"
#include "metrics/metrics_source.h"

namespace attune::metrics {

template <typename T>
struct Timed {
  Time time;
  T value;
};

// Everything a trace records about one container. Readers append in any order; after
// TraceData::finalize() every series is in strictly increasing time order.
struct ContainerTrace {
  api::WorkloadRef workload;
  std::vector<Point> cpuUsage;          // cores
  std::vector<Point> memoryWorkingSet;  // bytes
  std::vector<Point> psiCpuWaiting;     // seconds waiting per second
  std::vector<Point> cpuThrottleRatio;  // [0, 1]
  // The requests and limits the rows state (unset = not set); after finalize() only the changes.
  std::vector<Timed<api::ResourceValues>> resources;
  std::vector<Timed<std::int64_t>> restarts;  // cumulative restart count
  std::vector<Timed<Bytes>> oomKills;         // memory working set at the kill
  // The first and last row of this container; set by finalize().
  Time first;
  Time last;
};

class TraceData {
 public:
  // The container `id`, owned by `workload`, created on first use. kInvalidArgument when the
  // container or another container of its pod was recorded under a different workload.
  Result<ContainerTrace*> container(const ContainerId& id, const api::WorkloadRef& workload);

  // Counts a row a reader skipped as unusable (e.g. Bitbrains rows with zero capacity).
  void countSkippedRow() { ++skippedRows_; }

  // Sorts every series by time, keeps the last of several samples with the same timestamp,
  // reduces `resources` to the rows that change them, drops containers without rows, and sets
  // `first` and `last`. Call once, after the last append.
  void finalize();

  const std::map<ContainerId, ContainerTrace>& containers() const { return containers_; }
  std::int64_t skippedRows() const { return skippedRows_; }
  // The earliest and latest row of any container; nullopt when there is none (finalized only).
  std::optional<std::pair<Time, Time>> span() const;

 private:
  std::map<ContainerId, ContainerTrace> containers_;
  std::int64_t skippedRows_ = 0;
};

}  // namespace attune::metrics
