#include "sim/engine/model_registry.h"

#include <utility>

#include "sim/control/owned_pods.h"
#include "sim/workload/noise.h"

namespace attune::sim {
namespace {

// The controller reference of `meta` when it has kind `kind`, else nullptr.
const api::OwnerReference* controllerOfKind(const api::ObjectMeta& meta, std::string_view kind) {
  const api::OwnerReference* ref = meta.controllerRef();
  return ref != nullptr && ref->kind == kind ? ref : nullptr;
}

}  // namespace

void ModelRegistry::add(api::WorkloadKind kind, const std::string& ns, const std::string& name,
                        std::map<std::string, ContainerModel, std::less<>> containers) {
  Key key{kind, ns, name};
  services_.erase(key);
  for (const auto& [container, model] : containers) {
    if (model.spec.kind != "service") continue;
    auto params = serviceParams(model.spec);
    if (!params) continue;  // makeUsageModel reports it when a pod starts
    ServiceWorkload service;
    service.params = *params;
    service.rateChanges = model.spec.rateChanges;
    services_.emplace(key, std::move(service));
    break;
  }
  workloads_.insert_or_assign(std::move(key), std::move(containers));
}

void ModelRegistry::refreshEndpoints(const ClusterState& state) {
  if (services_.empty()) return;
  for (auto& [key, service] : services_) service.endpoints->readyPods.clear();
  state.pods.forEach([&](const api::Pod& pod) {
    if (!isPodReady(pod) || pod.metadata.deletionTimestamp) return;
    auto key = ownerOf(state, pod);
    if (!key) return;
    auto it = services_.find(*key);
    if (it != services_.end()) it->second.endpoints->readyPods.insert(pod.metadata.name);
  });
}

void ModelRegistry::countRequests(Time now, Duration dt) {
  for (auto& [key, service] : services_) {
    service.requestsTotal +=
        serviceRate(service.params, service.rateChanges, simStart_, now) * toSeconds(dt);
  }
}

int ModelRegistry::addTrace(std::shared_ptr<const metrics::TraceSource> trace) {
  traces_.push_back(std::move(trace));
  return static_cast<int>(traces_.size()) - 1;
}

Result<ModelRegistry::Key> ModelRegistry::ownerOf(const ClusterState& state,
                                                  const api::Pod& pod) const {
  using enum api::WorkloadKind;
  const std::string& ns = pod.metadata.namespace_;
  const api::OwnerReference* ref = pod.metadata.controllerRef();
  if (ref != nullptr) {
    if (ref->kind == "ReplicaSet") {
      if (const api::ReplicaSet* rs = state.replicaSets.find(ns, ref->name)) {
        if (const auto* d = controllerOfKind(rs->metadata, "Deployment")) {
          return Key{kDeployment, ns, d->name};
        }
      }
    } else if (ref->kind == "StatefulSet") {
      return Key{kStatefulSet, ns, ref->name};
    } else if (ref->kind == "DaemonSet") {
      return Key{kDaemonSet, ns, ref->name};
    } else if (ref->kind == "Job") {
      if (const api::Job* job = state.jobs.find(ns, ref->name)) {
        if (const auto* cron = controllerOfKind(job->metadata, "CronJob")) {
          return Key{kCronJob, ns, cron->name};
        }
      }
      return Key{kJob, ns, ref->name};
    }
  }
  return fail(ErrorCode::kNotFound, "pod " + ns + "/" + pod.metadata.name +
                                        " is not owned by a workload of the scenario");
}

Result<UsageModelPtr> ModelRegistry::modelFor(const ClusterState& state, const api::Pod& pod,
                                              const api::Container& container) const {
  auto key = ownerOf(state, pod);
  if (!key) return std::unexpected(key.error());
  auto workload = workloads_.find(*key);
  if (workload == workloads_.end()) {
    return fail(ErrorCode::kNotFound, "pod " + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                          " is not owned by a workload of the scenario");
  }
  auto model = workload->second.find(container.name);
  if (model == workload->second.end()) {
    return fail(ErrorCode::kNotFound, "the scenario gives no usage model for container \"" +
                                          container.name + "\" of pod " + pod.metadata.namespace_ +
                                          "/" + pod.metadata.name);
  }
  const ContainerModel& m = model->second;
  ReplaySource replay;
  if (m.trace >= 0) replay = ReplaySource{traces_[m.trace].get(), simStart_};
  ServiceContext service{simStart_, nullptr, pod.metadata.name};
  if (auto it = services_.find(*key); it != services_.end()) {
    service.endpoints = it->second.endpoints;
  }
  return makeUsageModel(m.spec,
                        root_.fork("model/" + pod.metadata.namespace_ + "/" + pod.metadata.name +
                                   "/" + container.name),
                        replay, service);
}

}  // namespace attune::sim
