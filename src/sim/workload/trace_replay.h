// TraceReplayModel: replays one container of a loaded trace (metrics::TraceSource) as a
// simulated container's usage.
//
// Time shift: simulated time `simStart` corresponds to trace time `traceStart` (normally
// TraceSource::span().first, so all containers of one trace stay aligned), i.e. trace time =
// traceStart + (now - simStart). Each value is step-held: the last sample at or before that trace
// time; before the first sample it is 0. After the last sample the last value holds. Restarts do
// not change the replay (the trace already contains whatever the workload did). No noise; the
// model draws no random numbers and never finishes.
#pragma once

#include <vector>

#include "core/time.h"
#include "metrics/metrics_source.h"
#include "metrics/trace/trace_data.h"
#include "sim/workload/usage_model.h"

namespace attune::sim {

class TraceReplayModel final : public UsageModel {
 public:
  // Copies the container's CPU, memory and resource series, so `trace` need not outlive it.
  TraceReplayModel(const metrics::ContainerTrace& trace, Time traceStart, Time simStart);

  Usage usage(Time now, Duration sinceStart) override;
  bool finished(Time, Duration) const override { return false; }

  // The requests and limits the trace states at simulated time `now` (step-held like usage;
  // all unset before the container's first row).
  api::ResourceValues resources(Time now) const;
  // The requests and limits of the container's first row: what it was originally provisioned
  // with, to create the simulated pod.
  api::ResourceValues originalResources() const;

 private:
  Time traceTime(Time now) const { return traceStart_ + (now - simStart_); }

  std::vector<metrics::Point> cpu_;
  std::vector<metrics::Point> memory_;
  std::vector<metrics::Timed<api::ResourceValues>> resources_;
  Time traceStart_;
  Time simStart_;
};

}  // namespace attune::sim
