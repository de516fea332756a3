// kube::CachedClusterApi: an api::ClusterApi that serves reads from informer caches
// (kube/informer.h) kept current by sync(), and passes writes through to another ClusterApi.
//
// - sync() refreshes every informer from its watch (pods: watchPods; the other cached kinds: the
//   generic ClusterApi::watch), relisted every podResync, on 410 Gone and on other watch
//   failures. A kind the inner api cannot watch (kUnsupported) is relisted every listResync
//   (zero: every sync()). The controller calls it once per reconcile pass, then reads through this
//   object.
// - Cached reads: pods, nodes, deployments, statefulsets, daemonsets, replicasets, jobs,
//   cronjobs, limitranges, resourcequotas, hpas, poddisruptionbudgets, attunepolicies, and the
//   lists of attunedefaults and attunenamespacedefaults (where their CRDs are installed). list*
//   filter the cache by ListOptions (namespace, label selector with api::selectorMatches) and
//   return copies sorted by namespace then name, with the resourceVersion of the informer's last
//   LIST (pods: where the watch stands); get* answer kNotFound (`<resource> "<name>" not found`)
//   when the object is not cached. A read is passed to the inner api instead while its informer has
//   never synced, and when it asks for a namespace outside options().namespace_. With a
//   namespaceFilter, the caches hold the accepted namespaces' objects only, and every read is
//   answered from them: a rejected namespace reads as empty (lists empty, gets kNotFound) and
//   costs no request.
// - sharedNodes, sharedDeployments, sharedReplicaSets and sharedAttunePolicies hand out the
//   informers' shared lists (ListedInformer::shared: the cached objects themselves, never
//   copied; the same list while the cache is unchanged).
// - podView hands out the pod informer itself (api::PodView: pods by owner and by name, read in
//   place) once it has synced, for namespaces it covers.
// - watchPods follows the pod informer's log of recent changes (PodInformer::recentEvents): the
//   informer holds the only watch on the inner api, and a reader sees what sync() brought in.
//   Passed through while the pod informer has never synced or for a namespace it does not cover.
// - Uncached, passed through unchanged (api::ForwardingClusterApi): namespaces, events, leases,
//   the get of the defaults kinds, evictPod.
// - Writes go to the inner api; on success the object returned is recorded in the cache
//   (resizePod and the AttunePolicy writes return the whole object; the annotation patches
//   return metadata, which replaces the cached object's metadata), so the next read sees the
//   write even before the watch or the next LIST brings it. evictPod records nothing: the pod
//   leaves the cache with its DELETED watch event.
//
// Not thread-safe (as ClusterApi), but for runTasks' lanes. `inner` and `clock` must outlive this
// object.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "api/cluster_api.h"
#include "api/forwarding_cluster_api.h"
#include "core/clock.h"
#include "core/time.h"
#include "kube/informer.h"

namespace attune::kube {

struct CachedClusterApiOptions {
  // The namespace every namespaced kind is cached for ("" = all namespaces).
  std::string namespace_;
  // Full relist period of the pod informer (between relists it follows the watch).
  Duration podResync = std::chrono::minutes(30);
  // Relist period of the kinds the inner api cannot watch (zero: every sync()); the watched
  // ones are relisted every podResync.
  Duration listResync = Duration::zero();
  // Sharded: the namespaces this replica owns. Every namespaced kind (pods, workloads,
  // LimitRanges, ResourceQuotas, HPAs, PodDisruptionBudgets, AttunePolicies,
  // AttuneNamespaceDefaults) is cached for the namespaces it accepts only, filtered as each object
  // is decoded (InformerOptions::namespaceFilter); nodes and AttuneDefaults stay whole. Reads of
  // another namespace see it empty. Empty: every namespace.
  std::function<bool(std::string_view)> namespaceFilter;
  // No cache: sync() fills nothing, so every read goes to the inner api (a LIST per pass and
  // kind). What a controller without informers does; the scale run measures against it.
  bool listEveryRead = false;
  // getServerVersion() answers from the last successful answer for this long (every snapshot
  // asks for it: each pass, and each poll that reconciles a policy); an upgraded API server is
  // seen within it. Zero: every call asks the server.
  Duration serverVersionTtl = std::chrono::minutes(1);
};

class CachedClusterApi final : public api::ForwardingClusterApi {
 public:
  CachedClusterApi(api::ClusterApi& inner, Clock& clock, CachedClusterApiOptions options = {});
  ~CachedClusterApi() override;

  // Refreshes every informer, all of them even when one fails; returns the first error. An
  // informer that failed keeps its previous contents.
  Result<void> sync();

  const CachedClusterApiOptions& options() const { return options_; }
  const PodInformer& pods() const { return pods_; }
  const ListedInformer<api::Node>& nodes() const { return nodes_; }

  Result<api::Pod> getPod(std::string_view ns, std::string_view name) override;
  Result<api::List<api::Pod>> listPods(const api::ListOptions& options) override;
  Result<api::ServerVersion> getServerVersion() override;
  Result<api::Node> getNode(std::string_view name) override;
  Result<api::List<api::Node>> listNodes(const api::ListOptions& options) override;
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
  Result<api::List<api::PodDisruptionBudget>> listPodDisruptionBudgets(
      const api::ListOptions& options) override;
  Result<api::List<api::HorizontalPodAutoscaler>> listHpas(
      const api::ListOptions& options) override;
  Result<api::AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) override;
  Result<api::List<api::AttunePolicy>> listAttunePolicies(const api::ListOptions& options) override;
  Result<api::List<api::AttuneDefaults>> listAttuneDefaults(
      const api::ListOptions& options) override;
  Result<api::List<api::AttuneNamespaceDefaults>> listAttuneNamespaceDefaults(
      const api::ListOptions& options) override;
  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions& options,
                                              std::string_view resourceVersion) override;
  // The pod informer, once it has synced and when it covers `ns`: the controller reads the
  // pods of its targets there instead of listing copies of every pod.
  const api::PodView* podView(std::string_view ns) override;
  // The informers' lists (ListedInformer::shared) once synced and when they cover `ns`: the
  // snapshot and the controller read them without a copy per read.
  api::SharedList<api::Deployment> sharedDeployments(std::string_view ns) override;
  api::SharedList<api::ReplicaSet> sharedReplicaSets(std::string_view ns) override;
  api::SharedList<api::Node> sharedNodes() override;
  api::SharedList<api::AttunePolicy> sharedAttunePolicies(std::string_view ns) override;

  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view resourceVersion) override;
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view resourceVersion) override;
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override;
  Result<api::Node> updateNodeTaints(std::string_view name, std::span<const api::Taint> taints,
                                     std::string_view resourceVersion) override;
  Result<api::AttunePolicy> createAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override;
  std::vector<Result<api::AttunePolicy>> updateAttunePolicyStatuses(
      std::span<const api::AttunePolicy> policies) override;
  Result<api::HorizontalPodAutoscaler> updateHpa(const api::HorizontalPodAutoscaler& hpa) override;

  // When the inner api runs tasks several at once (its taskLanes()), each task is given one of its
  // lanes with the writes recorded in the caches as this object's are (under a lock: the lanes
  // run on threads of their own); its reads are the lane's, the API server's answers, not the
  // caches'. Otherwise the tasks run one after another on this object.
  void runTasks(std::span<const Task> tasks) override;
  std::size_t taskLanes() const override { return inner().taskLanes(); }

 private:
  // The writes made through an api (the inner one, or a lane of its runTasks), each recorded in
  // the caches once it succeeds.
  class RecordedWrites;
  // True when a read of namespace `ns` ("" = all) can be served by an informer that has synced.
  bool covers(bool synced, std::string_view ns) const;
  template <typename T>
  Result<api::List<T>> cachedList(const ListedInformer<T>& informer,
                                  typename ListedInformer<T>::ListFn list,
                                  const api::ListOptions& options);

  CachedClusterApiOptions options_;
  std::optional<api::ServerVersion> version_;  // the last answer
  ResyncSchedule versionSchedule_;             // when it came, and when to ask again
  PodInformer pods_;
  ListedInformer<api::Node> nodes_;
  ListedInformer<api::Deployment> deployments_;
  ListedInformer<api::StatefulSet> statefulSets_;
  ListedInformer<api::DaemonSet> daemonSets_;
  ListedInformer<api::ReplicaSet> replicaSets_;
  ListedInformer<api::Job> jobs_;
  ListedInformer<api::CronJob> cronJobs_;
  ListedInformer<api::LimitRange> limitRanges_;
  ListedInformer<api::ResourceQuota> quotas_;
  ListedInformer<api::HorizontalPodAutoscaler> hpas_;
  ListedInformer<api::PodDisruptionBudget> pdbs_;
  ListedInformer<api::AttunePolicy> policies_;
  // The defaults tiers; a LIST answered kNotFound (CRD not installed) leaves them unsynced, so
  // that their reads pass through and answer kNotFound as the API server does.
  ListedInformer<api::AttuneDefaults> clusterDefaults_;
  ListedInformer<api::AttuneNamespaceDefaults> namespaceDefaults_;
  std::mutex recordMutex_;                  // held while a write is recorded in the caches
  std::unique_ptr<RecordedWrites> writes_;  // through the inner api
};

}  // namespace attune::kube
