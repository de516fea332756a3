// The Recorder's history as PromQL series, for queries evaluated in process
// (metrics/query/promql_eval.h) — what the HPA guard's annotated query reads in a simulation.
// Series served:
//   http_requests_total{namespace, <kind>}  the service workloads' request counters
//                                           (docs/scenarios.md, model `service`)
// Samples at the recorded ticks, oldest first; ticks already pruned from the history are left
// out. Holds a reference to the recorder, which must outlive it; reads it on every call.
#pragma once

#include "metrics/query/promql_eval.h"
#include "sim/telemetry/recorder.h"

namespace attune::sim {

class RecordedSeries final : public metrics::query::SeriesStore {
 public:
  explicit RecordedSeries(const Recorder& recorder) : recorder_(recorder) {}

  std::vector<metrics::query::Series> select(const metrics::query::Selector& selector, Time from,
                                             Time to) const override;

 private:
  const Recorder& recorder_;
};

}  // namespace attune::sim
