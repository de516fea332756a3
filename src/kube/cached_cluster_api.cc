#include "kube/cached_cluster_api.h"

#include <mutex>
#include <utility>

namespace attune::kube {
namespace {

// A copy of `object`, or the API server's 404 for it.
template <typename T>
Result<T> found(const T* object, std::string_view resource, std::string_view name) {
  if (object != nullptr) return *object;
  return fail(ErrorCode::kNotFound,
              std::string(resource) + " \"" + std::string(name) + "\" not found");
}

InformerOptions listedOptions(const CachedClusterApiOptions& options, bool namespaced) {
  InformerOptions out;
  if (namespaced) {
    out.list.namespace_ = options.namespace_;
    out.namespaceFilter = options.namespaceFilter;
  }
  out.resyncPeriod = options.podResync;  // while watched, as pods
  out.unwatchedResync = options.listResync;
  return out;
}

InformerOptions podOptions(const CachedClusterApiOptions& options) {
  InformerOptions out;
  out.list.namespace_ = options.namespace_;
  out.namespaceFilter = options.namespaceFilter;
  out.resyncPeriod = options.podResync;
  return out;
}

}  // namespace

// The writes made through an api (the inner one, or a lane of its runTasks), each recorded in
// the caches once it succeeds.
class CachedClusterApi::RecordedWrites final : public api::ForwardingClusterApi {
 public:
  RecordedWrites(CachedClusterApi& cache, api::ClusterApi& through)
      : ForwardingClusterApi(through), cache_(cache) {}

  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view resourceVersion) override {
    auto meta = inner().patchPodAnnotations(ns, name, changes, resourceVersion);
    if (meta) record(cache_.pods_, *meta);
    return meta;
  }
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view resourceVersion) override {
    auto meta = inner().patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion);
    if (!meta) return meta;
    using enum api::WorkloadKind;
    switch (kind) {
      case kDeployment:
        record(cache_.deployments_, *meta);
        break;
      case kStatefulSet:
        record(cache_.statefulSets_, *meta);
        break;
      case kDaemonSet:
        record(cache_.daemonSets_, *meta);
        break;
      case kReplicaSet:
        record(cache_.replicaSets_, *meta);
        break;
      case kJob:
        record(cache_.jobs_, *meta);
        break;
      case kCronJob:
        record(cache_.cronJobs_, *meta);
        break;
    }
    return meta;
  }
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override {
    return recorded(cache_.pods_, inner().resizePod(ns, name, containers));
  }
  Result<api::Node> updateNodeTaints(std::string_view name, std::span<const api::Taint> taints,
                                     std::string_view resourceVersion) override {
    return recorded(cache_.nodes_, inner().updateNodeTaints(name, taints, resourceVersion));
  }
  Result<api::AttunePolicy> createAttunePolicy(const api::AttunePolicy& policy) override {
    return recorded(cache_.policies_, inner().createAttunePolicy(policy));
  }
  Result<api::AttunePolicy> updateAttunePolicy(const api::AttunePolicy& policy) override {
    return recorded(cache_.policies_, inner().updateAttunePolicy(policy));
  }
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override {
    return recorded(cache_.policies_, inner().updateAttunePolicyStatus(policy));
  }
  std::vector<Result<api::AttunePolicy>> updateAttunePolicyStatuses(
      std::span<const api::AttunePolicy> policies) override {
    auto stored = inner().updateAttunePolicyStatuses(policies);
    for (const auto& policy : stored) {
      if (policy) record(cache_.policies_, *policy);
    }
    return stored;
  }
  Result<api::HorizontalPodAutoscaler> updateHpa(const api::HorizontalPodAutoscaler& hpa) override {
    return recorded(cache_.hpas_, inner().updateHpa(hpa));
  }

 private:
  template <typename Informer, typename Object>
  void record(Informer& informer, const Object& written) {
    const std::lock_guard lock(cache_.recordMutex_);
    informer.recordWrite(written);
  }
  template <typename Informer, typename Object>
  Result<Object> recorded(Informer& informer, Result<Object> written) {
    if (written) record(informer, *written);
    return written;
  }

  CachedClusterApi& cache_;
};

CachedClusterApi::CachedClusterApi(api::ClusterApi& inner, Clock& clock,
                                   CachedClusterApiOptions options)
    : ForwardingClusterApi(inner),
      options_(std::move(options)),
      versionSchedule_(clock, options_.serverVersionTtl),
      pods_(inner, clock, podOptions(options_)),
      nodes_(inner, &api::ClusterApi::listNodes, clock, listedOptions(options_, false)),
      deployments_(inner, &api::ClusterApi::listDeployments, clock, listedOptions(options_, true)),
      statefulSets_(inner, &api::ClusterApi::listStatefulSets, clock,
                    listedOptions(options_, true)),
      daemonSets_(inner, &api::ClusterApi::listDaemonSets, clock, listedOptions(options_, true)),
      replicaSets_(inner, &api::ClusterApi::listReplicaSets, clock, listedOptions(options_, true)),
      jobs_(inner, &api::ClusterApi::listJobs, clock, listedOptions(options_, true)),
      cronJobs_(inner, &api::ClusterApi::listCronJobs, clock, listedOptions(options_, true)),
      limitRanges_(inner, &api::ClusterApi::listLimitRanges, clock, listedOptions(options_, true)),
      quotas_(inner, &api::ClusterApi::listResourceQuotas, clock, listedOptions(options_, true)),
      hpas_(inner, &api::ClusterApi::listHpas, clock, listedOptions(options_, true)),
      pdbs_(inner, &api::ClusterApi::listPodDisruptionBudgets, clock,
            listedOptions(options_, true)),
      policies_(inner, &api::ClusterApi::listAttunePolicies, clock, listedOptions(options_, true)),
      clusterDefaults_(inner, &api::ClusterApi::listAttuneDefaults, clock,
                       listedOptions(options_, false)),
      namespaceDefaults_(inner, &api::ClusterApi::listAttuneNamespaceDefaults, clock,
                         listedOptions(options_, true)),
      writes_(std::make_unique<RecordedWrites>(*this, inner)) {}

CachedClusterApi::~CachedClusterApi() = default;

Result<void> CachedClusterApi::sync() {
  if (options_.listEveryRead) return {};
  Result<void> first;
  auto keep = [&first](Result<void> result) {
    if (!result && first) first = std::move(result);
  };
  keep(pods_.sync());
  keep(nodes_.sync());
  keep(deployments_.sync());
  keep(statefulSets_.sync());
  keep(daemonSets_.sync());
  keep(replicaSets_.sync());
  keep(jobs_.sync());
  keep(cronJobs_.sync());
  keep(limitRanges_.sync());
  keep(quotas_.sync());
  keep(hpas_.sync());
  keep(pdbs_.sync());
  keep(policies_.sync());
  // Without their CRDs the defaults kinds answer kNotFound: no defaults, not a failure.
  const auto installed = [](Result<void> result) {
    return result || result.error().code != ErrorCode::kNotFound ? result : Result<void>{};
  };
  keep(installed(clusterDefaults_.sync()));
  keep(installed(namespaceDefaults_.sync()));
  return first;
}

bool CachedClusterApi::covers(bool synced, std::string_view ns) const {
  // A namespace the namespaceFilter rejects is covered too: the cache holds none of its objects,
  // which is what this replica is to see of it, and no request goes out for it.
  return synced && (options_.namespace_.empty() || ns == options_.namespace_);
}

template <typename T>
Result<api::List<T>> CachedClusterApi::cachedList(const ListedInformer<T>& informer,
                                                  typename ListedInformer<T>::ListFn list,
                                                  const api::ListOptions& options) {
  if (!covers(informer.synced(), options.namespace_)) return (inner().*list)(options);
  return api::List<T>{informer.list(options), informer.resourceVersion(), {}, {}};
}

// --- Reads

Result<api::Pod> CachedClusterApi::getPod(std::string_view ns, std::string_view name) {
  if (!covers(pods_.synced(), ns)) return inner().getPod(ns, name);
  return found(pods_.get(ns, name), "pods", name);
}

Result<api::ServerVersion> CachedClusterApi::getServerVersion() {
  if (!options_.listEveryRead && version_ && !versionSchedule_.due()) return *version_;
  auto version = ForwardingClusterApi::getServerVersion();
  if (version) {
    version_ = *version;
    versionSchedule_.listed();
  }
  return version;
}

Result<api::List<api::Pod>> CachedClusterApi::listPods(const api::ListOptions& options) {
  if (!covers(pods_.synced(), options.namespace_)) return inner().listPods(options);
  return api::List<api::Pod>{pods_.list(options), pods_.resourceVersion(), {}, {}};
}

Result<api::Node> CachedClusterApi::getNode(std::string_view name) {
  if (!nodes_.synced()) return inner().getNode(name);
  return found(nodes_.get("", name), "nodes", name);
}

Result<api::List<api::Node>> CachedClusterApi::listNodes(const api::ListOptions& options) {
  if (!nodes_.synced()) return inner().listNodes(options);
  api::ListOptions all = options;
  all.namespace_.clear();  // cluster-scoped
  return api::List<api::Node>{nodes_.list(all), nodes_.resourceVersion(), {}, {}};
}

Result<api::Deployment> CachedClusterApi::getDeployment(std::string_view ns,
                                                        std::string_view name) {
  if (!covers(deployments_.synced(), ns)) return inner().getDeployment(ns, name);
  return found(deployments_.get(ns, name), "deployments.apps", name);
}

Result<api::List<api::Deployment>> CachedClusterApi::listDeployments(
    const api::ListOptions& options) {
  return cachedList(deployments_, &api::ClusterApi::listDeployments, options);
}

Result<api::StatefulSet> CachedClusterApi::getStatefulSet(std::string_view ns,
                                                          std::string_view name) {
  if (!covers(statefulSets_.synced(), ns)) return inner().getStatefulSet(ns, name);
  return found(statefulSets_.get(ns, name), "statefulsets.apps", name);
}

Result<api::List<api::StatefulSet>> CachedClusterApi::listStatefulSets(
    const api::ListOptions& options) {
  return cachedList(statefulSets_, &api::ClusterApi::listStatefulSets, options);
}

Result<api::DaemonSet> CachedClusterApi::getDaemonSet(std::string_view ns, std::string_view name) {
  if (!covers(daemonSets_.synced(), ns)) return inner().getDaemonSet(ns, name);
  return found(daemonSets_.get(ns, name), "daemonsets.apps", name);
}

Result<api::List<api::DaemonSet>> CachedClusterApi::listDaemonSets(
    const api::ListOptions& options) {
  return cachedList(daemonSets_, &api::ClusterApi::listDaemonSets, options);
}

Result<api::ReplicaSet> CachedClusterApi::getReplicaSet(std::string_view ns,
                                                        std::string_view name) {
  if (!covers(replicaSets_.synced(), ns)) return inner().getReplicaSet(ns, name);
  return found(replicaSets_.get(ns, name), "replicasets.apps", name);
}

Result<api::List<api::ReplicaSet>> CachedClusterApi::listReplicaSets(
    const api::ListOptions& options) {
  return cachedList(replicaSets_, &api::ClusterApi::listReplicaSets, options);
}

Result<api::Job> CachedClusterApi::getJob(std::string_view ns, std::string_view name) {
  if (!covers(jobs_.synced(), ns)) return inner().getJob(ns, name);
  return found(jobs_.get(ns, name), "jobs.batch", name);
}

Result<api::List<api::Job>> CachedClusterApi::listJobs(const api::ListOptions& options) {
  return cachedList(jobs_, &api::ClusterApi::listJobs, options);
}

Result<api::CronJob> CachedClusterApi::getCronJob(std::string_view ns, std::string_view name) {
  if (!covers(cronJobs_.synced(), ns)) return inner().getCronJob(ns, name);
  return found(cronJobs_.get(ns, name), "cronjobs.batch", name);
}

Result<api::List<api::CronJob>> CachedClusterApi::listCronJobs(const api::ListOptions& options) {
  return cachedList(cronJobs_, &api::ClusterApi::listCronJobs, options);
}

Result<api::List<api::LimitRange>> CachedClusterApi::listLimitRanges(
    const api::ListOptions& options) {
  return cachedList(limitRanges_, &api::ClusterApi::listLimitRanges, options);
}

Result<api::List<api::ResourceQuota>> CachedClusterApi::listResourceQuotas(
    const api::ListOptions& options) {
  return cachedList(quotas_, &api::ClusterApi::listResourceQuotas, options);
}

Result<api::List<api::HorizontalPodAutoscaler>> CachedClusterApi::listHpas(
    const api::ListOptions& options) {
  return cachedList(hpas_, &api::ClusterApi::listHpas, options);
}

Result<api::List<api::PodDisruptionBudget>> CachedClusterApi::listPodDisruptionBudgets(
    const api::ListOptions& options) {
  return cachedList(pdbs_, &api::ClusterApi::listPodDisruptionBudgets, options);
}

Result<api::HorizontalPodAutoscaler> CachedClusterApi::getHpa(std::string_view ns,
                                                              std::string_view name) {
  if (!covers(hpas_.synced(), ns)) return inner().getHpa(ns, name);
  return found(hpas_.get(ns, name), "horizontalpodautoscalers.autoscaling", name);
}

Result<api::AttunePolicy> CachedClusterApi::getAttunePolicy(std::string_view ns,
                                                            std::string_view name) {
  if (!covers(policies_.synced(), ns)) return inner().getAttunePolicy(ns, name);
  return found(policies_.get(ns, name), "attunepolicies.attune.io", name);
}

Result<api::List<api::AttunePolicy>> CachedClusterApi::listAttunePolicies(
    const api::ListOptions& options) {
  return cachedList(policies_, &api::ClusterApi::listAttunePolicies, options);
}

api::SharedList<api::Deployment> CachedClusterApi::sharedDeployments(std::string_view ns) {
  return covers(deployments_.synced(), ns) ? deployments_.shared(ns) : nullptr;
}

api::SharedList<api::ReplicaSet> CachedClusterApi::sharedReplicaSets(std::string_view ns) {
  return covers(replicaSets_.synced(), ns) ? replicaSets_.shared(ns) : nullptr;
}

api::SharedList<api::Node> CachedClusterApi::sharedNodes() {
  return nodes_.synced() ? nodes_.shared("") : nullptr;
}

api::SharedList<api::AttunePolicy> CachedClusterApi::sharedAttunePolicies(std::string_view ns) {
  return covers(policies_.synced(), ns) ? policies_.shared(ns) : nullptr;
}

Result<api::List<api::AttuneDefaults>> CachedClusterApi::listAttuneDefaults(
    const api::ListOptions& options) {
  if (!clusterDefaults_.synced()) return inner().listAttuneDefaults(options);
  api::ListOptions all = options;
  all.namespace_.clear();  // cluster-scoped
  return api::List<api::AttuneDefaults>{
      clusterDefaults_.list(all), clusterDefaults_.resourceVersion(), {}, {}};
}

Result<api::List<api::AttuneNamespaceDefaults>> CachedClusterApi::listAttuneNamespaceDefaults(
    const api::ListOptions& options) {
  return cachedList(namespaceDefaults_, &api::ClusterApi::listAttuneNamespaceDefaults, options);
}

Result<api::WatchBatch<api::Pod>> CachedClusterApi::watchPods(const api::ListOptions& options,
                                                              std::string_view resourceVersion) {
  // The informer owns the one watch on the inner api; a second reader follows its log.
  if (!covers(pods_.synced(), options.namespace_)) {
    return ForwardingClusterApi::watchPods(options, resourceVersion);
  }
  return pods_.recentEvents(options, resourceVersion);
}

const api::PodView* CachedClusterApi::podView(std::string_view ns) {
  return covers(pods_.synced(), ns) ? &pods_ : nullptr;
}

// --- Writes

Result<api::ObjectMeta> CachedClusterApi::patchPodAnnotations(std::string_view ns,
                                                              std::string_view name,
                                                              const api::AnnotationChanges& changes,
                                                              std::string_view resourceVersion) {
  return writes_->patchPodAnnotations(ns, name, changes, resourceVersion);
}

Result<api::ObjectMeta> CachedClusterApi::patchWorkloadAnnotations(
    api::WorkloadKind kind, std::string_view ns, std::string_view name,
    const api::AnnotationChanges& changes, std::string_view resourceVersion) {
  return writes_->patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion);
}

Result<api::Pod> CachedClusterApi::resizePod(std::string_view ns, std::string_view name,
                                             std::span<const api::ContainerResize> containers) {
  return writes_->resizePod(ns, name, containers);
}

Result<api::Node> CachedClusterApi::updateNodeTaints(std::string_view name,
                                                     std::span<const api::Taint> taints,
                                                     std::string_view resourceVersion) {
  return writes_->updateNodeTaints(name, taints, resourceVersion);
}

Result<api::AttunePolicy> CachedClusterApi::createAttunePolicy(const api::AttunePolicy& policy) {
  return writes_->createAttunePolicy(policy);
}

Result<api::AttunePolicy> CachedClusterApi::updateAttunePolicy(const api::AttunePolicy& policy) {
  return writes_->updateAttunePolicy(policy);
}

Result<api::AttunePolicy> CachedClusterApi::updateAttunePolicyStatus(
    const api::AttunePolicy& policy) {
  return writes_->updateAttunePolicyStatus(policy);
}

std::vector<Result<api::AttunePolicy>> CachedClusterApi::updateAttunePolicyStatuses(
    std::span<const api::AttunePolicy> policies) {
  return writes_->updateAttunePolicyStatuses(policies);
}

Result<api::HorizontalPodAutoscaler> CachedClusterApi::updateHpa(
    const api::HorizontalPodAutoscaler& hpa) {
  return writes_->updateHpa(hpa);
}

void CachedClusterApi::runTasks(std::span<const Task> tasks) {
  if (taskLanes() <= 1) {
    ClusterApi::runTasks(tasks);  // one after another, reading the caches
    return;
  }
  std::vector<Task> recorded;
  recorded.reserve(tasks.size());
  for (const Task& task : tasks) {
    recorded.emplace_back([this, &task](api::ClusterApi& lane) {
      RecordedWrites writes(*this, lane);
      task(writes);
    });
  }
  inner().runTasks(recorded);
}

}  // namespace attune::kube
