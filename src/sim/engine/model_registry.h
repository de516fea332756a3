// Which usage model each simulated container runs: the kubelet's UsageModelProvider for a
// scenario. A pod is traced to the scenario workload that owns it through its controller
// references (ReplicaSet → Deployment, StatefulSet, DaemonSet, Job, Job → CronJob), and its
// container to that workload's container of the same name.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "api/cluster_api.h"
#include "core/error.h"
#include "metrics/trace/trace_source.h"
#include "sim/cluster/cluster_state.h"
#include "sim/random.h"
#include "sim/workload/usage_model_factory.h"

namespace attune::sim {

// One container's model: its spec and, for kind "trace", the index of the loaded trace it
// replays (else -1).
struct ContainerModel {
  UsageModelSpec spec;
  int trace = -1;
};

class ModelRegistry {
 public:
  // `root` is the run's seeded generator; `simStart` is when traces start replaying.
  ModelRegistry(Random root, Time simStart) : root_(root), simStart_(simStart) {}

  // Registers the models of workload (kind, ns, name), by container name. Replaces an earlier
  // registration of the same workload.
  void add(api::WorkloadKind kind, const std::string& ns, const std::string& name,
           std::map<std::string, ContainerModel, std::less<>> containers);
  // Keeps a loaded trace (shared with other simulations); returns its index for
  // ContainerModel::trace.
  int addTrace(std::shared_ptr<const metrics::TraceSource> trace);
  const metrics::TraceSource& trace(int index) const { return *traces_[index]; }

  // A workload with at least one container of kind "service": the pods ready to take its
  // traffic (shared with its models) and the requests it has received. Its rate is that of its
  // first service container in name order.
  struct ServiceWorkload {
    std::shared_ptr<ServiceEndpoints> endpoints = std::make_shared<ServiceEndpoints>();
    ServiceParams params;
    std::vector<RateChange> rateChanges;
    double requestsTotal = 0;  // http_requests_total
  };
  using Key = std::tuple<api::WorkloadKind, std::string, std::string>;

  // Sets every service workload's ready pods from `state` (pods whose Ready condition is True,
  // not deleting), for the kubelet tick that follows.
  void refreshEndpoints(const ClusterState& state);
  // Adds the requests of (now - dt, now] at the rate at `now` to every service workload.
  void countRequests(Time now, Duration dt);
  const std::map<Key, ServiceWorkload>& services() const { return services_; }

  // Builds the model of `container` of `pod` (as UsageModelProvider), its noise drawn from the
  // stream root.fork("model/<namespace>/<pod>/<container>"): the same pod and container name
  // always get the same stream, whatever else runs. A service model shares its workload's
  // endpoints. kNotFound when the pod has no scenario
  // workload as owner or the workload has no such container; makeUsageModel's errors otherwise.
  Result<UsageModelPtr> modelFor(const ClusterState& state, const api::Pod& pod,
                                 const api::Container& container) const;

 private:
  // The scenario workload owning `pod`, found through controller references in `state`.
  Result<Key> ownerOf(const ClusterState& state, const api::Pod& pod) const;

  Random root_;
  Time simStart_;
  std::map<Key, std::map<std::string, ContainerModel, std::less<>>> workloads_;
  std::vector<std::shared_ptr<const metrics::TraceSource>> traces_;
  std::map<Key, ServiceWorkload> services_;
};

}  // namespace attune::sim
