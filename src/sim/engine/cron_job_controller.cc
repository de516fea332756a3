#include "sim/engine/cron_job_controller.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "sim/control/owned_pods.h"
#include "sim/engine/cron_schedule.h"

namespace attune::sim {
namespace {

constexpr std::size_t kSuccessfulJobsHistoryLimit = 3;
constexpr std::size_t kFailedJobsHistoryLimit = 1;

// "Complete" or "Failed" when that condition is True, else "".
std::string_view finishedAs(const api::Job& job) {
  for (std::string_view type : {"Complete", "Failed"}) {
    const api::Condition* c = api::findCondition(job.status.conditions, type);
    if (c != nullptr && c->isTrue()) return type;
  }
  return "";
}

// Deletes the Job and the pods it controls (the garbage collector's foreground deletion).
void deleteJob(ClusterState& state, const api::Job& job) {
  for (const api::Pod& pod : controlledPods(state, job.metadata.namespace_, job.metadata.uid)) {
    (void)state.deletePod(pod.metadata.namespace_, pod.metadata.name);
  }
  (void)state.jobs.erase(job.metadata.namespace_, job.metadata.name);
}

// Keeps the newest `keep` of `jobs` (by creation time, then name) and deletes the rest.
void trimHistory(ClusterState& state, std::vector<api::Job>& jobs, std::size_t keep) {
  if (jobs.size() <= keep) return;
  std::sort(jobs.begin(), jobs.end(), [](const api::Job& a, const api::Job& b) {
    return std::tie(a.metadata.creationTimestamp, a.metadata.name) <
           std::tie(b.metadata.creationTimestamp, b.metadata.name);
  });
  for (std::size_t i = 0; i + keep < jobs.size(); ++i) deleteJob(state, jobs[i]);
  jobs.erase(jobs.begin(), jobs.end() - static_cast<std::ptrdiff_t>(keep));
}

// The latest scheduled time in (after, now], if any.
std::optional<Time> latestDue(const CronSchedule& schedule, Time after, Time now) {
  std::optional<Time> due;
  for (Time t = schedule.next(after); t <= now; t = schedule.next(t)) due = t;
  return due;
}

api::Job jobFor(const api::CronJob& cron, Time scheduled) {
  const auto minutes =
      std::chrono::duration_cast<std::chrono::minutes>(scheduled.time_since_epoch()).count();
  api::Job job;
  job.metadata.name = cron.metadata.name + "-" + std::to_string(minutes);
  job.metadata.namespace_ = cron.metadata.namespace_;
  job.metadata.labels = cron.spec.jobTemplate.metadata.labels;
  job.metadata.annotations = cron.spec.jobTemplate.metadata.annotations;
  job.metadata.ownerReferences.push_back(
      {"batch/v1", "CronJob", cron.metadata.name, cron.metadata.uid, true});
  job.spec = cron.spec.jobTemplate.spec;
  return job;
}

api::ObjectReference referenceTo(const api::Job& job) {
  // Without a resourceVersion, so the status does not change with every write to the Job.
  return {"batch/v1", "Job", job.metadata.namespace_, job.metadata.name, job.metadata.uid, "", ""};
}

void reconcile(ClusterState& state, const api::CronJob& cron, Time now) {
  std::vector<api::Job> active;
  std::vector<api::Job> succeeded;
  std::vector<api::Job> failed;
  api::CronJobStatus status = cron.status;
  for (api::Job& job : state.jobs.list({cron.metadata.namespace_, {}})) {
    const api::OwnerReference* ref = job.metadata.controllerRef();
    if (ref == nullptr || ref->uid != cron.metadata.uid) continue;
    const std::string_view finished = finishedAs(job);
    if (finished == "Complete" && job.status.completionTime &&
        (!status.lastSuccessfulTime || *status.lastSuccessfulTime < *job.status.completionTime)) {
      status.lastSuccessfulTime = job.status.completionTime;
    }
    (finished.empty()         ? active
     : finished == "Complete" ? succeeded
                              : failed)
        .push_back(std::move(job));
  }
  trimHistory(state, succeeded, kSuccessfulJobsHistoryLimit);
  trimHistory(state, failed, kFailedJobsHistoryLimit);

  auto schedule = CronSchedule::parse(cron.spec.schedule);
  const Time after =
      status.lastScheduleTime.value_or(cron.metadata.creationTimestamp.value_or(now));
  const std::optional<Time> due = schedule ? latestDue(*schedule, after, now) : std::nullopt;
  const bool forbidden = cron.spec.concurrencyPolicy == "Forbid" && !active.empty();
  if (due && !cron.spec.suspend && !forbidden) {
    if (cron.spec.concurrencyPolicy == "Replace") {
      for (const api::Job& job : active) deleteJob(state, job);
      active.clear();
    }
    if (auto job = state.jobs.create(jobFor(cron, *due))) active.push_back(std::move(*job));
    status.lastScheduleTime = *due;
  }
  status.active.clear();
  for (const api::Job& job : active) status.active.push_back(referenceTo(job));
  writeStatus(state.cronJobs, cron, status);
}

}  // namespace

void CronJobController::tick(ClusterState& state, Time now) const {
  for (const api::CronJob& cron : state.cronJobs.list({})) reconcile(state, cron, now);
}

}  // namespace attune::sim
