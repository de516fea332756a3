#include "sim/cluster/cluster.h"

#include <string>

#include "sim/cluster/resize_validation.h"

namespace attune::sim {
namespace {

// Applies a merge patch of annotations; kMetadata when an annotation was set or removed.
Change applyAnnotations(api::ObjectMeta& meta, const api::AnnotationChanges& changes) {
  Change change = Change::kNone;
  for (const auto& [key, value] : changes) {
    auto it = meta.annotations.find(key);
    if (!value) {
      if (it == meta.annotations.end()) continue;
      meta.annotations.erase(it);
    } else if (it == meta.annotations.end() || it->second != *value) {
      meta.annotations.insert_or_assign(key, *value);
    } else {
      continue;
    }
    change = Change::kMetadata;
  }
  return change;
}

template <typename T>
Result<api::ObjectMeta> patchAnnotations(ObjectStore<T>& store, std::string_view ns,
                                         std::string_view name,
                                         const api::AnnotationChanges& changes,
                                         std::string_view resourceVersion) {
  auto patched = store.modify(ns, name, resourceVersion, [&](T& object) -> Result<Change> {
    return applyAnnotations(object.metadata, changes);
  });
  if (!patched) return std::unexpected(patched.error());
  return patched->metadata;
}

// The API server's 422 for an object created without a name or namespace.
Result<void> requireNamespacedName(const api::ObjectMeta& meta) {
  if (meta.name.empty() && meta.generateName.empty()) {
    return fail(ErrorCode::kInvalidArgument, "name or generateName is required", "metadata.name");
  }
  if (meta.namespace_.empty()) {
    return fail(ErrorCode::kInvalidArgument, "namespace is required", "metadata.namespace");
  }
  return {};
}

}  // namespace

Result<api::Pod> Cluster::getPod(std::string_view ns, std::string_view name) {
  return state_.pods.get(ns, name);
}
Result<api::List<api::Pod>> Cluster::listPods(const api::ListOptions& options) {
  return state_.pods.listResult(options);
}
Result<api::Node> Cluster::getNode(std::string_view name) { return state_.nodes.get("", name); }
Result<api::List<api::Node>> Cluster::listNodes(const api::ListOptions& options) {
  api::ListOptions clusterScoped = options;
  clusterScoped.namespace_.clear();
  return state_.nodes.listResult(clusterScoped);
}
Result<api::Deployment> Cluster::getDeployment(std::string_view ns, std::string_view name) {
  return state_.deployments.get(ns, name);
}
Result<api::List<api::Deployment>> Cluster::listDeployments(const api::ListOptions& options) {
  return state_.deployments.listResult(options);
}
Result<api::StatefulSet> Cluster::getStatefulSet(std::string_view ns, std::string_view name) {
  return state_.statefulSets.get(ns, name);
}
Result<api::List<api::StatefulSet>> Cluster::listStatefulSets(const api::ListOptions& options) {
  return state_.statefulSets.listResult(options);
}
Result<api::DaemonSet> Cluster::getDaemonSet(std::string_view ns, std::string_view name) {
  return state_.daemonSets.get(ns, name);
}
Result<api::List<api::DaemonSet>> Cluster::listDaemonSets(const api::ListOptions& options) {
  return state_.daemonSets.listResult(options);
}
Result<api::ReplicaSet> Cluster::getReplicaSet(std::string_view ns, std::string_view name) {
  return state_.replicaSets.get(ns, name);
}
Result<api::List<api::ReplicaSet>> Cluster::listReplicaSets(const api::ListOptions& options) {
  return state_.replicaSets.listResult(options);
}
Result<api::Job> Cluster::getJob(std::string_view ns, std::string_view name) {
  return state_.jobs.get(ns, name);
}
Result<api::List<api::Job>> Cluster::listJobs(const api::ListOptions& options) {
  return state_.jobs.listResult(options);
}
Result<api::CronJob> Cluster::getCronJob(std::string_view ns, std::string_view name) {
  return state_.cronJobs.get(ns, name);
}
Result<api::List<api::CronJob>> Cluster::listCronJobs(const api::ListOptions& options) {
  return state_.cronJobs.listResult(options);
}
Result<api::List<api::LimitRange>> Cluster::listLimitRanges(const api::ListOptions& options) {
  return state_.limitRanges.listResult(options);
}
Result<api::List<api::ResourceQuota>> Cluster::listResourceQuotas(const api::ListOptions& options) {
  return state_.resourceQuotas.listResult(options);
}
Result<api::List<api::HorizontalPodAutoscaler>> Cluster::listHpas(const api::ListOptions& options) {
  return state_.hpas.listResult(options);
}
Result<api::List<api::Event>> Cluster::listEvents(const api::ListOptions& options) {
  return state_.events.listResult(options);
}

Result<api::WatchBatch<api::Pod>> Cluster::watchPods(const api::ListOptions& options,
                                                     std::string_view resourceVersion) {
  return state_.podEventsAfter(options, resourceVersion);
}

Result<api::ObjectMeta> Cluster::patchPodAnnotations(std::string_view ns, std::string_view name,
                                                     const api::AnnotationChanges& changes,
                                                     std::string_view resourceVersion) {
  return patchAnnotations(state_.pods, ns, name, changes, resourceVersion);
}

Result<api::ObjectMeta> Cluster::patchWorkloadAnnotations(api::WorkloadKind kind,
                                                          std::string_view ns,
                                                          std::string_view name,
                                                          const api::AnnotationChanges& changes,
                                                          std::string_view resourceVersion) {
  using enum api::WorkloadKind;
  switch (kind) {
    case kDeployment:
      return patchAnnotations(state_.deployments, ns, name, changes, resourceVersion);
    case kStatefulSet:
      return patchAnnotations(state_.statefulSets, ns, name, changes, resourceVersion);
    case kDaemonSet:
      return patchAnnotations(state_.daemonSets, ns, name, changes, resourceVersion);
    case kReplicaSet:
      return patchAnnotations(state_.replicaSets, ns, name, changes, resourceVersion);
    case kJob:
      return patchAnnotations(state_.jobs, ns, name, changes, resourceVersion);
    case kCronJob:
      return patchAnnotations(state_.cronJobs, ns, name, changes, resourceVersion);
  }
  return fail(ErrorCode::kInvalidArgument, "unknown workload kind", "kind");
}

Result<api::Pod> Cluster::resizePod(std::string_view ns, std::string_view name,
                                    std::span<const api::ContainerResize> containers) {
  bool resized = false;
  auto pod = state_.pods.modify(ns, name, {}, [&](api::Pod& p) -> Result<Change> {
    auto spec = applyResize(p, containers);
    if (!spec) return std::unexpected(spec.error());
    if (*spec == p.spec) return Change::kNone;
    p.spec = std::move(*spec);
    resized = true;
    return Change::kSpec;
  });
  if (pod && resized) state_.recordPendingResize(*pod);
  return pod;
}

Result<void> Cluster::evictPod(const api::Eviction& eviction) {
  const api::ObjectMeta& target = eviction.metadata;
  auto pod = state_.pods.get(target.namespace_, target.name);
  if (!pod) return std::unexpected(pod.error());
  if (eviction.deleteOptions) {
    const api::DeleteOptions& options = *eviction.deleteOptions;
    if (!options.preconditionUid.empty() && options.preconditionUid != pod->metadata.uid) {
      return fail(ErrorCode::kConflict,
                  "Precondition failed: UID in precondition: " + options.preconditionUid +
                      ", UID in object meta: " + pod->metadata.uid);
    }
    if (auto ok = checkResourceVersion(pod->metadata, options.preconditionResourceVersion, "pods");
        !ok) {
      return ok;
    }
    if (!options.dryRun.empty()) return {};
  }
  return state_.evictPod(target.namespace_, target.name);
}

Result<api::Event> Cluster::createEvent(const api::Event& event) {
  if (auto ok = requireNamespacedName(event.metadata); !ok) return std::unexpected(ok.error());
  return state_.events.create(event);
}

Result<api::Lease> Cluster::getLease(std::string_view ns, std::string_view name) {
  return state_.leases.get(ns, name);
}

Result<api::Lease> Cluster::createLease(const api::Lease& lease) {
  if (auto ok = requireNamespacedName(lease.metadata); !ok) return std::unexpected(ok.error());
  return state_.leases.create(lease);
}

Result<api::Lease> Cluster::updateLease(const api::Lease& lease) {
  const api::ObjectMeta& meta = lease.metadata;
  return state_.leases.modify(
      meta.namespace_, meta.name, meta.resourceVersion, [&](api::Lease& stored) -> Result<Change> {
        if (stored.spec == lease.spec && stored.metadata.labels == meta.labels &&
            stored.metadata.annotations == meta.annotations) {
          return Change::kNone;
        }
        stored.spec = lease.spec;
        stored.metadata.labels = meta.labels;
        stored.metadata.annotations = meta.annotations;
        return Change::kSpec;
      });
}

}  // namespace attune::sim
