// ClusterApi: everything the controller reads from and writes to a Kubernetes cluster. Two
// implementations: kube::HttpClusterApi (the API server over HTTPS) and sim::Cluster (in
// process). A fault-injecting wrapper can sit in front of either.
//
// Shared contract of every method, matching the API server:
// - Errors: kNotFound (404) when the named object does not exist; kConflict (409) when a
//   resourceVersion precondition is stale or a created object already exists; kInvalidArgument
//   (422) when the request is invalid, with Error::field set to the offending field path (e.g.
//   "spec.containers[0].resources.requests.cpu"); kUnavailable for transport failures, 429, 5xx.
// - resourceVersion is an opaque string. An empty precondition means "unconditional".
// - Returned objects are copies: they never change behind the caller's back.
// - Implementations are not required to be thread-safe; callers serialise access.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/event.h"
#include "api/k8s/eviction.h"
#include "api/k8s/hpa.h"
#include "api/k8s/lease.h"
#include "api/k8s/meta.h"
#include "api/k8s/node.h"
#include "api/k8s/patch.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "api/k8s/workloads.h"
#include "core/error.h"

namespace attune::api {

// Which objects a LIST or WATCH covers. An empty namespace means all namespaces (and is the
// only meaning for cluster-scoped kinds such as Node); an empty selector matches every object.
struct ListOptions {
  std::string namespace_;
  LabelSelector labelSelector;
};

// The workload kinds whose metadata Attune patches (per-workload cooldown state).
enum class WorkloadKind { kDeployment, kStatefulSet, kDaemonSet, kReplicaSet, kJob, kCronJob };

// Desired resources for one container in a resize request. Only cpu and memory requests and
// limits may differ from the container's current resources.
struct ContainerResize {
  std::string name;
  ResourceRequirements resources;
};

// The events of a watch after some resourceVersion, oldest first, and the resourceVersion to
// pass to the next call to continue without gaps or repeats. A pull-style batch: an HTTP watch
// implements it by draining what its stream has delivered so far.
template <typename T>
struct WatchBatch {
  std::vector<WatchEvent<T>> events;
  std::string resourceVersion;
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
  virtual Result<List<ResourceQuota>> listResourceQuotas(const ListOptions& options) = 0;
  virtual Result<List<HorizontalPodAutoscaler>> listHpas(const ListOptions& options) = 0;
  virtual Result<List<Event>> listEvents(const ListOptions& options) = 0;

  // Pod changes (ADDED, MODIFIED, DELETED) strictly after `resourceVersion`, filtered by
  // `options`, oldest first; an empty resourceVersion means "from the start of the log". The
  // batch's resourceVersion is where the next call resumes (never before the argument).
  // Fails with kInvalidArgument (field "resourceVersion") on a malformed resourceVersion.
  virtual Result<WatchBatch<Pod>> watchPods(const ListOptions& options,
                                            std::string_view resourceVersion) = 0;

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
  // QoS class would change. On success the spec holds the desired resources and
  // metadata.generation advances; the kubelet applies them later and reports progress in the
  // PodResizePending / PodResizeInProgress conditions. Returns the updated pod.
  virtual Result<Pod> resizePod(std::string_view ns, std::string_view name,
                                std::span<const ContainerResize> containers) = 0;

  // POST to the pod's eviction subresource. deleteOptions preconditions (uid, resourceVersion)
  // give kConflict when they do not match. On success the pod is deleted.
  virtual Result<void> evictPod(const Eviction& eviction) = 0;

  // Creates a core/v1 Event (metadata.name may be empty when generateName is set). Returns the
  // stored event with uid, resourceVersion and creationTimestamp filled in.
  virtual Result<Event> createEvent(const Event& event) = 0;

  // coordination.k8s.io Leases for leader election. create fails with kConflict when the lease
  // exists; update replaces the spec, with metadata.resourceVersion (when not empty) as a
  // precondition (kConflict when stale). Both return the stored lease.
  virtual Result<Lease> getLease(std::string_view ns, std::string_view name) = 0;
  virtual Result<Lease> createLease(const Lease& lease) = 0;
  virtual Result<Lease> updateLease(const Lease& lease) = 0;
};
using ClusterApiPtr = std::unique_ptr<ClusterApi>;

}  // namespace attune::api
