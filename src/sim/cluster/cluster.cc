#include "sim/cluster/cluster.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/cluster/pod_eviction.h"
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

// The API server's rule for core/v1 Events without eventTime: involvedObject.namespace must be
// the event's namespace, or empty for an event in "" or "default" (cluster-scoped objects).
Result<void> checkEventNamespace(const api::Event& event) {
  const std::string& ns = event.metadata.namespace_;
  const std::string& involved = event.involvedObject.namespace_;
  if (involved.empty() ? (ns.empty() || ns == "default") : involved == ns) return {};
  return fail(ErrorCode::kInvalidArgument,
              "Invalid value: \"" + involved + "\": does not match event.namespace",
              "involvedObject.namespace");
}

bool isStatusPath(std::string_view path) {
  return path.starts_with("status") && (path.size() == 6 || path[6] == '.' || path[6] == '[');
}

// `stored`'s preserved fields of the other part, with `incoming`'s of the `status` part (or of
// the non-status part when `status` is false), sorted by path.
std::vector<api::PreservedField> mergePreserved(const std::vector<api::PreservedField>& stored,
                                                const std::vector<api::PreservedField>& incoming,
                                                bool status) {
  std::vector<api::PreservedField> out;
  for (const auto& f : stored) {
    if (isStatusPath(f.path) != status) out.push_back(f);
  }
  for (const auto& f : incoming) {
    if (isStatusPath(f.path) == status) out.push_back(f);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.path < b.path; });
  return out;
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
Result<api::Namespace> Cluster::getNamespace(std::string_view name) {
  return state_.namespaces.get("", name);
}
Result<api::List<api::Namespace>> Cluster::listNamespaces(const api::ListOptions& options) {
  api::ListOptions clusterScoped = options;
  clusterScoped.namespace_.clear();
  return state_.namespaces.listResult(clusterScoped);
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
Result<api::HorizontalPodAutoscaler> Cluster::getHpa(std::string_view ns, std::string_view name) {
  return state_.hpas.get(ns, name);
}
Result<api::List<api::HorizontalPodAutoscaler>> Cluster::listHpas(const api::ListOptions& options) {
  return state_.hpas.listResult(options);
}
Result<api::List<api::PodDisruptionBudget>> Cluster::listPodDisruptionBudgets(
    const api::ListOptions& options) {
  return state_.pdbs.listResult(options);
}
Result<api::List<api::Event>> Cluster::listEvents(const api::ListOptions& options) {
  return state_.events.listResult(options);
}

Result<api::AttunePolicy> Cluster::getAttunePolicy(std::string_view ns, std::string_view name) {
  return state_.attunePolicies.get(ns, name);
}
Result<api::List<api::AttunePolicy>> Cluster::listAttunePolicies(const api::ListOptions& options) {
  return state_.attunePolicies.listResult(options);
}
Result<api::AttuneDefaults> Cluster::getAttuneDefaults(std::string_view name) {
  return state_.attuneDefaults.get("", name);
}
Result<api::List<api::AttuneDefaults>> Cluster::listAttuneDefaults(
    const api::ListOptions& options) {
  return state_.attuneDefaults.listResult(
      {.namespace_ = "", .labelSelector = options.labelSelector});
}
Result<api::AttuneNamespaceDefaults> Cluster::getAttuneNamespaceDefaults(std::string_view ns,
                                                                         std::string_view name) {
  return state_.attuneNamespaceDefaults.get(ns, name);
}
Result<api::List<api::AttuneNamespaceDefaults>> Cluster::listAttuneNamespaceDefaults(
    const api::ListOptions& options) {
  return state_.attuneNamespaceDefaults.listResult(options);
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
  return state_.pods.modify(ns, name, {}, [&](api::Pod& p) -> Result<Change> {
    auto spec = applyResize(p, containers);
    if (!spec) return std::unexpected(spec.error());
    if (*spec == p.spec) return Change::kNone;
    if (auto ok = checkMemoryLimitDecrease(p.spec, *spec, state_.kubernetesVersion()); !ok) {
      return std::unexpected(ok.error());
    }
    if (auto ok = state_.admitPodResize(p, *spec); !ok) return std::unexpected(ok.error());
    p.spec = std::move(*spec);
    return Change::kSpec;
  });
}

Result<void> Cluster::evictPod(const api::Eviction& eviction) {
  return evictThroughBudgets(state_, eviction);
}

Result<api::Event> Cluster::createEvent(const api::Event& event) {
  if (auto ok = requireNamespacedName(event.metadata); !ok) return std::unexpected(ok.error());
  if (auto ok = checkEventNamespace(event); !ok) return std::unexpected(ok.error());
  api::Event stored = event;
  if (stored.count <= 0) stored.count = 1;
  if (!stored.firstTimestamp)
    stored.firstTimestamp = stored.eventTime.value_or(state_.clock().now());
  if (!stored.lastTimestamp) stored.lastTimestamp = stored.firstTimestamp;
  return state_.events.create(std::move(stored));
}

Result<api::Event> Cluster::updateEvent(const api::Event& event) {
  if (auto ok = checkEventNamespace(event); !ok) return std::unexpected(ok.error());
  const api::ObjectMeta& meta = event.metadata;
  return state_.events.modify(meta.namespace_, meta.name, meta.resourceVersion,
                              [&](api::Event& stored) -> Result<Change> {
                                api::Event next = event;
                                next.metadata = stored.metadata;
                                next.metadata.labels = meta.labels;
                                next.metadata.annotations = meta.annotations;
                                if (next == stored) return Change::kNone;
                                stored = std::move(next);
                                return Change::kMetadata;
                              });
}

Result<api::Lease> Cluster::getLease(std::string_view ns, std::string_view name) {
  return state_.leases.get(ns, name);
}

Result<api::Secret> Cluster::getSecret(std::string_view ns, std::string_view name) {
  return state_.secrets.get(ns, name);
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

Result<api::HorizontalPodAutoscaler> Cluster::updateHpa(const api::HorizontalPodAutoscaler& hpa) {
  const api::ObjectMeta& meta = hpa.metadata;
  return state_.hpas.modify(meta.namespace_, meta.name, meta.resourceVersion,
                            [&](api::HorizontalPodAutoscaler& stored) -> Result<Change> {
                              const bool specChanged = stored.spec != hpa.spec;
                              const bool metaChanged =
                                  stored.metadata.labels != meta.labels ||
                                  stored.metadata.annotations != meta.annotations;
                              if (!specChanged && !metaChanged) return Change::kNone;
                              stored.spec = hpa.spec;
                              stored.metadata.labels = meta.labels;
                              stored.metadata.annotations = meta.annotations;
                              return specChanged ? Change::kSpec : Change::kMetadata;
                            });
}

Result<api::WebhookConfiguration> Cluster::getWebhookConfiguration(
    api::WebhookConfigurationKind kind, std::string_view name) {
  return state_.webhookConfigurations(kind).get("", name);
}

Result<api::ServerVersion> Cluster::getServerVersion() { return state_.kubernetesVersion(); }

Result<api::WebhookConfiguration> Cluster::patchWebhookCaBundles(
    const api::WebhookConfiguration& config) {
  const api::ObjectMeta& meta = config.metadata;
  return state_.webhookConfigurations(config.kind)
      .modify("", meta.name, meta.resourceVersion,
              [&](api::WebhookConfiguration& stored) -> Result<Change> {
                bool changed = false;
                for (std::size_t i = 0; i < config.webhooks.size(); ++i) {
                  if (i >= stored.webhooks.size() ||
                      stored.webhooks[i].name != config.webhooks[i].name) {
                    return fail(ErrorCode::kInvalidArgument,
                                "the test operation failed: webhook " + std::to_string(i) +
                                    " is not \"" + config.webhooks[i].name + "\"",
                                "webhooks[" + std::to_string(i) + "].name");
                  }
                  changed = changed || stored.webhooks[i].caBundle != config.webhooks[i].caBundle;
                  stored.webhooks[i].caBundle = config.webhooks[i].caBundle;
                }
                return changed ? Change::kSpec : Change::kNone;
              });
}

Result<api::Node> Cluster::updateNodeTaints(std::string_view name,
                                            std::span<const api::Taint> taints,
                                            std::string_view resourceVersion) {
  return state_.nodes.modify("", name, resourceVersion, [&](api::Node& stored) -> Result<Change> {
    if (std::ranges::equal(stored.spec.taints, taints)) return Change::kNone;
    stored.spec.taints.assign(taints.begin(), taints.end());
    return Change::kMetadata;
  });
}

Result<api::AttunePolicy> Cluster::createAttunePolicy(const api::AttunePolicy& policy) {
  if (auto ok = requireNamespacedName(policy.metadata); !ok) return std::unexpected(ok.error());
  api::AttunePolicy stored = policy;
  stored.status = {};
  stored.preserved = mergePreserved({}, policy.preserved, false);
  stored.sources = {};
  return state_.attunePolicies.create(std::move(stored));
}

Result<api::AttunePolicy> Cluster::updateAttunePolicy(const api::AttunePolicy& policy) {
  const api::ObjectMeta& meta = policy.metadata;
  return state_.attunePolicies.modify(
      meta.namespace_, meta.name, meta.resourceVersion,
      [&](api::AttunePolicy& stored) -> Result<Change> {
        auto preserved = mergePreserved(stored.preserved, policy.preserved, false);
        const bool specChanged = stored.spec != policy.spec || stored.preserved != preserved;
        const bool metaChanged = stored.metadata.labels != meta.labels ||
                                 stored.metadata.annotations != meta.annotations ||
                                 stored.metadata.ownerReferences != meta.ownerReferences;
        if (!specChanged && !metaChanged) return Change::kNone;
        stored.spec = policy.spec;
        stored.preserved = std::move(preserved);
        stored.metadata.labels = meta.labels;
        stored.metadata.annotations = meta.annotations;
        stored.metadata.ownerReferences = meta.ownerReferences;
        return specChanged ? Change::kSpec : Change::kMetadata;
      });
}

Result<api::AttunePolicy> Cluster::updateAttunePolicyStatus(const api::AttunePolicy& policy) {
  const api::ObjectMeta& meta = policy.metadata;
  return state_.attunePolicies.modify(
      meta.namespace_, meta.name, meta.resourceVersion,
      [&](api::AttunePolicy& stored) -> Result<Change> {
        auto preserved = mergePreserved(stored.preserved, policy.preserved, true);
        if (stored.status == policy.status && stored.preserved == preserved) return Change::kNone;
        stored.status = policy.status;
        stored.preserved = std::move(preserved);
        return Change::kMetadata;
      });
}

}  // namespace attune::sim
