// The simulated Job controller: runs pods until `completions` of them succeeded.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Per Job, in (namespace, name) order, with completions and parallelism defaulting to 1 and
// backoffLimit to 6. Counts controlled pods: succeeded (phase Succeeded), failed (phase
// Failed), active (neither, not deleting). Once succeeded >= completions the Job gets
// conditions SuccessCriteriaMet and Complete (True) and completionTime = now; once failed >
// backoffLimit, Failed (reason BackoffLimitExceeded) and its active pods are deleted. A
// finished Job is left alone. Otherwise it keeps min(parallelism, completions - succeeded)
// pods active (0 while suspended), creating pods with generateName "<job>-" and the label
// batch.kubernetes.io/job-name, or deleting the last-named surplus. Status: active,
// succeeded, failed, ready, startTime (first unsuspended tick). Stateless.
class JobController {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
