#include "sim/faults/fault_cluster_api.h"

#include <utility>

namespace attune::sim {

FaultClusterApi::FaultClusterApi(api::ClusterApi& inner, FaultOptions options)
    : inner_(inner), injector_(std::move(options)) {}

std::size_t FaultClusterApi::appliedWrites(std::string_view method, std::string_view ns,
                                           std::string_view name) const {
  std::size_t n = 0;
  for (const FaultWriteRecord& w : writes_) {
    if (w.appliedByInner && w.method == method && w.namespace_ == ns && w.name == name) ++n;
  }
  return n;
}

Error FaultClusterApi::errorFor(FaultKind fault, std::string_view method) const {
  const auto unavailable = [&](std::string_view what) {
    return Error{ErrorCode::kUnavailable,
                 std::string(method) + ": injected fault: " + std::string(what), ""};
  };
  switch (fault) {
    case FaultKind::kConflict:
      return Error{ErrorCode::kConflict,
                   std::string(method) +
                       ": injected fault: 409 Conflict: the object has been modified; please "
                       "apply your changes to the latest version and try again",
                   ""};
    case FaultKind::kTimeout:
      return unavailable("the request timed out");
    case FaultKind::kThrottled:
      return unavailable("429 Too Many Requests (retry after " +
                         formatDuration(injector_.options().retryAfter) + ")");
    case FaultKind::kServerError:
      return unavailable("500 Internal Server Error");
    case FaultKind::kWatchDropped:
      return unavailable("the watch stream closed");
    case FaultKind::kWatchGone:
      return Error{ErrorCode::kConflict,
                   std::string(method) + ": injected fault: 410 Gone: too old resource version",
                   "resourceVersion"};
    case FaultKind::kResponseLost:
      return unavailable("the connection closed before the response arrived");
    case FaultKind::kNone:
      break;
  }
  return Error{ErrorCode::kInternal, "no fault", ""};
}

template <typename Call>
auto FaultClusterApi::read(std::string_view method, Call call) -> decltype(call()) {
  const FaultKind fault = injector_.next(RequestKind::kRead);
  if (fault != FaultKind::kNone) return std::unexpected(errorFor(fault, method));
  return call();
}

template <typename Call>
auto FaultClusterApi::write(FaultWriteRecord record, bool conditional, Call call)
    -> decltype(call()) {
  const FaultKind fault =
      injector_.next(conditional ? RequestKind::kConditionalWrite : RequestKind::kWrite);
  record.fault = fault;
  const std::string method = record.method;
  if (fault != FaultKind::kNone && fault != FaultKind::kResponseLost) {
    writes_.push_back(std::move(record));
    return std::unexpected(errorFor(fault, method));
  }
  auto result = call();
  record.reachedInner = true;
  record.appliedByInner = result.has_value();
  writes_.push_back(std::move(record));
  if (fault == FaultKind::kResponseLost) return std::unexpected(errorFor(fault, method));
  return result;
}

// ---- Reads

Result<api::Pod> FaultClusterApi::getPod(std::string_view ns, std::string_view name) {
  return read("getPod", [&] { return inner_.getPod(ns, name); });
}
Result<api::List<api::Pod>> FaultClusterApi::listPods(const api::ListOptions& options) {
  return read("listPods", [&] { return inner_.listPods(options); });
}
Result<api::Node> FaultClusterApi::getNode(std::string_view name) {
  return read("getNode", [&] { return inner_.getNode(name); });
}
Result<api::List<api::Node>> FaultClusterApi::listNodes(const api::ListOptions& options) {
  return read("listNodes", [&] { return inner_.listNodes(options); });
}
Result<api::Namespace> FaultClusterApi::getNamespace(std::string_view name) {
  return read("getNamespace", [&] { return inner_.getNamespace(name); });
}
Result<api::List<api::Namespace>> FaultClusterApi::listNamespaces(const api::ListOptions& options) {
  return read("listNamespaces", [&] { return inner_.listNamespaces(options); });
}
Result<api::Deployment> FaultClusterApi::getDeployment(std::string_view ns, std::string_view name) {
  return read("getDeployment", [&] { return inner_.getDeployment(ns, name); });
}
Result<api::List<api::Deployment>> FaultClusterApi::listDeployments(
    const api::ListOptions& options) {
  return read("listDeployments", [&] { return inner_.listDeployments(options); });
}
Result<api::StatefulSet> FaultClusterApi::getStatefulSet(std::string_view ns,
                                                         std::string_view name) {
  return read("getStatefulSet", [&] { return inner_.getStatefulSet(ns, name); });
}
Result<api::List<api::StatefulSet>> FaultClusterApi::listStatefulSets(
    const api::ListOptions& options) {
  return read("listStatefulSets", [&] { return inner_.listStatefulSets(options); });
}
Result<api::DaemonSet> FaultClusterApi::getDaemonSet(std::string_view ns, std::string_view name) {
  return read("getDaemonSet", [&] { return inner_.getDaemonSet(ns, name); });
}
Result<api::List<api::DaemonSet>> FaultClusterApi::listDaemonSets(const api::ListOptions& options) {
  return read("listDaemonSets", [&] { return inner_.listDaemonSets(options); });
}
Result<api::ReplicaSet> FaultClusterApi::getReplicaSet(std::string_view ns, std::string_view name) {
  return read("getReplicaSet", [&] { return inner_.getReplicaSet(ns, name); });
}
Result<api::List<api::ReplicaSet>> FaultClusterApi::listReplicaSets(
    const api::ListOptions& options) {
  return read("listReplicaSets", [&] { return inner_.listReplicaSets(options); });
}
Result<api::Job> FaultClusterApi::getJob(std::string_view ns, std::string_view name) {
  return read("getJob", [&] { return inner_.getJob(ns, name); });
}
Result<api::List<api::Job>> FaultClusterApi::listJobs(const api::ListOptions& options) {
  return read("listJobs", [&] { return inner_.listJobs(options); });
}
Result<api::CronJob> FaultClusterApi::getCronJob(std::string_view ns, std::string_view name) {
  return read("getCronJob", [&] { return inner_.getCronJob(ns, name); });
}
Result<api::List<api::CronJob>> FaultClusterApi::listCronJobs(const api::ListOptions& options) {
  return read("listCronJobs", [&] { return inner_.listCronJobs(options); });
}
Result<api::List<api::LimitRange>> FaultClusterApi::listLimitRanges(
    const api::ListOptions& options) {
  return read("listLimitRanges", [&] { return inner_.listLimitRanges(options); });
}
Result<api::List<api::ResourceQuota>> FaultClusterApi::listResourceQuotas(
    const api::ListOptions& options) {
  return read("listResourceQuotas", [&] { return inner_.listResourceQuotas(options); });
}
Result<api::List<api::HorizontalPodAutoscaler>> FaultClusterApi::listHpas(
    const api::ListOptions& options) {
  return read("listHpas", [&] { return inner_.listHpas(options); });
}
Result<api::List<api::Event>> FaultClusterApi::listEvents(const api::ListOptions& options) {
  return read("listEvents", [&] { return inner_.listEvents(options); });
}
Result<api::AttunePolicy> FaultClusterApi::getAttunePolicy(std::string_view ns,
                                                           std::string_view name) {
  return read("getAttunePolicy", [&] { return inner_.getAttunePolicy(ns, name); });
}
Result<api::List<api::AttunePolicy>> FaultClusterApi::listAttunePolicies(
    const api::ListOptions& options) {
  return read("listAttunePolicies", [&] { return inner_.listAttunePolicies(options); });
}
Result<api::Lease> FaultClusterApi::getLease(std::string_view ns, std::string_view name) {
  return read("getLease", [&] { return inner_.getLease(ns, name); });
}

Result<api::WatchBatch<api::Pod>> FaultClusterApi::watchPods(const api::ListOptions& options,
                                                             std::string_view resourceVersion) {
  const FaultKind fault = injector_.next(RequestKind::kWatch);
  if (fault != FaultKind::kNone) return std::unexpected(errorFor(fault, "watchPods"));
  return inner_.watchPods(options, resourceVersion);
}

// ---- Writes

Result<api::ObjectMeta> FaultClusterApi::patchPodAnnotations(std::string_view ns,
                                                             std::string_view name,
                                                             const api::AnnotationChanges& changes,
                                                             std::string_view resourceVersion) {
  return write({.method = "patchPodAnnotations",
                .namespace_ = std::string(ns),
                .name = std::string(name),
                .annotations = changes},
               !resourceVersion.empty(),
               [&] { return inner_.patchPodAnnotations(ns, name, changes, resourceVersion); });
}

Result<api::ObjectMeta> FaultClusterApi::patchWorkloadAnnotations(
    api::WorkloadKind kind, std::string_view ns, std::string_view name,
    const api::AnnotationChanges& changes, std::string_view resourceVersion) {
  return write({.method = "patchWorkloadAnnotations",
                .namespace_ = std::string(ns),
                .name = std::string(name),
                .annotations = changes},
               !resourceVersion.empty(), [&] {
                 return inner_.patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion);
               });
}

Result<api::Pod> FaultClusterApi::resizePod(std::string_view ns, std::string_view name,
                                            std::span<const api::ContainerResize> containers) {
  return write({.method = "resizePod",
                .namespace_ = std::string(ns),
                .name = std::string(name),
                .resize = {containers.begin(), containers.end()}},
               false, [&] { return inner_.resizePod(ns, name, containers); });
}

Result<void> FaultClusterApi::evictPod(const api::Eviction& eviction) {
  const bool conditional =
      eviction.deleteOptions && (!eviction.deleteOptions->preconditionUid.empty() ||
                                 !eviction.deleteOptions->preconditionResourceVersion.empty());
  return write({.method = "evictPod",
                .namespace_ = eviction.metadata.namespace_,
                .name = eviction.metadata.name},
               conditional, [&] { return inner_.evictPod(eviction); });
}

Result<api::Event> FaultClusterApi::createEvent(const api::Event& event) {
  return write({.method = "createEvent",
                .namespace_ = event.metadata.namespace_,
                .name = event.metadata.name},
               false, [&] { return inner_.createEvent(event); });
}

Result<api::Event> FaultClusterApi::updateEvent(const api::Event& event) {
  return write({.method = "updateEvent",
                .namespace_ = event.metadata.namespace_,
                .name = event.metadata.name},
               !event.metadata.resourceVersion.empty(), [&] { return inner_.updateEvent(event); });
}

Result<api::AttunePolicy> FaultClusterApi::createAttunePolicy(const api::AttunePolicy& policy) {
  return write({.method = "createAttunePolicy",
                .namespace_ = policy.metadata.namespace_,
                .name = policy.metadata.name},
               false, [&] { return inner_.createAttunePolicy(policy); });
}

Result<api::AttunePolicy> FaultClusterApi::updateAttunePolicy(const api::AttunePolicy& policy) {
  return write({.method = "updateAttunePolicy",
                .namespace_ = policy.metadata.namespace_,
                .name = policy.metadata.name},
               !policy.metadata.resourceVersion.empty(),
               [&] { return inner_.updateAttunePolicy(policy); });
}

Result<api::AttunePolicy> FaultClusterApi::updateAttunePolicyStatus(
    const api::AttunePolicy& policy) {
  return write({.method = "updateAttunePolicyStatus",
                .namespace_ = policy.metadata.namespace_,
                .name = policy.metadata.name},
               !policy.metadata.resourceVersion.empty(),
               [&] { return inner_.updateAttunePolicyStatus(policy); });
}

Result<api::Lease> FaultClusterApi::createLease(const api::Lease& lease) {
  return write({.method = "createLease",
                .namespace_ = lease.metadata.namespace_,
                .name = lease.metadata.name},
               false, [&] { return inner_.createLease(lease); });
}

Result<api::Lease> FaultClusterApi::updateLease(const api::Lease& lease) {
  return write({.method = "updateLease",
                .namespace_ = lease.metadata.namespace_,
                .name = lease.metadata.name},
               !lease.metadata.resourceVersion.empty(), [&] { return inner_.updateLease(lease); });
}

}  // namespace attune::sim
