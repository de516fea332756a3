// A ClusterApi in front of another that fails requests on demand, as a flaky API server and
// network would: every call first asks a FaultInjector, then either forwards to the inner api
// or fails the way cluster_api.h's error contract says that failure looks to a client:
//   reads                timeout, throttled (429), server error (5xx): kUnavailable, nothing read
//   watchPods            the same, plus watch-dropped (kUnavailable, "watch stream closed") and
//                        watch-gone (410: kConflict, field "resourceVersion"); relist to resume
//   writes               timeout, throttled, server error: kUnavailable BEFORE the inner api is
//                        called (nothing applied); conflict (only for a write with a
//                        resourceVersion precondition): kConflict, nothing applied;
//                        response-lost: the inner write is made AFTER all (applied, whatever its
//                        own outcome) and the caller gets kUnavailable
// Preconditioned writes are patchPodAnnotations / patchWorkloadAnnotations with a resourceVersion,
// and updateEvent / updateAttunePolicy / updateAttunePolicyStatus / updateLease with
// metadata.resourceVersion set, and evictPod with deleteOptions preconditions.
//
// Every write is logged (writes()), with the fault it met and whether it reached the inner api,
// so that tests can count what was really applied. Owns nothing but the injector and the log;
// the inner api must outlive it. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "sim/faults/fault_injector.h"

namespace attune::sim {

// One write request as the wrapper saw it.
struct FaultWriteRecord {
  std::string method;  // e.g. "resizePod", "patchPodAnnotations"
  std::string namespace_;
  std::string name;
  FaultKind fault = FaultKind::kNone;
  bool reachedInner = false;                 // the inner api was called
  bool appliedByInner = false;               // ... and succeeded
  api::AnnotationChanges annotations;        // patch*Annotations: the changes asked for
  std::vector<api::ContainerResize> resize;  // resizePod: the containers asked for
};

class FaultClusterApi final : public api::ClusterApi {
 public:
  FaultClusterApi(api::ClusterApi& inner, FaultOptions options);

  FaultInjector& injector() { return injector_; }
  const FaultInjector& injector() const { return injector_; }
  // Every write so far, oldest first.
  const std::vector<FaultWriteRecord>& writes() const { return writes_; }
  // Calls of `method` (e.g. "resizePod") on `ns`/`name` that the inner api applied.
  std::size_t appliedWrites(std::string_view method, std::string_view ns,
                            std::string_view name) const;

  Result<api::Pod> getPod(std::string_view ns, std::string_view name) override;
  Result<api::List<api::Pod>> listPods(const api::ListOptions& options) override;
  Result<api::Node> getNode(std::string_view name) override;
  Result<api::List<api::Node>> listNodes(const api::ListOptions& options) override;
  Result<api::Namespace> getNamespace(std::string_view name) override;
  Result<api::List<api::Namespace>> listNamespaces(const api::ListOptions& options) override;
  Result<api::Deployment> getDeployment(std::string_view ns, std::string_view name) override;
  Result<api::List<api::Deployment>> listDeployments(const api::ListOptions& options) override;
  Result<api::StatefulSet> getStatefulSet(std::string_view ns, std::string_view name) override;
  Result<api::List<api::StatefulSet>> listStatefulSets(const api::ListOptions& options) override;
  Result<api::DaemonSet> getDaemonSet(std::string_view ns, std::string_view name) override;
  Result<api::List<api::DaemonSet>> listDaemonSets(const api::ListOptions& options) override;
  Result<api::ReplicaSet> getReplicaSet(std::string_view ns, std::string_view name) override;
  Result<api::List<api::ReplicaSet>> listReplicaSets(const api::ListOptions& options) override;
  Result<api::Job> getJob(std::string_view ns, std::string_view name) override;
  Result<api::List<api::Job>> listJobs(const api::ListOptions& options) override;
  Result<api::CronJob> getCronJob(std::string_view ns, std::string_view name) override;
  Result<api::List<api::CronJob>> listCronJobs(const api::ListOptions& options) override;
  Result<api::List<api::LimitRange>> listLimitRanges(const api::ListOptions& options) override;
  Result<api::List<api::ResourceQuota>> listResourceQuotas(
      const api::ListOptions& options) override;
  Result<api::List<api::HorizontalPodAutoscaler>> listHpas(
      const api::ListOptions& options) override;
  Result<api::List<api::Event>> listEvents(const api::ListOptions& options) override;
  Result<api::AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) override;
  Result<api::List<api::AttunePolicy>> listAttunePolicies(const api::ListOptions& options) override;
  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions& options,
                                              std::string_view resourceVersion) override;

  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view resourceVersion) override;
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view resourceVersion) override;
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override;
  Result<void> evictPod(const api::Eviction& eviction) override;
  Result<api::Event> createEvent(const api::Event& event) override;
  Result<api::Event> updateEvent(const api::Event& event) override;
  Result<api::AttunePolicy> createAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override;
  Result<api::Lease> getLease(std::string_view ns, std::string_view name) override;
  Result<api::Lease> createLease(const api::Lease& lease) override;
  Result<api::Lease> updateLease(const api::Lease& lease) override;

 private:
  // The error a client sees for `fault` on `method`.
  Error errorFor(FaultKind fault, std::string_view method) const;

  template <typename Call>
  auto read(std::string_view method, Call call) -> decltype(call());

  // Decides the fault for a write, logs it, and forwards as the fault allows.
  template <typename Call>
  auto write(FaultWriteRecord record, bool conditional, Call call) -> decltype(call());

  api::ClusterApi& inner_;
  FaultInjector injector_;
  std::vector<FaultWriteRecord> writes_;
};

}  // namespace attune::sim
