// apps/v1 Deployment, StatefulSet, DaemonSet, ReplicaSet and batch/v1 Job, CronJob: the
// workloads that own the pods Attune resizes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/k8s/meta.h"
#include "api/k8s/pod.h"

namespace attune::api {

// The spec fields the four apps/v1 workload kinds share. `replicas` is absent for a DaemonSet
// (and when the API server omitted it; Kubernetes then defaults to 1).
struct WorkloadSpec {
  std::optional<std::int32_t> replicas;
  LabelSelector selector;
  PodTemplateSpec template_;
  // Deployment: spec.strategy.type (RollingUpdate, Recreate); StatefulSet and DaemonSet:
  // spec.updateStrategy.type (RollingUpdate, OnDelete). Empty for a ReplicaSet.
  std::string strategyType;
  bool paused = false;  // Deployment only
  std::int32_t minReadySeconds = 0;

  bool operator==(const WorkloadSpec&) const = default;
};

// The status fields of the apps/v1 workload kinds; each kind fills its own subset.
struct WorkloadStatus {
  std::int64_t observedGeneration = 0;
  std::int32_t replicas = 0;
  std::int32_t updatedReplicas = 0;
  std::int32_t readyReplicas = 0;
  std::int32_t availableReplicas = 0;
  std::int32_t currentReplicas = 0;  // StatefulSet
  // DaemonSet only.
  std::int32_t desiredNumberScheduled = 0;
  std::int32_t currentNumberScheduled = 0;
  std::int32_t updatedNumberScheduled = 0;
  std::int32_t numberReady = 0;
  std::int32_t numberAvailable = 0;
  std::vector<Condition> conditions;

  bool operator==(const WorkloadStatus&) const = default;
};

// The common shape of Deployment, StatefulSet, DaemonSet and ReplicaSet; the distinct kinds
// below exist so that decoders and lists are typed.
struct Workload {
  ObjectMeta metadata;
  WorkloadSpec spec;
  WorkloadStatus status;

  bool operator==(const Workload&) const = default;
};

struct Deployment : Workload {};
struct StatefulSet : Workload {};
struct DaemonSet : Workload {};
struct ReplicaSet : Workload {};

struct JobSpec {
  std::optional<std::int32_t> parallelism;
  std::optional<std::int32_t> completions;
  std::optional<std::int32_t> backoffLimit;
  std::optional<std::int64_t> activeDeadlineSeconds;
  bool suspend = false;
  LabelSelector selector;
  PodTemplateSpec template_;

  bool operator==(const JobSpec&) const = default;
};

struct JobStatus {
  std::int32_t active = 0;
  std::int32_t succeeded = 0;
  std::int32_t failed = 0;
  std::int32_t ready = 0;
  std::optional<Time> startTime;
  std::optional<Time> completionTime;
  std::vector<Condition> conditions;

  bool operator==(const JobStatus&) const = default;
};

struct Job {
  ObjectMeta metadata;
  JobSpec spec;
  JobStatus status;

  bool operator==(const Job&) const = default;
};

struct JobTemplateSpec {
  ObjectMeta metadata;
  JobSpec spec;

  bool operator==(const JobTemplateSpec&) const = default;
};

struct CronJobSpec {
  std::string schedule;
  std::string timeZone;
  std::string concurrencyPolicy;  // Allow, Forbid, Replace
  bool suspend = false;
  JobTemplateSpec jobTemplate;

  bool operator==(const CronJobSpec&) const = default;
};

struct CronJobStatus {
  std::vector<ObjectReference> active;
  std::optional<Time> lastScheduleTime;
  std::optional<Time> lastSuccessfulTime;

  bool operator==(const CronJobStatus&) const = default;
};

struct CronJob {
  ObjectMeta metadata;
  CronJobSpec spec;
  CronJobStatus status;

  bool operator==(const CronJob&) const = default;
};

}  // namespace attune::api
