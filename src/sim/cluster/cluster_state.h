// The simulated cluster's state of record: every object, the pod watch log, accepted resizes
// awaiting the kubelet, and evictions. sim::Cluster serves the ClusterApi from it; the kubelet
// model, workload controllers and scenario setup read and write it directly. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "sim/cluster/object_store.h"

namespace attune::sim {

// A resize the API server accepted and the kubelet has not acted on yet: the hand-over point
// to the kubelet model, which decides PodResizeInProgress or PodResizePending (Deferred,
// Infeasible) and applies the resources. Nothing here fakes that decision.
struct PendingResize {
  std::string namespace_;
  std::string name;
  std::int64_t generation = 0;  // the pod's metadata.generation the resize produced
};

// A pod removed through the eviction subresource, as it was just before deletion.
struct EvictionRecord {
  api::Pod pod;
  Time at;
};

class ClusterState {
 public:
  // `clock` stamps creationTimestamps and evictions; it must outlive the state.
  explicit ClusterState(Clock& clock);
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  Clock& clock() const { return clock_; }

  // Creates a pod as the API server does: stamped, and status.qosClass computed from the spec
  // when unset. Prefer this to pods.create().
  Result<api::Pod> createPod(api::Pod pod);

  // Pod events with a resourceVersion above `resourceVersion` ("" = all) that `options`
  // selects, oldest first; kInvalidArgument (field "resourceVersion") when it is not a number.
  Result<api::WatchBatch<api::Pod>> podEventsAfter(const api::ListOptions& options,
                                                   std::string_view resourceVersion) const;

  // Queues `pod` (just resized) for the kubelet model.
  void recordPendingResize(const api::Pod& pod);
  // The queued resizes, oldest first; the queue is left empty.
  std::vector<PendingResize> takePendingResizes();
  const std::vector<PendingResize>& pendingResizes() const { return pendingResizes_; }

  // Deletes the pod (a DELETED watch event) and records the eviction at clock().now().
  Result<void> evictPod(std::string_view ns, std::string_view name);
  const std::vector<EvictionRecord>& evictions() const { return evictions_; }

 private:
  Clock& clock_;
  Versioner versioner_;

 public:
  // One store per kind. Each write through them takes the next cluster-wide resourceVersion;
  // pod writes also enter the watch log (do not replace the pods observer).
  ObjectStore<api::Pod> pods{"pods", versioner_};
  ObjectStore<api::Node> nodes{"nodes", versioner_};
  ObjectStore<api::Deployment> deployments{"deployments.apps", versioner_};
  ObjectStore<api::StatefulSet> statefulSets{"statefulsets.apps", versioner_};
  ObjectStore<api::DaemonSet> daemonSets{"daemonsets.apps", versioner_};
  ObjectStore<api::ReplicaSet> replicaSets{"replicasets.apps", versioner_};
  ObjectStore<api::Job> jobs{"jobs.batch", versioner_};
  ObjectStore<api::CronJob> cronJobs{"cronjobs.batch", versioner_};
  ObjectStore<api::LimitRange> limitRanges{"limitranges", versioner_};
  ObjectStore<api::ResourceQuota> resourceQuotas{"resourcequotas", versioner_};
  ObjectStore<api::HorizontalPodAutoscaler> hpas{"horizontalpodautoscalers.autoscaling",
                                                 versioner_};
  ObjectStore<api::Event> events{"events", versioner_};
  ObjectStore<api::Lease> leases{"leases.coordination.k8s.io", versioner_};

 private:
  std::vector<api::WatchEvent<api::Pod>> podLog_;  // in resourceVersion order
  std::vector<PendingResize> pendingResizes_;
  std::vector<EvictionRecord> evictions_;
};

}  // namespace attune::sim
