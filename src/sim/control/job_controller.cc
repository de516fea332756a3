#include "sim/control/job_controller.h"

#include <algorithm>
#include <string>
#include <vector>

#include "sim/control/conditions.h"
#include "sim/control/owned_pods.h"

namespace attune::sim {
namespace {

bool isFinished(const api::JobStatus& status) {
  for (const char* type : {"Complete", "Failed"}) {
    const api::Condition* c = api::findCondition(status.conditions, type);
    if (c != nullptr && c->isTrue()) return true;
  }
  return false;
}

// Sets the counts from the pods and returns the active ones, in name order.
std::vector<api::Pod> countPods(ClusterState& state, const api::Job& job, api::JobStatus& status) {
  std::vector<api::Pod> active;
  status.succeeded = status.failed = status.ready = 0;
  for (auto& pod : controlledPods(state, job.metadata.namespace_, job.metadata.uid)) {
    if (pod.status.phase == "Succeeded") {
      ++status.succeeded;
    } else if (pod.status.phase == "Failed") {
      ++status.failed;
    } else if (isPodActive(pod)) {
      status.ready += isPodReady(pod) ? 1 : 0;
      active.push_back(std::move(pod));
    }
  }
  return active;
}

void deletePods(ClusterState& state, std::vector<api::Pod>& pods, std::size_t keep) {
  while (pods.size() > keep) {
    (void)state.pods.erase(pods.back().metadata.namespace_, pods.back().metadata.name);
    pods.pop_back();
  }
}

// Finishes the job when it succeeded or failed enough; returns whether it did.
bool finish(ClusterState& state, api::JobStatus& status, std::vector<api::Pod>& active,
            std::int32_t completions, std::int32_t backoffLimit, Time now) {
  auto set = [&](const char* type, const char* reason) {
    setCondition(status.conditions, api::Condition{type, "True", reason, "", {}, 0}, now);
  };
  if (status.succeeded >= completions) {
    set("SuccessCriteriaMet", "CompletionsReached");
    set("Complete", "CompletionsReached");
    status.completionTime = now;
  } else if (status.failed > backoffLimit) {
    set("FailureTarget", "BackoffLimitExceeded");
    set("Failed", "BackoffLimitExceeded");
  } else {
    return false;
  }
  deletePods(state, active, 0);
  return true;
}

void reconcile(ClusterState& state, const api::Job& job, Time now) {
  if (isFinished(job.status)) return;
  const std::int32_t completions = std::max(1, job.spec.completions.value_or(1));
  const std::int32_t parallelism = std::max(0, job.spec.parallelism.value_or(1));
  api::JobStatus status = job.status;
  std::vector<api::Pod> active = countPods(state, job, status);
  if (!finish(state, status, active, completions, job.spec.backoffLimit.value_or(6), now)) {
    if (!job.spec.suspend && !status.startTime) status.startTime = now;
    const auto want = static_cast<std::size_t>(
        job.spec.suspend ? 0 : std::min(parallelism, completions - status.succeeded));
    deletePods(state, active, want);
    api::PodTemplateSpec podTemplate = job.spec.template_;
    podTemplate.metadata.labels["batch.kubernetes.io/job-name"] = job.metadata.name;
    const Owner owner{"batch/v1", "Job", job.metadata};
    while (active.size() < want) {
      auto pod = state.createPod(podFromTemplate(owner, podTemplate));
      if (!pod) break;
      active.push_back(std::move(*pod));
    }
  }
  status.active = static_cast<std::int32_t>(active.size());
  writeStatus(state.jobs, job, status);
}

}  // namespace

void JobController::tick(ClusterState& state, Time now) const {
  for (const auto& job : state.jobs.list({})) reconcile(state, job, now);
}

}  // namespace attune::sim
