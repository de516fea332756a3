// The recorded history as OpenMetrics text for `promtool tsdb create-blocks-from openmetrics`,
// so a real Prometheus can serve what the simulator ran (docs/simulator-metrics.md lists the
// series and labels).
#pragma once

#include <ostream>

#include "core/error.h"
#include "sim/cluster/cluster_state.h"
#include "sim/telemetry/recorder.h"

namespace attune::sim {

// Writes every retained sample of `recorder`: the cAdvisor series of every recorded container
// at its samples' times; the kube-state-metrics series of every regular container (restarts,
// last termination reason, requests, limits) and of every pod (owner) at each tick its pod was
// run, from the recorder's change logs; the ReplicaSet and Job owners over the ticks of their
// pods; the node series at their samples' times and each node's capacity, read from `state`
// (as it is now), over the ticks of its samples.
//
// Families are contiguous and in name order, each with HELP and TYPE lines (counters as
// OpenMetrics requires: `# TYPE foo counter`, samples `foo_total`); series within a family are
// ordered by their label text and written whole, in time order; timestamps are seconds; the text
// ends with `# EOF`. The same recorder and state give byte-identical output.
// Returns kInternal when the stream fails.
Result<void> writeOpenMetrics(std::ostream& out, const Recorder& recorder,
                              const ClusterState& state);

}  // namespace attune::sim
