// Resolving each pod's top-level workload from kube-state-metrics owner series.
#pragma once

#include <vector>

#include "metrics/metrics_source.h"
#include "metrics/prometheus/query_response.h"

namespace attune::metrics {

// Builds one PodOwner per pod found in `series`, a mix of kube_pod_owner,
// kube_replicaset_owner and kube_job_owner (told apart by __name__):
// - a pod owned by a ReplicaSet that a Deployment owns → that Deployment; by a ReplicaSet
//   without an owner (or whose owner series is missing) → the ReplicaSet;
// - a pod owned by a Job that a CronJob owns (kube_job_owner) → that CronJob; otherwise the Job;
// - a StatefulSet, DaemonSet or any other kind → that owner as is;
// - owner "<none>" (no ownerReferences) → kind "Pod" named after the pod itself.
// When a pod has several owners, the controller owner (owner_is_controller="true") wins.
// Output is sorted by namespace and pod.
std::vector<PodOwner> resolvePodOwners(const std::vector<PromSeries>& series);

}  // namespace attune::metrics
