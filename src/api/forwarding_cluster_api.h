// ForwardingClusterApi: a ClusterApi that passes every call, unchanged, to another ClusterApi.
// The base for wrappers that change only a few calls (count them, fail them, delay them):
// derive, override those, and reach the wrapped api through inner(). A wrapper that acts on
// every call alike (fails any of them, logs every write) overrides the two hooks instead.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "api/cluster_api.h"

namespace attune::api {

// One call as ForwardingClusterApi's hooks see it. Views into the caller's arguments: valid
// only during the hook.
struct ForwardedCall {
  enum class Kind { kRead, kWatch, kWrite };
  std::string_view method;  // the ClusterApi method: "getPod", "watchPods", "resizePod", ...
  Kind kind = Kind::kRead;
  // The object named by the call (get* and writes; empty for list* and watchPods).
  std::string_view namespace_;
  std::string_view name;
  // A write with a precondition the server may find stale: patchPodAnnotations /
  // patchWorkloadAnnotations / updateNodeTaints with a resourceVersion; updateEvent /
  // updateAttunePolicy / updateAttunePolicyStatus / updateHpa / updateLease with
  // metadata.resourceVersion set; evictPod with a uid or resourceVersion precondition in
  // deleteOptions.
  bool preconditioned = false;
  const AnnotationChanges* annotations = nullptr;  // patch*Annotations: the changes asked for
  std::span<const ContainerResize> resize;         // resizePod: the containers asked for
};

// Every method asks admit() first: an error it gives is returned without calling inner().
// Otherwise the call is forwarded, then completed() is told whether inner() succeeded: an error
// it gives replaces inner()'s result. With the default hooks (admit everything, replace nothing)
// every method returns exactly what the same call on inner() returns. Holds a reference to
// `inner`, which must outlive this object. Thread-safety is that of `inner` and the hooks.
class ForwardingClusterApi : public ClusterApi {
 public:
  explicit ForwardingClusterApi(ClusterApi& inner) : inner_(inner) {}
  ForwardingClusterApi(const ForwardingClusterApi&) = delete;
  ForwardingClusterApi& operator=(const ForwardingClusterApi&) = delete;

  Result<Pod> getPod(std::string_view ns, std::string_view name) override;
  Result<List<Pod>> listPods(const ListOptions& options) override;
  Result<Node> getNode(std::string_view name) override;
  Result<List<Node>> listNodes(const ListOptions& options) override;
  Result<Namespace> getNamespace(std::string_view name) override;
  Result<List<Namespace>> listNamespaces(const ListOptions& options) override;
  Result<Deployment> getDeployment(std::string_view ns, std::string_view name) override;
  Result<List<Deployment>> listDeployments(const ListOptions& options) override;
  Result<StatefulSet> getStatefulSet(std::string_view ns, std::string_view name) override;
  Result<List<StatefulSet>> listStatefulSets(const ListOptions& options) override;
  Result<DaemonSet> getDaemonSet(std::string_view ns, std::string_view name) override;
  Result<List<DaemonSet>> listDaemonSets(const ListOptions& options) override;
  Result<ReplicaSet> getReplicaSet(std::string_view ns, std::string_view name) override;
  Result<List<ReplicaSet>> listReplicaSets(const ListOptions& options) override;
  Result<Job> getJob(std::string_view ns, std::string_view name) override;
  Result<List<Job>> listJobs(const ListOptions& options) override;
  Result<CronJob> getCronJob(std::string_view ns, std::string_view name) override;
  Result<List<CronJob>> listCronJobs(const ListOptions& options) override;
  Result<List<LimitRange>> listLimitRanges(const ListOptions& options) override;
  Result<List<ResourceQuota>> listResourceQuotas(const ListOptions& options) override;
  Result<HorizontalPodAutoscaler> getHpa(std::string_view ns, std::string_view name) override;
  Result<List<HorizontalPodAutoscaler>> listHpas(const ListOptions& options) override;
  Result<List<PodDisruptionBudget>> listPodDisruptionBudgets(const ListOptions& options) override;
  Result<List<Event>> listEvents(const ListOptions& options) override;
  Result<AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) override;
  Result<List<AttunePolicy>> listAttunePolicies(const ListOptions& options) override;
  Result<AttuneDefaults> getAttuneDefaults(std::string_view name) override;
  Result<List<AttuneDefaults>> listAttuneDefaults(const ListOptions& options) override;
  Result<AttuneNamespaceDefaults> getAttuneNamespaceDefaults(std::string_view ns,
                                                             std::string_view name) override;
  Result<List<AttuneNamespaceDefaults>> listAttuneNamespaceDefaults(
      const ListOptions& options) override;

  Result<WatchBatch<Pod>> watchPods(const ListOptions& options,
                                    std::string_view resourceVersion) override;
  Result<List<Pod>> listPodsPage(const ListOptions& options, std::size_t limit,
                                 std::string_view continueToken) override;
  Result<WatchBatch<Node>> watch(Watched<Node> kind, const ListOptions& options,
                                 std::string_view resourceVersion) override;
  Result<WatchBatch<Deployment>> watch(Watched<Deployment> kind, const ListOptions& options,
                                       std::string_view resourceVersion) override;
  Result<WatchBatch<StatefulSet>> watch(Watched<StatefulSet> kind, const ListOptions& options,
                                        std::string_view resourceVersion) override;
  Result<WatchBatch<DaemonSet>> watch(Watched<DaemonSet> kind, const ListOptions& options,
                                      std::string_view resourceVersion) override;
  Result<WatchBatch<ReplicaSet>> watch(Watched<ReplicaSet> kind, const ListOptions& options,
                                       std::string_view resourceVersion) override;
  Result<WatchBatch<Job>> watch(Watched<Job> kind, const ListOptions& options,
                                std::string_view resourceVersion) override;
  Result<WatchBatch<CronJob>> watch(Watched<CronJob> kind, const ListOptions& options,
                                    std::string_view resourceVersion) override;
  Result<WatchBatch<LimitRange>> watch(Watched<LimitRange> kind, const ListOptions& options,
                                       std::string_view resourceVersion) override;
  Result<WatchBatch<ResourceQuota>> watch(Watched<ResourceQuota> kind, const ListOptions& options,
                                          std::string_view resourceVersion) override;
  Result<WatchBatch<HorizontalPodAutoscaler>> watch(Watched<HorizontalPodAutoscaler> kind,
                                                    const ListOptions& options,
                                                    std::string_view resourceVersion) override;
  Result<WatchBatch<PodDisruptionBudget>> watch(Watched<PodDisruptionBudget> kind,
                                                const ListOptions& options,
                                                std::string_view resourceVersion) override;
  Result<WatchBatch<AttunePolicy>> watch(Watched<AttunePolicy> kind, const ListOptions& options,
                                         std::string_view resourceVersion) override;
  Result<WatchBatch<AttuneDefaults>> watch(Watched<AttuneDefaults> kind, const ListOptions& options,
                                           std::string_view resourceVersion) override;
  Result<WatchBatch<AttuneNamespaceDefaults>> watch(Watched<AttuneNamespaceDefaults> kind,
                                                    const ListOptions& options,
                                                    std::string_view resourceVersion) override;
  // inner()'s view, without the hooks: reads through a view do not fail.
  const PodView* podView(std::string_view ns) override { return inner_.podView(ns); }
  // inner()'s shared lists, likewise without the hooks.
  SharedList<Deployment> sharedDeployments(std::string_view ns) override {
    return inner_.sharedDeployments(ns);
  }
  SharedList<ReplicaSet> sharedReplicaSets(std::string_view ns) override {
    return inner_.sharedReplicaSets(ns);
  }
  SharedList<Node> sharedNodes() override { return inner_.sharedNodes(); }
  SharedList<AttunePolicy> sharedAttunePolicies(std::string_view ns) override {
    return inner_.sharedAttunePolicies(ns);
  }

  Result<ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                         const AnnotationChanges& changes,
                                         std::string_view resourceVersion) override;
  Result<ObjectMeta> patchWorkloadAnnotations(WorkloadKind kind, std::string_view ns,
                                              std::string_view name,
                                              const AnnotationChanges& changes,
                                              std::string_view resourceVersion) override;
  Result<Pod> resizePod(std::string_view ns, std::string_view name,
                        std::span<const ContainerResize> containers) override;
  Result<void> evictPod(const Eviction& eviction) override;
  Result<Event> createEvent(const Event& event) override;
  Result<Event> updateEvent(const Event& event) override;
  Result<AttunePolicy> createAttunePolicy(const AttunePolicy& policy) override;
  Result<AttunePolicy> updateAttunePolicy(const AttunePolicy& policy) override;
  Result<AttunePolicy> updateAttunePolicyStatus(const AttunePolicy& policy) override;
  Result<HorizontalPodAutoscaler> updateHpa(const HorizontalPodAutoscaler& hpa) override;
  Result<Lease> getLease(std::string_view ns, std::string_view name) override;
  Result<WebhookConfiguration> getWebhookConfiguration(WebhookConfigurationKind kind,
                                                       std::string_view name) override;
  Result<ServerVersion> getServerVersion() override;
  Result<WebhookConfiguration> patchWebhookCaBundles(const WebhookConfiguration& config) override;
  Result<Node> updateNodeTaints(std::string_view name, std::span<const Taint> taints,
                                std::string_view resourceVersion) override;
  Result<Lease> createLease(const Lease& lease) override;
  Result<Lease> updateLease(const Lease& lease) override;
  Result<Secret> getSecret(std::string_view ns, std::string_view name) override;

 protected:
  // The wrapped api, for overrides that forward after (or instead of) their own work.
  ClusterApi& inner() { return inner_; }
  const ClusterApi& inner() const { return inner_; }

  // Before `call` is forwarded: an error to return instead, or nullopt to forward it.
  virtual std::optional<Error> admit(const ForwardedCall& call);
  // After `call` was forwarded (`succeeded`: inner() returned a value): an error to return in
  // place of inner()'s result, or nullopt to return that result.
  virtual std::optional<Error> completed(const ForwardedCall& call, bool succeeded);

 private:
  // admit(), then `forwardCall` (the call on inner()), then completed().
  template <typename Call>
  auto forward(const ForwardedCall& call, Call forwardCall) -> decltype(forwardCall());

  ClusterApi& inner_;
};

}  // namespace attune::api
