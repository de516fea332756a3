// Decoders of the apps/v1 and batch/v1 workload kinds.
#include "api/k8s/decoders.h"

namespace attune::api {

// {"type": ...} of spec.strategy / spec.updateStrategy.
static Status readStrategyType(JsonValue& v, std::string& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "type") return readJson(value, out);
    return {};
  });
}

static Status readJson(JsonValue& v, WorkloadSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "replicas") return readJson(value, out.replicas);
    if (key == "selector") return readJson(value, out.selector);
    if (key == "template") return readJson(value, out.template_);
    if (key == "strategy" || key == "updateStrategy") {
      return readStrategyType(value, out.strategyType);
    }
    if (key == "paused") return readJson(value, out.paused);
    if (key == "minReadySeconds") return readJson(value, out.minReadySeconds);
    return {};
  });
}

static Status readJson(JsonValue& v, WorkloadStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "observedGeneration") return readJson(value, out.observedGeneration);
    if (key == "replicas") return readJson(value, out.replicas);
    if (key == "updatedReplicas") return readJson(value, out.updatedReplicas);
    if (key == "readyReplicas") return readJson(value, out.readyReplicas);
    if (key == "availableReplicas") return readJson(value, out.availableReplicas);
    if (key == "currentReplicas") return readJson(value, out.currentReplicas);
    if (key == "desiredNumberScheduled") return readJson(value, out.desiredNumberScheduled);
    if (key == "currentNumberScheduled") return readJson(value, out.currentNumberScheduled);
    if (key == "updatedNumberScheduled") return readJson(value, out.updatedNumberScheduled);
    if (key == "numberReady") return readJson(value, out.numberReady);
    if (key == "numberAvailable") return readJson(value, out.numberAvailable);
    if (key == "conditions") return readJson(value, out.conditions);
    return {};
  });
}

Status readJson(JsonValue& v, Workload& out) { return readObjectParts(v, out); }

static Status readJson(JsonValue& v, JobSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "parallelism") return readJson(value, out.parallelism);
    if (key == "completions") return readJson(value, out.completions);
    if (key == "backoffLimit") return readJson(value, out.backoffLimit);
    if (key == "activeDeadlineSeconds") return readJson(value, out.activeDeadlineSeconds);
    if (key == "suspend") return readJson(value, out.suspend);
    if (key == "selector") return readJson(value, out.selector);
    if (key == "template") return readJson(value, out.template_);
    return {};
  });
}

static Status readJson(JsonValue& v, JobStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "active") return readJson(value, out.active);
    if (key == "succeeded") return readJson(value, out.succeeded);
    if (key == "failed") return readJson(value, out.failed);
    if (key == "ready") return readJson(value, out.ready);
    if (key == "startTime") return readJson(value, out.startTime);
    if (key == "completionTime") return readJson(value, out.completionTime);
    if (key == "conditions") return readJson(value, out.conditions);
    return {};
  });
}

Status readJson(JsonValue& v, Job& out) { return readObjectParts(v, out); }

static Status readJson(JsonValue& v, JobTemplateSpec& out) { return readObjectParts(v, out); }

static Status readJson(JsonValue& v, CronJobSpec& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "schedule") return readJson(value, out.schedule);
    if (key == "timeZone") return readJson(value, out.timeZone);
    if (key == "concurrencyPolicy") return readJson(value, out.concurrencyPolicy);
    if (key == "suspend") return readJson(value, out.suspend);
    if (key == "jobTemplate") return readJson(value, out.jobTemplate);
    return {};
  });
}

static Status readJson(JsonValue& v, CronJobStatus& out) {
  return forEachField(v, [&out](std::string_view key, JsonValue& value) -> Status {
    if (key == "active") return readJson(value, out.active);
    if (key == "lastScheduleTime") return readJson(value, out.lastScheduleTime);
    if (key == "lastSuccessfulTime") return readJson(value, out.lastSuccessfulTime);
    return {};
  });
}

Status readJson(JsonValue& v, CronJob& out) { return readObjectParts(v, out); }

}  // namespace attune::api
