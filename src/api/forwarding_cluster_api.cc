#include "api/forwarding_cluster_api.h"

namespace attune::api {
namespace {

ForwardedCall readCall(std::string_view method, std::string_view ns = {},
                       std::string_view name = {}) {
  return {.method = method, .kind = ForwardedCall::Kind::kRead, .namespace_ = ns, .name = name};
}

// A write of `object` (an Event, AttunePolicy or Lease) that is preconditioned when `update`
// and the object carries a resourceVersion.
template <typename Object>
ForwardedCall writeCall(std::string_view method, const Object& object, bool update) {
  return {.method = method,
          .kind = ForwardedCall::Kind::kWrite,
          .namespace_ = object.metadata.namespace_,
          .name = object.metadata.name,
          .preconditioned = update && !object.metadata.resourceVersion.empty()};
}

}  // namespace

std::optional<Error> ForwardingClusterApi::admit(const ForwardedCall&) { return std::nullopt; }

std::optional<Error> ForwardingClusterApi::completed(const ForwardedCall&, bool) {
  return std::nullopt;
}

template <typename Call>
auto ForwardingClusterApi::forward(const ForwardedCall& call, Call forwardCall)
    -> decltype(forwardCall()) {
  if (std::optional<Error> refused = admit(call)) return std::unexpected(std::move(*refused));
  auto result = forwardCall();
  if (std::optional<Error> replaced = completed(call, result.has_value())) {
    return std::unexpected(std::move(*replaced));
  }
  return result;
}

// ---- Reads

Result<Pod> ForwardingClusterApi::getPod(std::string_view ns, std::string_view name) {
  return forward(readCall("getPod", ns, name), [&] { return inner_.getPod(ns, name); });
}

Result<List<Pod>> ForwardingClusterApi::listPods(const ListOptions& options) {
  return forward(readCall("listPods"), [&] { return inner_.listPods(options); });
}

Result<List<Pod>> ForwardingClusterApi::listPodsPage(const ListOptions& options, std::size_t limit,
                                                     std::string_view continueToken) {
  return forward(readCall("listPodsPage"),
                 [&] { return inner_.listPodsPage(options, limit, continueToken); });
}

Result<Node> ForwardingClusterApi::getNode(std::string_view name) {
  return forward(readCall("getNode", {}, name), [&] { return inner_.getNode(name); });
}

Result<List<Node>> ForwardingClusterApi::listNodes(const ListOptions& options) {
  return forward(readCall("listNodes"), [&] { return inner_.listNodes(options); });
}

Result<Namespace> ForwardingClusterApi::getNamespace(std::string_view name) {
  return forward(readCall("getNamespace", {}, name), [&] { return inner_.getNamespace(name); });
}

Result<List<Namespace>> ForwardingClusterApi::listNamespaces(const ListOptions& options) {
  return forward(readCall("listNamespaces"), [&] { return inner_.listNamespaces(options); });
}

Result<Deployment> ForwardingClusterApi::getDeployment(std::string_view ns, std::string_view name) {
  return forward(readCall("getDeployment", ns, name),
                 [&] { return inner_.getDeployment(ns, name); });
}

Result<List<Deployment>> ForwardingClusterApi::listDeployments(const ListOptions& options) {
  return forward(readCall("listDeployments"), [&] { return inner_.listDeployments(options); });
}

Result<StatefulSet> ForwardingClusterApi::getStatefulSet(std::string_view ns,
                                                         std::string_view name) {
  return forward(readCall("getStatefulSet", ns, name),
                 [&] { return inner_.getStatefulSet(ns, name); });
}

Result<List<StatefulSet>> ForwardingClusterApi::listStatefulSets(const ListOptions& options) {
  return forward(readCall("listStatefulSets"), [&] { return inner_.listStatefulSets(options); });
}

Result<DaemonSet> ForwardingClusterApi::getDaemonSet(std::string_view ns, std::string_view name) {
  return forward(readCall("getDaemonSet", ns, name), [&] { return inner_.getDaemonSet(ns, name); });
}

Result<List<DaemonSet>> ForwardingClusterApi::listDaemonSets(const ListOptions& options) {
  return forward(readCall("listDaemonSets"), [&] { return inner_.listDaemonSets(options); });
}

Result<ReplicaSet> ForwardingClusterApi::getReplicaSet(std::string_view ns, std::string_view name) {
  return forward(readCall("getReplicaSet", ns, name),
                 [&] { return inner_.getReplicaSet(ns, name); });
}

Result<List<ReplicaSet>> ForwardingClusterApi::listReplicaSets(const ListOptions& options) {
  return forward(readCall("listReplicaSets"), [&] { return inner_.listReplicaSets(options); });
}

Result<Job> ForwardingClusterApi::getJob(std::string_view ns, std::string_view name) {
  return forward(readCall("getJob", ns, name), [&] { return inner_.getJob(ns, name); });
}

Result<List<Job>> ForwardingClusterApi::listJobs(const ListOptions& options) {
  return forward(readCall("listJobs"), [&] { return inner_.listJobs(options); });
}

Result<CronJob> ForwardingClusterApi::getCronJob(std::string_view ns, std::string_view name) {
  return forward(readCall("getCronJob", ns, name), [&] { return inner_.getCronJob(ns, name); });
}

Result<List<CronJob>> ForwardingClusterApi::listCronJobs(const ListOptions& options) {
  return forward(readCall("listCronJobs"), [&] { return inner_.listCronJobs(options); });
}

Result<List<LimitRange>> ForwardingClusterApi::listLimitRanges(const ListOptions& options) {
  return forward(readCall("listLimitRanges"), [&] { return inner_.listLimitRanges(options); });
}

Result<List<ResourceQuota>> ForwardingClusterApi::listResourceQuotas(const ListOptions& options) {
  return forward(readCall("listResourceQuotas"),
                 [&] { return inner_.listResourceQuotas(options); });
}

Result<List<HorizontalPodAutoscaler>> ForwardingClusterApi::listHpas(const ListOptions& options) {
  return forward(readCall("listHpas"), [&] { return inner_.listHpas(options); });
}

Result<List<PodDisruptionBudget>> ForwardingClusterApi::listPodDisruptionBudgets(
    const ListOptions& options) {
  return forward(readCall("listPodDisruptionBudgets"),
                 [&] { return inner_.listPodDisruptionBudgets(options); });
}

Result<List<Event>> ForwardingClusterApi::listEvents(const ListOptions& options) {
  return forward(readCall("listEvents"), [&] { return inner_.listEvents(options); });
}

Result<HorizontalPodAutoscaler> ForwardingClusterApi::getHpa(std::string_view ns,
                                                             std::string_view name) {
  return forward(readCall("getHpa", ns, name), [&] { return inner_.getHpa(ns, name); });
}
Result<AttunePolicy> ForwardingClusterApi::getAttunePolicy(std::string_view ns,
                                                           std::string_view name) {
  return forward(readCall("getAttunePolicy", ns, name),
                 [&] { return inner_.getAttunePolicy(ns, name); });
}

Result<List<AttunePolicy>> ForwardingClusterApi::listAttunePolicies(const ListOptions& options) {
  return forward(readCall("listAttunePolicies"),
                 [&] { return inner_.listAttunePolicies(options); });
}

Result<AttuneDefaults> ForwardingClusterApi::getAttuneDefaults(std::string_view name) {
  return forward(readCall("getAttuneDefaults", {}, name),
                 [&] { return inner_.getAttuneDefaults(name); });
}

Result<List<AttuneDefaults>> ForwardingClusterApi::listAttuneDefaults(const ListOptions& options) {
  return forward(readCall("listAttuneDefaults"),
                 [&] { return inner_.listAttuneDefaults(options); });
}

Result<AttuneNamespaceDefaults> ForwardingClusterApi::getAttuneNamespaceDefaults(
    std::string_view ns, std::string_view name) {
  return forward(readCall("getAttuneNamespaceDefaults", ns, name),
                 [&] { return inner_.getAttuneNamespaceDefaults(ns, name); });
}

Result<List<AttuneNamespaceDefaults>> ForwardingClusterApi::listAttuneNamespaceDefaults(
    const ListOptions& options) {
  return forward(readCall("listAttuneNamespaceDefaults"),
                 [&] { return inner_.listAttuneNamespaceDefaults(options); });
}

Result<Lease> ForwardingClusterApi::getLease(std::string_view ns, std::string_view name) {
  return forward(readCall("getLease", ns, name), [&] { return inner_.getLease(ns, name); });
}

Result<WatchBatch<Pod>> ForwardingClusterApi::watchPods(const ListOptions& options,
                                                        std::string_view resourceVersion) {
  return forward({.method = "watchPods", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watchPods(options, resourceVersion); });
}

Result<WatchBatch<Node>> ForwardingClusterApi::watch(Watched<Node> kind, const ListOptions& options,
                                                     std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<Deployment>> ForwardingClusterApi::watch(Watched<Deployment> kind,
                                                           const ListOptions& options,
                                                           std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<StatefulSet>> ForwardingClusterApi::watch(Watched<StatefulSet> kind,
                                                            const ListOptions& options,
                                                            std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<DaemonSet>> ForwardingClusterApi::watch(Watched<DaemonSet> kind,
                                                          const ListOptions& options,
                                                          std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<ReplicaSet>> ForwardingClusterApi::watch(Watched<ReplicaSet> kind,
                                                           const ListOptions& options,
                                                           std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<Job>> ForwardingClusterApi::watch(Watched<Job> kind, const ListOptions& options,
                                                    std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<CronJob>> ForwardingClusterApi::watch(Watched<CronJob> kind,
                                                        const ListOptions& options,
                                                        std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<LimitRange>> ForwardingClusterApi::watch(Watched<LimitRange> kind,
                                                           const ListOptions& options,
                                                           std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<ResourceQuota>> ForwardingClusterApi::watch(Watched<ResourceQuota> kind,
                                                              const ListOptions& options,
                                                              std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<HorizontalPodAutoscaler>> ForwardingClusterApi::watch(
    Watched<HorizontalPodAutoscaler> kind, const ListOptions& options,
    std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<PodDisruptionBudget>> ForwardingClusterApi::watch(
    Watched<PodDisruptionBudget> kind, const ListOptions& options,
    std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<AttunePolicy>> ForwardingClusterApi::watch(Watched<AttunePolicy> kind,
                                                             const ListOptions& options,
                                                             std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<AttuneDefaults>> ForwardingClusterApi::watch(Watched<AttuneDefaults> kind,
                                                               const ListOptions& options,
                                                               std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

Result<WatchBatch<AttuneNamespaceDefaults>> ForwardingClusterApi::watch(
    Watched<AttuneNamespaceDefaults> kind, const ListOptions& options,
    std::string_view resourceVersion) {
  return forward({.method = "watch", .kind = ForwardedCall::Kind::kWatch},
                 [&] { return inner_.watch(kind, options, resourceVersion); });
}

// ---- Writes

Result<ObjectMeta> ForwardingClusterApi::patchPodAnnotations(std::string_view ns,
                                                             std::string_view name,
                                                             const AnnotationChanges& changes,
                                                             std::string_view resourceVersion) {
  return forward({.method = "patchPodAnnotations",
                  .kind = ForwardedCall::Kind::kWrite,
                  .namespace_ = ns,
                  .name = name,
                  .preconditioned = !resourceVersion.empty(),
                  .annotations = &changes},
                 [&] { return inner_.patchPodAnnotations(ns, name, changes, resourceVersion); });
}
Result<ObjectMeta> ForwardingClusterApi::patchWorkloadAnnotations(
    WorkloadKind kind, std::string_view ns, std::string_view name, const AnnotationChanges& changes,
    std::string_view resourceVersion) {
  return forward(
      {.method = "patchWorkloadAnnotations",
       .kind = ForwardedCall::Kind::kWrite,
       .namespace_ = ns,
       .name = name,
       .preconditioned = !resourceVersion.empty(),
       .annotations = &changes},
      [&] { return inner_.patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion); });
}
Result<Pod> ForwardingClusterApi::resizePod(std::string_view ns, std::string_view name,
                                            std::span<const ContainerResize> containers) {
  return forward({.method = "resizePod",
                  .kind = ForwardedCall::Kind::kWrite,
                  .namespace_ = ns,
                  .name = name,
                  .resize = containers},
                 [&] { return inner_.resizePod(ns, name, containers); });
}
Result<void> ForwardingClusterApi::evictPod(const Eviction& eviction) {
  const auto& options = eviction.deleteOptions;
  return forward({.method = "evictPod",
                  .kind = ForwardedCall::Kind::kWrite,
                  .namespace_ = eviction.metadata.namespace_,
                  .name = eviction.metadata.name,
                  .preconditioned = options && (!options->preconditionUid.empty() ||
                                                !options->preconditionResourceVersion.empty())},
                 [&] { return inner_.evictPod(eviction); });
}

Result<Event> ForwardingClusterApi::createEvent(const Event& event) {
  return forward(writeCall("createEvent", event, false), [&] { return inner_.createEvent(event); });
}

Result<Event> ForwardingClusterApi::updateEvent(const Event& event) {
  return forward(writeCall("updateEvent", event, true), [&] { return inner_.updateEvent(event); });
}

Result<AttunePolicy> ForwardingClusterApi::createAttunePolicy(const AttunePolicy& policy) {
  return forward(writeCall("createAttunePolicy", policy, false),
                 [&] { return inner_.createAttunePolicy(policy); });
}

Result<AttunePolicy> ForwardingClusterApi::updateAttunePolicy(const AttunePolicy& policy) {
  return forward(writeCall("updateAttunePolicy", policy, true),
                 [&] { return inner_.updateAttunePolicy(policy); });
}

Result<AttunePolicy> ForwardingClusterApi::updateAttunePolicyStatus(const AttunePolicy& policy) {
  return forward(writeCall("updateAttunePolicyStatus", policy, true),
                 [&] { return inner_.updateAttunePolicyStatus(policy); });
}

Result<HorizontalPodAutoscaler> ForwardingClusterApi::updateHpa(
    const HorizontalPodAutoscaler& hpa) {
  return forward(writeCall("updateHpa", hpa, true), [&] { return inner_.updateHpa(hpa); });
}

Result<WebhookConfiguration> ForwardingClusterApi::getWebhookConfiguration(
    WebhookConfigurationKind kind, std::string_view name) {
  return forward(readCall("getWebhookConfiguration", "", name),
                 [&] { return inner_.getWebhookConfiguration(kind, name); });
}

Result<ServerVersion> ForwardingClusterApi::getServerVersion() {
  return forward(readCall("getServerVersion"), [&] { return inner_.getServerVersion(); });
}

Result<WebhookConfiguration> ForwardingClusterApi::patchWebhookCaBundles(
    const WebhookConfiguration& config) {
  return forward({.method = "patchWebhookCaBundles",
                  .kind = ForwardedCall::Kind::kWrite,
                  .name = config.metadata.name,
                  .preconditioned = !config.metadata.resourceVersion.empty()},
                 [&] { return inner_.patchWebhookCaBundles(config); });
}

Result<Node> ForwardingClusterApi::updateNodeTaints(std::string_view name,
                                                    std::span<const Taint> taints,
                                                    std::string_view resourceVersion) {
  return forward({.method = "updateNodeTaints",
                  .kind = ForwardedCall::Kind::kWrite,
                  .name = name,
                  .preconditioned = !resourceVersion.empty()},
                 [&] { return inner_.updateNodeTaints(name, taints, resourceVersion); });
}

Result<Lease> ForwardingClusterApi::createLease(const Lease& lease) {
  return forward(writeCall("createLease", lease, false), [&] { return inner_.createLease(lease); });
}

Result<Lease> ForwardingClusterApi::updateLease(const Lease& lease) {
  return forward(writeCall("updateLease", lease, true), [&] { return inner_.updateLease(lease); });
}

Result<Secret> ForwardingClusterApi::getSecret(std::string_view ns, std::string_view name) {
  return forward(readCall("getSecret", ns, name), [&] { return inner_.getSecret(ns, name); });
}

}  // namespace attune::api
