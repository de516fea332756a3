// The simulated CronJob controller: creates a Job at each scheduled time and keeps the finished
// Jobs' history short.
#pragma once

#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Per CronJob, in (namespace, name) order:
//  - history: its Jobs (by controller reference) that finished (condition Complete or Failed
//    True) beyond the newest 3 successful and 1 failed (the Kubernetes defaults of
//    successfulJobsHistoryLimit / failedJobsHistoryLimit) are deleted with their pods;
//  - schedule (spec.schedule, cron_schedule.h; an unparsable schedule is skipped): the latest
//    scheduled time in (lastScheduleTime, now] — or (creationTimestamp, now] before the first
//    run — is due; earlier missed times are dropped, as the real controller does. Unless
//    spec.suspend, a due time starts Job "<cronjob>-<minutes since the Unix epoch>" from
//    spec.jobTemplate (labels and annotations; controller reference to the CronJob) and sets
//    status.lastScheduleTime. concurrencyPolicy Forbid skips the start while a Job is active
//    (lastScheduleTime unchanged, so it starts once the active Job finishes); Replace first
//    deletes the active Jobs with their pods.
//  - status.active lists the active Jobs; lastSuccessfulTime is the latest completionTime.
// Stateless; runs before the ControlPlane in a tick, so a new Job gets its pods the same tick.
class CronJobController {
 public:
  void tick(ClusterState& state, Time now) const;
};

}  // namespace attune::sim
