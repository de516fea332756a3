// sim::Cluster: the ClusterApi served in process from a ClusterState, with the API server's
// semantics (preconditions, validation, resourceVersion and generation bookkeeping).
#pragma once

#include "api/cluster_api.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Not thread-safe; `state` must outlive the Cluster. Several Clusters may share one state.
class Cluster final : public api::ClusterApi {
 public:
  explicit Cluster(ClusterState& state) : state_(state) {}

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
  Result<api::HorizontalPodAutoscaler> getHpa(std::string_view ns, std::string_view name) override;
  Result<api::List<api::HorizontalPodAutoscaler>> listHpas(
      const api::ListOptions& options) override;
  Result<api::List<api::PodDisruptionBudget>> listPodDisruptionBudgets(
      const api::ListOptions& options) override;
  Result<api::List<api::Event>> listEvents(const api::ListOptions& options) override;
  Result<api::AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) override;
  Result<api::List<api::AttunePolicy>> listAttunePolicies(const api::ListOptions& options) override;
  Result<api::AttuneDefaults> getAttuneDefaults(std::string_view name) override;
  Result<api::List<api::AttuneDefaults>> listAttuneDefaults(
      const api::ListOptions& options) override;
  Result<api::AttuneNamespaceDefaults> getAttuneNamespaceDefaults(std::string_view ns,
                                                                  std::string_view name) override;
  Result<api::List<api::AttuneNamespaceDefaults>> listAttuneNamespaceDefaults(
      const api::ListOptions& options) override;

  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions& options,
                                              std::string_view resourceVersion) override;

  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view resourceVersion) override;
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view resourceVersion) override;
  // Admission is ClusterState::admitPodResize. The kubelet model (sim/kubelet) acts on the
  // difference between the new spec and the pod's status; nothing else is handed over.
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override;
  // sim::evictThroughBudgets (pod_eviction.h): the budgets' status is the one the simulated
  // disruption controller keeps (sim/control/disruption_controller.h).
  Result<void> evictPod(const api::Eviction& eviction) override;
  // Fills what a client-go recorder would have set when the request leaves it empty: count 1,
  // firstTimestamp = eventTime or now, lastTimestamp = firstTimestamp. (The API server itself
  // stores them as given: a client of a real cluster must set them.)
  Result<api::Event> createEvent(const api::Event& event) override;
  Result<api::Event> updateEvent(const api::Event& event) override;
  Result<api::HorizontalPodAutoscaler> updateHpa(const api::HorizontalPodAutoscaler& hpa) override;
  Result<api::Lease> getLease(std::string_view ns, std::string_view name) override;
  Result<api::WebhookConfiguration> getWebhookConfiguration(api::WebhookConfigurationKind kind,
                                                            std::string_view name) override;
  // The version the simulated API server runs (ClusterState::kubernetesVersion).
  Result<api::ServerVersion> getServerVersion() override;
  Result<api::WebhookConfiguration> patchWebhookCaBundles(
      const api::WebhookConfiguration& config) override;
  Result<api::Node> updateNodeTaints(std::string_view name, std::span<const api::Taint> taints,
                                     std::string_view resourceVersion) override;
  Result<api::Lease> createLease(const api::Lease& lease) override;
  Result<api::Lease> updateLease(const api::Lease& lease) override;
  // From ClusterState::secrets (ClusterApi has no Secret writes: tests store them there).
  Result<api::Secret> getSecret(std::string_view ns, std::string_view name) override;
  // Policies are stored as given beyond the rules of cluster_api.h: neither defaulted nor
  // validated (the controller does both when it reads them), as for a custom resource without
  // a validating webhook. Fields kept in AttunePolicy::preserved follow their part: "status..."
  // paths with the status, the others with spec and metadata.
  Result<api::AttunePolicy> createAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override;

 private:
  ClusterState& state_;
};

}  // namespace attune::sim
