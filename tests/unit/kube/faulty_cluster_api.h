// A ClusterApi for informer tests: forwards every call to another ClusterApi (a sim::Cluster)
// and injects the faults an informer must survive — a failed LIST, a failed watch, a watch that
// loses events or lags behind.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>

#include "api/cluster_api.h"

namespace attune::kube::testing {

class FaultyClusterApi final : public api::ClusterApi {
 public:
  explicit FaultyClusterApi(api::ClusterApi& inner) : inner_(inner) {}

  // One-shot faults: the next listPods / watchPods call fails with this error.
  std::optional<Error> listPodsError;
  std::optional<Error> watchError;
  // Every watch batch arrives without its events (the resourceVersion still advances): a
  // watch that silently lost changes.
  bool dropWatchEvents = false;
  // At most this many events per watch batch, resuming after the last one delivered: a watch
  // that lags behind the server.
  std::optional<std::size_t> watchLimit;

  int listPodsCalls = 0;
  int watchCalls = 0;
  int listDeploymentsCalls = 0;
  int getPodCalls = 0;

  Result<api::Pod> getPod(std::string_view ns, std::string_view name) override {
    ++getPodCalls;
    return inner_.getPod(ns, name);
  }
  Result<api::List<api::Pod>> listPods(const api::ListOptions& options) override {
    ++listPodsCalls;
    if (listPodsError) return std::unexpected(*std::exchange(listPodsError, std::nullopt));
    return inner_.listPods(options);
  }
  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions& options,
                                              std::string_view resourceVersion) override {
    ++watchCalls;
    if (watchError) return std::unexpected(*std::exchange(watchError, std::nullopt));
    auto batch = inner_.watchPods(options, resourceVersion);
    if (!batch) return batch;
    if (dropWatchEvents) batch->events.clear();
    if (watchLimit && batch->events.size() > *watchLimit) {
      batch->events.resize(*watchLimit);
      batch->resourceVersion = batch->events.empty()
                                   ? std::string(resourceVersion)
                                   : batch->events.back().object.metadata.resourceVersion;
    }
    return batch;
  }
  Result<api::List<api::Deployment>> listDeployments(const api::ListOptions& options) override {
    ++listDeploymentsCalls;
    return inner_.listDeployments(options);
  }

  // --- Forwarded unchanged.
  Result<api::Node> getNode(std::string_view name) override { return inner_.getNode(name); }
  Result<api::List<api::Node>> listNodes(const api::ListOptions& o) override {
    return inner_.listNodes(o);
  }
  Result<api::Namespace> getNamespace(std::string_view name) override {
    return inner_.getNamespace(name);
  }
  Result<api::List<api::Namespace>> listNamespaces(const api::ListOptions& o) override {
    return inner_.listNamespaces(o);
  }
  Result<api::Deployment> getDeployment(std::string_view ns, std::string_view name) override {
    return inner_.getDeployment(ns, name);
  }
  Result<api::StatefulSet> getStatefulSet(std::string_view ns, std::string_view name) override {
    return inner_.getStatefulSet(ns, name);
  }
  Result<api::List<api::StatefulSet>> listStatefulSets(const api::ListOptions& o) override {
    return inner_.listStatefulSets(o);
  }
  Result<api::DaemonSet> getDaemonSet(std::string_view ns, std::string_view name) override {
    return inner_.getDaemonSet(ns, name);
  }
  Result<api::List<api::DaemonSet>> listDaemonSets(const api::ListOptions& o) override {
    return inner_.listDaemonSets(o);
  }
  Result<api::ReplicaSet> getReplicaSet(std::string_view ns, std::string_view name) override {
    return inner_.getReplicaSet(ns, name);
  }
  Result<api::List<api::ReplicaSet>> listReplicaSets(const api::ListOptions& o) override {
    return inner_.listReplicaSets(o);
  }
  Result<api::Job> getJob(std::string_view ns, std::string_view name) override {
    return inner_.getJob(ns, name);
  }
  Result<api::List<api::Job>> listJobs(const api::ListOptions& o) override {
    return inner_.listJobs(o);
  }
  Result<api::CronJob> getCronJob(std::string_view ns, std::string_view name) override {
    return inner_.getCronJob(ns, name);
  }
  Result<api::List<api::CronJob>> listCronJobs(const api::ListOptions& o) override {
    return inner_.listCronJobs(o);
  }
  Result<api::List<api::LimitRange>> listLimitRanges(const api::ListOptions& o) override {
    return inner_.listLimitRanges(o);
  }
  Result<api::List<api::ResourceQuota>> listResourceQuotas(const api::ListOptions& o) override {
    return inner_.listResourceQuotas(o);
  }
  Result<api::List<api::HorizontalPodAutoscaler>> listHpas(const api::ListOptions& o) override {
    return inner_.listHpas(o);
  }
  Result<api::List<api::Event>> listEvents(const api::ListOptions& o) override {
    return inner_.listEvents(o);
  }
  Result<api::AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) override {
    return inner_.getAttunePolicy(ns, name);
  }
  Result<api::List<api::AttunePolicy>> listAttunePolicies(const api::ListOptions& o) override {
    return inner_.listAttunePolicies(o);
  }
  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view rv) override {
    return inner_.patchPodAnnotations(ns, name, changes, rv);
  }
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view rv) override {
    return inner_.patchWorkloadAnnotations(kind, ns, name, changes, rv);
  }
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override {
    return inner_.resizePod(ns, name, containers);
  }
  Result<void> evictPod(const api::Eviction& e) override { return inner_.evictPod(e); }
  Result<api::Event> createEvent(const api::Event& e) override { return inner_.createEvent(e); }
  Result<api::Event> updateEvent(const api::Event& e) override { return inner_.updateEvent(e); }
  Result<api::AttunePolicy> createAttunePolicy(const api::AttunePolicy& p) override {
    return inner_.createAttunePolicy(p);
  }
  Result<api::AttunePolicy> updateAttunePolicy(const api::AttunePolicy& p) override {
    return inner_.updateAttunePolicy(p);
  }
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& p) override {
    return inner_.updateAttunePolicyStatus(p);
  }
  Result<api::Lease> getLease(std::string_view ns, std::string_view name) override {
    return inner_.getLease(ns, name);
  }
  Result<api::Lease> createLease(const api::Lease& l) override { return inner_.createLease(l); }
  Result<api::Lease> updateLease(const api::Lease& l) override { return inner_.updateLease(l); }

 private:
  api::ClusterApi& inner_;
};

}  // namespace attune::kube::testing
