// Reading a scope's usage from a MetricsSource: the first stage of the usage pipeline (see
// usage_history.h), one query per metric for the whole scope.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "metrics/metrics_source.h"

namespace attune::usage {

// The ranges of one read: samples over [start, end] every step, and OOM kills over a range
// that starts one step earlier, so that a kill between the previous read's last sample and
// this read's first one is not lost (UsageHistory drops the kills an earlier read covered).
struct ReadRange {
  metrics::Range samples;
  metrics::Range oomKills;
};

// The ReadRange of samples over [start, end] every `step` (> 0).
ReadRange readRange(Time start, Time end, Duration step);

// The steps of `range` (> 0 step): the points a range query of it returns per series; 0 when it
// ends before it starts.
std::size_t stepsOf(const metrics::Range& range);

// What one read of a scope returns.
struct UsageReading {
  std::vector<metrics::ContainerSeries> cpu;     // cores
  std::vector<metrics::ContainerSeries> psi;     // PSI CPU waiting rate; may be empty
  std::vector<metrics::ContainerSeries> memory;  // working set, bytes
  std::vector<metrics::OomKill> oomKills;
};

// A reading seen in place: each series' container and points belong to whoever holds the
// reading (a UsageReading, or a pass's shared reading) and stay valid while the view is used.
struct SeriesView {
  const metrics::ContainerId* id;
  std::span<const metrics::Point> points;
};
struct UsageView {
  std::vector<SeriesView> cpu, psi, memory;
  std::vector<metrics::OomKill> oomKills;  // copied: there are few
};

// `reading` seen in place.
UsageView viewOf(const UsageReading& reading);

// Given a reading in place, valid during the call only.
using ViewUser = std::function<void(const UsageView& reading)>;

// Told about each query of readUsage: before it with `found` unset, after it (when it
// succeeded) with the number of series or kills found. `query` is "cpu usage", "cpu pressure",
// "memory working set" or "oom kills".
using QueryObserver = std::function<void(std::string_view query, std::optional<std::size_t> found)>;

// One query per metric for `scope`, in the order QueryObserver lists them; the first error of
// the source is returned as is and the remaining queries are not made. `observer` may be empty.
Result<UsageReading> readUsage(metrics::MetricsSource& source, const metrics::Scope& scope,
                               const ReadRange& range, const QueryObserver& observer = {});

}  // namespace attune::usage
