// ClusterApi: everything the controller reads from and writes to a Kubernetes cluster. Two
// implementations: kube::HttpClusterApi (the API server over HTTPS) and sim::Cluster (in
// process). A fault-injecting wrapper can sit in front of either.
//
// Shared contract of every method, matching the API server:
// - Errors: kNotFound (404) when the named object does not exist; kConflict (409) when a
//   resourceVersion precondition is stale or a created object already exists; kInvalidArgument
//   (422) when the request is invalid, with Error::field set to the offending field path (e.g.
//   "spec.containers[0].resources.requests.cpu"); kForbidden (403) when an admission plugin
//   refuses the request (ResourceQuota, LimitRanger; RBAC over HTTPS), with the API server's
//   message ("pods \"web\" is forbidden: exceeded quota: ..."); kUnavailable for transport
//   failures, 429, 5xx — except evictPod's refusal by a PodDisruptionBudget, which is
//   kDisruptionBudget (below).
// - resourceVersion is an opaque string. An empty precondition means "unconditional".
// - Returned objects are copies: they never change behind the caller's back.
// - Implementations are not required to be thread-safe; callers serialise access.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/k8s/admission.h"
#include "api/k8s/event.h"
#include "api/k8s/eviction.h"
#include "api/k8s/hpa.h"
#include "api/k8s/lease.h"
#include "api/k8s/meta.h"
#include "api/k8s/node.h"
#include "api/k8s/patch.h"
#include "api/k8s/pdb.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "api/k8s/secret.h"
#include "api/k8s/server_version.h"
#include "api/k8s/workload_ref.h"
#include "api/k8s/workloads.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/attune_policy.h"
#include "core/error.h"

namespace attune::api {

// Which objects a LIST or WATCH covers. An empty namespace means all namespaces (and is the
// only meaning for cluster-scoped kinds such as Node); an empty selector matches every object.
struct ListOptions {
  std::string namespace_;
  LabelSelector labelSelector;
};

// The events of a watch after some resourceVersion, oldest first, and the resourceVersion to
// pass to the next call to continue without gaps or repeats. A pull-style batch: an HTTP watch
// implements it by draining what its stream has delivered so far.
template <typename T>
struct WatchBatch {
  std::vector<WatchEvent<T>> events;
  std::string resourceVersion;
};

// Objects a cache shares with its readers instead of copying them for each: the list, in
// (namespace, name) order, and each object in it are immutable once handed out. A cache that
// sees an object change puts a new object in later lists; the one a reader holds stays as it
// was for as long as the reader holds it.
template <typename T>
using SharedList = std::shared_ptr<const std::vector<std::shared_ptr<const T>>>;

// `items` as a SharedList of their own (a reader without a cache: listed objects).
template <typename T>
SharedList<T> sharedListOf(std::vector<T> items) {
  auto out = std::make_shared<std::vector<std::shared_ptr<const T>>>();
  out->reserve(items.size());
  for (T& item : items) out->push_back(std::make_shared<const T>(std::move(item)));
  return out;
}

// The kind a generic watch call is for: api.watch(Watched<Deployment>{}, options, rv).
template <typename T>
struct Watched {};

// Pods read where a cache keeps them (kube::PodInformer behind kube::CachedClusterApi), instead
// of a LIST that copies every pod: a reader asks for the pods it needs, by owner or by name,
// and only those are unpacked. Pointers stay valid, and the objects unchanged, until the cache
// is next refreshed (CachedClusterApi::sync); a write made meanwhile is visible to later calls
// only. Not thread-safe.
class PodView {
 public:
  virtual ~PodView() = default;
  // The pod, or nullptr.
  virtual const Pod* pod(std::string_view ns, std::string_view name) const = 0;
  // The pods whose controller ownerReference is `kind`/`name` in namespace `ns`, in name order.
  virtual std::vector<const Pod*> podsOwnedBy(std::string_view ns, std::string_view kind,
                                              std::string_view name) const = 0;
  // Calls fn(pod) for each pod `options` selects, in (namespace, name) order: the pods and the
  // order of listPods(options). The reference is valid during the call only (one object reused
  // for every pod: nothing is kept).
  virtual void forEachPod(const ListOptions& options,
                          const std::function<void(const Pod&)>& fn) const = 0;
  // The resourceVersion the cache stands at: a pod watch from it misses nothing.
  virtual const std::string& resourceVersion() const = 0;
  // How many pods the cache holds in namespace `ns` (none unpacked).
  virtual std::size_t podCount(std::string_view ns) const = 0;
};

class ClusterApi {
 public:
  virtual ~ClusterApi() = default;

  // --- Reads. get* fail with kNotFound; list* return the matching objects (sorted by
  // namespace, then name) and the collection's resourceVersion, from which a watch can start.
  virtual Result<Pod> getPod(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<Pod>> listPods(const ListOptions& options) = 0;
  virtual Result<Node> getNode(std::string_view name) = 0;
  virtual Result<List<Node>> listNodes(const ListOptions& options) = 0;
  // Namespaces are cluster-scoped: options.namespace_ is ignored.
  virtual Result<Namespace> getNamespace(std::string_view name) = 0;
  virtual Result<List<Namespace>> listNamespaces(const ListOptions& options) = 0;
  virtual Result<Deployment> getDeployment(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<Deployment>> listDeployments(const ListOptions& options) = 0;
  virtual Result<StatefulSet> getStatefulSet(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<StatefulSet>> listStatefulSets(const ListOptions& options) = 0;
  virtual Result<DaemonSet> getDaemonSet(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<DaemonSet>> listDaemonSets(const ListOptions& options) = 0;
  virtual Result<ReplicaSet> getReplicaSet(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<ReplicaSet>> listReplicaSets(const ListOptions& options) = 0;
  virtual Result<Job> getJob(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<Job>> listJobs(const ListOptions& options) = 0;
  virtual Result<CronJob> getCronJob(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<CronJob>> listCronJobs(const ListOptions& options) = 0;
  virtual Result<List<LimitRange>> listLimitRanges(const ListOptions& options) = 0;
  // Quotas carry status.hard (= spec.hard) and status.used as the API server's quota controller
  // keeps them: used counts the namespace's pods that are not Succeeded or Failed.
  virtual Result<List<ResourceQuota>> listResourceQuotas(const ListOptions& options) = 0;
  virtual Result<HorizontalPodAutoscaler> getHpa(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<HorizontalPodAutoscaler>> listHpas(const ListOptions& options) = 0;
  // policy/v1 PodDisruptionBudgets, with the status the disruption controller keeps.
  virtual Result<List<PodDisruptionBudget>> listPodDisruptionBudgets(
      const ListOptions& options) = 0;
  virtual Result<List<Event>> listEvents(const ListOptions& options) = 0;
  // attune.io/v1alpha1 AttunePolicies, with their status.
  virtual Result<AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) = 0;
  virtual Result<List<AttunePolicy>> listAttunePolicies(const ListOptions& options) = 0;
  // attune.io/v1alpha1 AttuneDefaults (cluster-scoped; options.namespace_ is ignored) and
  // AttuneNamespaceDefaults: the defaults tiers of a policy (api/policy/attune_defaults.h).
  // Listing either kind where its CRD is not installed is kNotFound.
  virtual Result<AttuneDefaults> getAttuneDefaults(std::string_view name) = 0;
  virtual Result<List<AttuneDefaults>> listAttuneDefaults(const ListOptions& options) = 0;
  virtual Result<AttuneNamespaceDefaults> getAttuneNamespaceDefaults(std::string_view ns,
                                                                     std::string_view name) = 0;
  virtual Result<List<AttuneNamespaceDefaults>> listAttuneNamespaceDefaults(
      const ListOptions& options) = 0;
  // An admissionregistration.k8s.io/v1 Mutating- or ValidatingWebhookConfiguration
  // (cluster-scoped). kNotFound when absent.
  virtual Result<WebhookConfiguration> getWebhookConfiguration(WebhookConfigurationKind kind,
                                                               std::string_view name) = 0;
  // The API server's Kubernetes version (GET /version). kInvalidArgument when the answer holds
  // no version.
  virtual Result<ServerVersion> getServerVersion() = 0;

  // Pod changes (ADDED, MODIFIED, DELETED) strictly after `resourceVersion`, filtered by
  // `options`, oldest first; an empty resourceVersion means "from the start of the log". The
  // batch's resourceVersion is where the next call resumes (never before the argument).
  // Fails with kInvalidArgument (field "resourceVersion") on a malformed resourceVersion.
  virtual Result<WatchBatch<Pod>> watchPods(const ListOptions& options,
                                            std::string_view resourceVersion) = 0;

  // The generic watch: the changes of one kind other than pods, with the contract of
  // watchPods (events strictly after `resourceVersion`, filtered by `options`, oldest first; the
  // batch's resourceVersion is where the next call resumes; 410 Gone is kConflict with field
  // "resourceVersion"). One overload per kind the controller reads. An implementation that
  // cannot watch a kind fails with kUnsupported (the default): its reader relists instead.
  virtual Result<WatchBatch<Node>> watch(Watched<Node>, const ListOptions& options,
                                         std::string_view resourceVersion) {
    return unwatched<Node>(options, resourceVersion);
  }
  virtual Result<WatchBatch<Deployment>> watch(Watched<Deployment>, const ListOptions& options,
                                               std::string_view resourceVersion) {
    return unwatched<Deployment>(options, resourceVersion);
  }
  virtual Result<WatchBatch<StatefulSet>> watch(Watched<StatefulSet>, const ListOptions& options,
                                                std::string_view resourceVersion) {
    return unwatched<StatefulSet>(options, resourceVersion);
  }
  virtual Result<WatchBatch<DaemonSet>> watch(Watched<DaemonSet>, const ListOptions& options,
                                              std::string_view resourceVersion) {
    return unwatched<DaemonSet>(options, resourceVersion);
  }
  virtual Result<WatchBatch<ReplicaSet>> watch(Watched<ReplicaSet>, const ListOptions& options,
                                               std::string_view resourceVersion) {
    return unwatched<ReplicaSet>(options, resourceVersion);
  }
  virtual Result<WatchBatch<Job>> watch(Watched<Job>, const ListOptions& options,
                                        std::string_view resourceVersion) {
    return unwatched<Job>(options, resourceVersion);
  }
  virtual Result<WatchBatch<CronJob>> watch(Watched<CronJob>, const ListOptions& options,
                                            std::string_view resourceVersion) {
    return unwatched<CronJob>(options, resourceVersion);
  }
  virtual Result<WatchBatch<LimitRange>> watch(Watched<LimitRange>, const ListOptions& options,
                                               std::string_view resourceVersion) {
    return unwatched<LimitRange>(options, resourceVersion);
  }
  virtual Result<WatchBatch<ResourceQuota>> watch(Watched<ResourceQuota>,
                                                  const ListOptions& options,
                                                  std::string_view resourceVersion) {
    return unwatched<ResourceQuota>(options, resourceVersion);
  }
  virtual Result<WatchBatch<HorizontalPodAutoscaler>> watch(Watched<HorizontalPodAutoscaler>,
                                                            const ListOptions& options,
                                                            std::string_view resourceVersion) {
    return unwatched<HorizontalPodAutoscaler>(options, resourceVersion);
  }
  virtual Result<WatchBatch<PodDisruptionBudget>> watch(Watched<PodDisruptionBudget>,
                                                        const ListOptions& options,
                                                        std::string_view resourceVersion) {
    return unwatched<PodDisruptionBudget>(options, resourceVersion);
  }
  virtual Result<WatchBatch<AttunePolicy>> watch(Watched<AttunePolicy>, const ListOptions& options,
                                                 std::string_view resourceVersion) {
    return unwatched<AttunePolicy>(options, resourceVersion);
  }
  virtual Result<WatchBatch<AttuneDefaults>> watch(Watched<AttuneDefaults>,
                                                   const ListOptions& options,
                                                   std::string_view resourceVersion) {
    return unwatched<AttuneDefaults>(options, resourceVersion);
  }
  virtual Result<WatchBatch<AttuneNamespaceDefaults>> watch(Watched<AttuneNamespaceDefaults>,
                                                            const ListOptions& options,
                                                            std::string_view resourceVersion) {
    return unwatched<AttuneNamespaceDefaults>(options, resourceVersion);
  }

  // One page of the pod LIST `options` selects, for a reader that consumes a large list piece
  // by piece instead of holding it whole: at most `limit` pods (0: no limit) after
  // `continueToken` ("" = the first page), in (namespace, name) order. The page's continueToken
  // is empty on the last page; every page carries the resourceVersion of the first one. A token
  // the server no longer honours fails with kConflict (field "resourceVersion", the API server's
  // 410 Gone): the reader starts again from the first page. The default serves the whole list
  // as its only page.
  virtual Result<List<Pod>> listPodsPage(const ListOptions& options, std::size_t limit,
                                         std::string_view continueToken) {
    (void)limit;
    if (!continueToken.empty()) {
      return fail(ErrorCode::kInvalidArgument, "this ClusterApi does not page lists", "continue");
    }
    return listPods(options);
  }

  // The pods of namespace `ns` ("" = all) to read in place, or nullptr when this api keeps no
  // cache that covers them (read them with listPods then). Valid until the cache is next
  // refreshed. The default has none.
  virtual const PodView* podView(std::string_view ns) {
    (void)ns;
    return nullptr;
  }

  // The Deployments and ReplicaSets of namespace `ns` ("" = all) as a cache keeps them, shared
  // with every reader instead of copied for each: the items listDeployments / listReplicaSets
  // would return, unchanged for as long as the pointer is held (a later write gives later calls
  // a new list, in which only the objects that changed are new). nullptr when this api keeps no
  // such cache (list them then). The defaults have none.
  virtual SharedList<Deployment> sharedDeployments(std::string_view ns) {
    (void)ns;
    return nullptr;
  }
  virtual SharedList<ReplicaSet> sharedReplicaSets(std::string_view ns) {
    (void)ns;
    return nullptr;
  }
  // The nodes (every one: they are cluster-scoped), shared in the same way. nullptr when this
  // api keeps no such cache. The default has none.
  virtual SharedList<Node> sharedNodes() { return nullptr; }
  // The AttunePolicies of namespace `ns` ("" = all), shared in the same way: the items
  // listAttunePolicies would return, the same list (the same pointer) for as long as none of
  // them changes, so that a reader holding it can tell that nothing changed without comparing
  // them. nullptr when this api keeps no such cache. The default has none.
  virtual SharedList<AttunePolicy> sharedAttunePolicies(std::string_view ns) {
    (void)ns;
    return nullptr;
  }

  // --- Tasks.
  // A task: calls made in order on the ClusterApi it is given (the controller's actuation of one
  // policy's plan: each pod's record, its resize, its workload's cooldown).
  using Task = std::function<void(ClusterApi&)>;
  // Runs every task of `tasks`, and returns once all have ended. The default runs them one after
  // another, in order, on this api. kube::HttpClusterApi runs up to taskLanes() of them at once,
  // each on a connection and a thread of its own (and kube::CachedClusterApi over it records
  // their writes in its caches as its own writes are): tasks must not depend on one another (no
  // task reads what another writes, no two write the same object), and what a task touches
  // besides the api it is given must be its own. Each task's calls are made in its order.
  virtual void runTasks(std::span<const Task> tasks) {
    for (const Task& task : tasks) task(*this);
  }
  // How many tasks runTasks runs at once (1: one after another).
  virtual std::size_t taskLanes() const { return 1; }

  // --- Writes.
  // JSON merge patch of metadata.annotations (`changes`: set, or nullopt to delete). When
  // `resourceVersion` is not empty it is a precondition: kConflict unless it is the object's
  // current one. Never changes metadata.generation. Returns the patched object's metadata
  // (a no-op patch returns it unchanged, resourceVersion included).
  virtual Result<ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                                 const AnnotationChanges& changes,
                                                 std::string_view resourceVersion) = 0;
  virtual Result<ObjectMeta> patchWorkloadAnnotations(WorkloadKind kind, std::string_view ns,
                                                      std::string_view name,
                                                      const AnnotationChanges& changes,
                                                      std::string_view resourceVersion) = 0;

  // The pod `resize` subresource (KEP-1287): sets the desired resources of the named containers
  // (regular containers and sidecars), leaving the others unchanged. Fails with
  // kInvalidArgument (field set) when a container does not exist, a quantity is negative, a
  // limit is below its request, a resource other than cpu/memory would change, or the pod's
  // QoS class would change. Fails with kForbidden when admission refuses the new resources: a
  // container outside a LimitRange's min/max (or maxLimitRequestRatio) in the pod's namespace,
  // or an increase that would take a ResourceQuota's used above its hard limit. On success the
  // spec holds the desired resources and metadata.generation advances; the kubelet applies them
  // later and reports progress in the PodResizePending / PodResizeInProgress conditions. A
  // resize that changes nothing is not a write. Returns the updated pod.
  virtual Result<Pod> resizePod(std::string_view ns, std::string_view name,
                                std::span<const ContainerResize> containers) = 0;

  // POST to the pod's eviction subresource, which honours PodDisruptionBudgets as the API
  // server does (pkg/registry/core/pod/storage/eviction.go). deleteOptions preconditions (uid,
  // resourceVersion) give kConflict when they do not match. A pod that is Pending, Succeeded,
  // Failed or already deleting is deleted without a budget check. Otherwise the budgets of the
  // pod's namespace whose (non-empty) selector matches it decide:
  // - none: the pod is deleted;
  // - more than one: kInternal (HTTP 500), "This pod has more than one PodDisruptionBudget,
  //   which the eviction subresource does not support."; the pod stays;
  // - a pod that is not Ready: deleted without using the budget when its
  //   unhealthyPodEvictionPolicy is AlwaysAllow, or (unset / IfHealthyBudget) when
  //   currentHealthy >= desiredHealthy > 0; otherwise as a Ready pod;
  // - a budget whose status.observedGeneration is behind metadata.generation, or with
  //   disruptionsAllowed 0: kDisruptionBudget (HTTP 429 TooManyRequests with a DisruptionBudget
  //   cause; message kEvictionRefusedMessage, then the cause, e.g. "The disruption budget web
  //   needs 2 healthy pods and has 2 currently"); the pod stays;
  // - else the budget's disruptionsAllowed drops by one, the pod is recorded in its
  //   status.disruptedPods, and the pod is deleted.
  // A dry run (deleteOptions.dryRun) checks everything and changes nothing. On success the pod
  // is deleted.
  virtual Result<void> evictPod(const Eviction& eviction) = 0;

  // Creates a core/v1 Event (metadata.name may be empty when generateName is set). Returns the
  // stored event with uid, resourceVersion and creationTimestamp filled in.
  // kInvalidArgument (field "involvedObject.namespace") when involvedObject.namespace is set and
  // differs from metadata.namespace, or is empty while metadata.namespace is neither empty nor
  // "default" (the API server's rule for core/v1 Events).
  virtual Result<Event> createEvent(const Event& event) = 0;
  // Replaces a stored Event (PUT) — how a recorder deduplicates: it bumps count and
  // lastTimestamp (and may change message) of the event it already wrote. Everything but the
  // identity and system metadata (name, namespace, uid, creationTimestamp) is replaced;
  // metadata.resourceVersion (when not empty) is a precondition (kConflict when stale);
  // kNotFound when absent; the namespace rule of createEvent applies. An event equal to the
  // stored one is not a write. Returns the stored event.
  virtual Result<Event> updateEvent(const Event& event) = 0;

  // AttunePolicy writes (a custom resource with the status subresource enabled).
  // create: kInvalidArgument without name (or generateName) or namespace; kConflict when it
  // exists. .status in the request is ignored (the stored policy starts with an empty status);
  // generation starts at 1. Returns the stored policy.
  virtual Result<AttunePolicy> createAttunePolicy(const AttunePolicy& policy) = 0;
  // PUT on the policy: replaces spec, labels, annotations and ownerReferences; .status in the
  // request is ignored. metadata.resourceVersion (when not empty) is a precondition (kConflict when
  // stale); kNotFound when absent. metadata.generation advances by one when the spec changes (not
  // for a metadata-only change); a request that changes nothing is not a write. Returns the stored
  // policy.
  virtual Result<AttunePolicy> updateAttunePolicy(const AttunePolicy& policy) = 0;
  // PUT on the `status` subresource: replaces .status only — spec and metadata in the request
  // are ignored. metadata.resourceVersion (when not empty) is a precondition (kConflict when
  // stale); kNotFound when absent. Never changes metadata.generation; a status equal to the
  // stored one is not a write (same resourceVersion). Returns the stored policy.
  virtual Result<AttunePolicy> updateAttunePolicyStatus(const AttunePolicy& policy) = 0;
  // Each of `policies` written as updateAttunePolicyStatus writes it, with the results in the same
  // order. This sends them one after another; kube::HttpClusterApi sends several at once
  // (HttpClusterApiOptions::parallelWrites), so their order is not kept: one call must not hold
  // two writes of the same policy.
  virtual std::vector<Result<AttunePolicy>> updateAttunePolicyStatuses(
      std::span<const AttunePolicy> policies) {
    std::vector<Result<AttunePolicy>> results;
    results.reserve(policies.size());
    for (const AttunePolicy& policy : policies) results.push_back(updateAttunePolicyStatus(policy));
    return results;
  }

  // PUT on an autoscaling/v2 HorizontalPodAutoscaler: replaces spec, labels and annotations;
  // .status in the request is ignored (the HPA controller owns it). metadata.resourceVersion
  // (when not empty) is a precondition (kConflict when stale); kNotFound when absent.
  // metadata.generation advances by one when the spec changes; a request that changes nothing
  // is not a write. Returns the stored HPA.
  virtual Result<HorizontalPodAutoscaler> updateHpa(const HorizontalPodAutoscaler& hpa) = 0;

  // Sets clientConfig.caBundle of the webhooks of a Mutating- or ValidatingWebhookConfiguration:
  // `config` as read, with each webhook's caBundle changed (the other fields are not sent). A
  // JSON Patch that tests each webhook's name at its index (and metadata.resourceVersion when
  // set) before replacing its caBundle, so a configuration changed since it was read is not
  // patched (kInvalidArgument or kConflict); kNotFound when absent. Bundles equal to the stored
  // ones are not a write. Returns the stored configuration.
  virtual Result<WebhookConfiguration> patchWebhookCaBundles(
      const WebhookConfiguration& config) = 0;

  // Replaces a Node's spec.taints (a JSON merge patch of spec.taints, as `kubectl taint` changes
  // them): `taints` is the whole new list. `resourceVersion`, when not empty, is a precondition
  // (kConflict when stale); kNotFound when absent. A list equal to the stored one is not a
  // write. Returns the stored node.
  virtual Result<Node> updateNodeTaints(std::string_view name, std::span<const Taint> taints,
                                        std::string_view resourceVersion) = 0;

  // coordination.k8s.io Leases for leader election. create fails with kConflict when the lease
  // exists; update replaces the spec, with metadata.resourceVersion (when not empty) as a
  // precondition (kConflict when stale). Both return the stored lease.
  virtual Result<Lease> getLease(std::string_view ns, std::string_view name) = 0;
  virtual Result<Lease> createLease(const Lease& lease) = 0;
  virtual Result<Lease> updateLease(const Lease& lease) = 0;

  // A core/v1 Secret (its data decoded), for the credentials a policy names (a Prometheus
  // bearer token). kNotFound when absent; kForbidden when RBAC does not allow `get` on it.
  virtual Result<Secret> getSecret(std::string_view ns, std::string_view name) = 0;

 protected:
  // The default generic watch's answer.
  template <typename T>
  static Result<WatchBatch<T>> unwatched(const ListOptions&, std::string_view) {
    return fail(ErrorCode::kUnsupported, "this ClusterApi cannot watch this kind");
  }
};
using ClusterApiPtr = std::unique_ptr<ClusterApi>;

}  // namespace attune::api
