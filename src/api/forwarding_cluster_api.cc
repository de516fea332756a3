#include "api/forwarding_cluster_api.h"

namespace attune::api {

Result<Pod> ForwardingClusterApi::getPod(std::string_view ns, std::string_view name) {
  return inner_.getPod(ns, name);
}
Result<List<Pod>> ForwardingClusterApi::listPods(const ListOptions& options) {
  return inner_.listPods(options);
}
Result<Node> ForwardingClusterApi::getNode(std::string_view name) { return inner_.getNode(name); }
Result<List<Node>> ForwardingClusterApi::listNodes(const ListOptions& options) {
  return inner_.listNodes(options);
}
Result<Namespace> ForwardingClusterApi::getNamespace(std::string_view name) {
  return inner_.getNamespace(name);
}
Result<List<Namespace>> ForwardingClusterApi::listNamespaces(const ListOptions& options) {
  return inner_.listNamespaces(options);
}
Result<Deployment> ForwardingClusterApi::getDeployment(std::string_view ns, std::string_view name) {
  return inner_.getDeployment(ns, name);
}
Result<List<Deployment>> ForwardingClusterApi::listDeployments(const ListOptions& options) {
  return inner_.listDeployments(options);
}
Result<StatefulSet> ForwardingClusterApi::getStatefulSet(std::string_view ns,
                                                         std::string_view name) {
  return inner_.getStatefulSet(ns, name);
}
Result<List<StatefulSet>> ForwardingClusterApi::listStatefulSets(const ListOptions& options) {
  return inner_.listStatefulSets(options);
}
Result<DaemonSet> ForwardingClusterApi::getDaemonSet(std::string_view ns, std::string_view name) {
  return inner_.getDaemonSet(ns, name);
}
Result<List<DaemonSet>> ForwardingClusterApi::listDaemonSets(const ListOptions& options) {
  return inner_.listDaemonSets(options);
}
Result<ReplicaSet> ForwardingClusterApi::getReplicaSet(std::string_view ns, std::string_view name) {
  return inner_.getReplicaSet(ns, name);
}
Result<List<ReplicaSet>> ForwardingClusterApi::listReplicaSets(const ListOptions& options) {
  return inner_.listReplicaSets(options);
}
Result<Job> ForwardingClusterApi::getJob(std::string_view ns, std::string_view name) {
  return inner_.getJob(ns, name);
}
Result<List<Job>> ForwardingClusterApi::listJobs(const ListOptions& options) {
  return inner_.listJobs(options);
}
Result<CronJob> ForwardingClusterApi::getCronJob(std::string_view ns, std::string_view name) {
  return inner_.getCronJob(ns, name);
}
Result<List<CronJob>> ForwardingClusterApi::listCronJobs(const ListOptions& options) {
  return inner_.listCronJobs(options);
}
Result<List<LimitRange>> ForwardingClusterApi::listLimitRanges(const ListOptions& options) {
  return inner_.listLimitRanges(options);
}
Result<List<ResourceQuota>> ForwardingClusterApi::listResourceQuotas(const ListOptions& options) {
  return inner_.listResourceQuotas(options);
}
Result<List<HorizontalPodAutoscaler>> ForwardingClusterApi::listHpas(const ListOptions& options) {
  return inner_.listHpas(options);
}
Result<List<Event>> ForwardingClusterApi::listEvents(const ListOptions& options) {
  return inner_.listEvents(options);
}
Result<AttunePolicy> ForwardingClusterApi::getAttunePolicy(std::string_view ns,
                                                           std::string_view name) {
  return inner_.getAttunePolicy(ns, name);
}
Result<List<AttunePolicy>> ForwardingClusterApi::listAttunePolicies(const ListOptions& options) {
  return inner_.listAttunePolicies(options);
}

Result<WatchBatch<Pod>> ForwardingClusterApi::watchPods(const ListOptions& options,
                                                        std::string_view resourceVersion) {
  return inner_.watchPods(options, resourceVersion);
}

Result<ObjectMeta> ForwardingClusterApi::patchPodAnnotations(std::string_view ns,
                                                             std::string_view name,
                                                             const AnnotationChanges& changes,
                                                             std::string_view resourceVersion) {
  return inner_.patchPodAnnotations(ns, name, changes, resourceVersion);
}
Result<ObjectMeta> ForwardingClusterApi::patchWorkloadAnnotations(
    WorkloadKind kind, std::string_view ns, std::string_view name, const AnnotationChanges& changes,
    std::string_view resourceVersion) {
  return inner_.patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion);
}
Result<Pod> ForwardingClusterApi::resizePod(std::string_view ns, std::string_view name,
                                            std::span<const ContainerResize> containers) {
  return inner_.resizePod(ns, name, containers);
}
Result<void> ForwardingClusterApi::evictPod(const Eviction& eviction) {
  return inner_.evictPod(eviction);
}
Result<Event> ForwardingClusterApi::createEvent(const Event& event) {
  return inner_.createEvent(event);
}
Result<Event> ForwardingClusterApi::updateEvent(const Event& event) {
  return inner_.updateEvent(event);
}
Result<AttunePolicy> ForwardingClusterApi::createAttunePolicy(const AttunePolicy& policy) {
  return inner_.createAttunePolicy(policy);
}
Result<AttunePolicy> ForwardingClusterApi::updateAttunePolicy(const AttunePolicy& policy) {
  return inner_.updateAttunePolicy(policy);
}
Result<AttunePolicy> ForwardingClusterApi::updateAttunePolicyStatus(const AttunePolicy& policy) {
  return inner_.updateAttunePolicyStatus(policy);
}
Result<Lease> ForwardingClusterApi::getLease(std::string_view ns, std::string_view name) {
  return inner_.getLease(ns, name);
}
Result<Lease> ForwardingClusterApi::createLease(const Lease& lease) {
  return inner_.createLease(lease);
}
Result<Lease> ForwardingClusterApi::updateLease(const Lease& lease) {
  return inner_.updateLease(lease);
}

}  // namespace attune::api
