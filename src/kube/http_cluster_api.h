// kube::HttpClusterApi: api::ClusterApi over the Kubernetes REST API (HTTPS via libcurl).
//
// Mapping of the ClusterApi contract onto the API server (docs/kube.md has the full table):
// - reads: GET of the object or collection; lists are paginated with limit/continue and the
//   pages merged (the first page's resourceVersion is the list's); items sorted by namespace,
//   then name.
// - errors: see kube::statusError (rest_client.h): the API server's Status message, 422's
//   details.causes[0].field as Error::field; 410 Gone (an expired list continue token or watch
//   resourceVersion) is kConflict with field "resourceVersion": the caller lists again.
// - retries: transport errors, 429 (honouring Retry-After) and 5xx are retried with backoff;
//   every attempt takes a token from the client-side QPS/burst limiter (RestOptions).
// - watchPods and the generic watch: one streaming GET ?watch=1&allowWatchBookmarks=true&
//   resourceVersion=... per kind, read by a background thread; each call drains what has arrived
//   (see HttpClusterApiOptions::watchWait). Bookmarks advance the batch's resourceVersion
//   without events.
// Not thread-safe (as ClusterApi); the watch reader thread is internal.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "http/http_client.h"
#include "kube/kubeconfig.h"
#include "kube/pod_watch.h"
#include "kube/resources.h"
#include "kube/rest_client.h"

namespace attune::kube {

struct HttpClusterApiOptions {
  RestOptions rest;
  int listPageSize = 500;  // the `limit` of each LIST page
  // How long watchPods waits for the first event when none has arrived yet (zero: it returns
  // what is there at once, the usual pull-style use from a reconcile loop).
  Duration watchWait = Duration::zero();
  // timeoutSeconds asked of the server for each watch request; the stream is reopened from the
  // last resourceVersion by the next watchPods call after the server ends it.
  Duration watchTimeout = std::chrono::minutes(5);
  // Sharded: the namespaces whose objects the caller keeps (the caches' namespaceFilter). Every
  // watch stream passes over the events of namespaced objects in the other namespaces without
  // decoding them (WatchStream's `keep`); cluster-scoped objects are decoded as before. Empty:
  // every event is decoded.
  std::function<bool(std::string_view)> watchNamespaceFilter;
  // How many tasks runTasks (and so updateAttunePolicyStatuses) runs at once, each on a
  // connection of its own (1: one after another, on the client's connection).
  int parallelWrites = 1;
};

// Makes a transport; called once for requests and once per watch stream (each on its own
// thread).
using TransportFactory = std::function<http::HttpTransportPtr()>;

class HttpClusterApi final : public api::ClusterApi {
 public:
  // Talks to config.server with config.http (auth, TLS) through CurlHttpClient.
  HttpClusterApi(const ClusterConfig& config, Clock& clock, HttpClusterApiOptions options = {});
  // Talks to `server` (base URL, no trailing "/") through transports from `factory`.
  HttpClusterApi(std::string server, TransportFactory factory, Clock& clock,
                 HttpClusterApiOptions options = {});
  ~HttpClusterApi() override;
  HttpClusterApi(const HttpClusterApi&) = delete;
  HttpClusterApi& operator=(const HttpClusterApi&) = delete;

  Result<api::Pod> getPod(std::string_view ns, std::string_view name) override;
  Result<api::List<api::Pod>> listPods(const api::ListOptions& options) override;
  Result<api::Node> getNode(std::string_view name) override;
  Result<api::List<api::Node>> listNodes(const api::ListOptions& options) override;
  Result<api::Namespace> getNamespace(std::string_view name) override;
  Result<api::List<api::Namespace>> listNamespaces(const api::ListOptions& options) override;
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
  Result<api::List<api::HorizontalPodAutoscaler>> listHpas(
      const api::ListOptions& options) override;
  Result<api::List<api::PodDisruptionBudget>> listPodDisruptionBudgets(
      const api::ListOptions& options) override;
  Result<api::List<api::Event>> listEvents(const api::ListOptions& options) override;
  Result<api::AttunePolicy> getAttunePolicy(std::string_view ns, std::string_view name) override;
  Result<api::List<api::AttunePolicy>> listAttunePolicies(const api::ListOptions& options) override;
  Result<api::AttuneDefaults> getAttuneDefaults(std::string_view name) override;
  Result<api::List<api::AttuneDefaults>> listAttuneDefaults(
      const api::ListOptions& options) override;
  Result<api::AttuneNamespaceDefaults> getAttuneNamespaceDefaults(std::string_view ns,
                                                                  std::string_view name) override;
  Result<api::List<api::AttuneNamespaceDefaults>> listAttuneNamespaceDefaults(
      const api::ListOptions& options) override;

  Result<api::WatchBatch<api::Pod>> watchPods(const api::ListOptions& options,
                                              std::string_view resourceVersion) override;
  // The generic watch, for every kind ClusterApi names: the same stream as watchPods on the
  // kind's collection, one open stream per kind.
  Result<api::WatchBatch<api::Node>> watch(api::Watched<api::Node>, const api::ListOptions& options,
                                           std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::Deployment>> watch(api::Watched<api::Deployment>,
                                                 const api::ListOptions& options,
                                                 std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::StatefulSet>> watch(api::Watched<api::StatefulSet>,
                                                  const api::ListOptions& options,
                                                  std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::DaemonSet>> watch(api::Watched<api::DaemonSet>,
                                                const api::ListOptions& options,
                                                std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::ReplicaSet>> watch(api::Watched<api::ReplicaSet>,
                                                 const api::ListOptions& options,
                                                 std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::Job>> watch(api::Watched<api::Job>, const api::ListOptions& options,
                                          std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::CronJob>> watch(api::Watched<api::CronJob>,
                                              const api::ListOptions& options,
                                              std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::LimitRange>> watch(api::Watched<api::LimitRange>,
                                                 const api::ListOptions& options,
                                                 std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::ResourceQuota>> watch(api::Watched<api::ResourceQuota>,
                                                    const api::ListOptions& options,
                                                    std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::HorizontalPodAutoscaler>> watch(
      api::Watched<api::HorizontalPodAutoscaler>, const api::ListOptions& options,
      std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::PodDisruptionBudget>> watch(
      api::Watched<api::PodDisruptionBudget>, const api::ListOptions& options,
      std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::AttuneDefaults>> watch(api::Watched<api::AttuneDefaults>,
                                                     const api::ListOptions& options,
                                                     std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::AttuneNamespaceDefaults>> watch(
      api::Watched<api::AttuneNamespaceDefaults>, const api::ListOptions& options,
      std::string_view resourceVersion) override;
  Result<api::WatchBatch<api::AttunePolicy>> watch(api::Watched<api::AttunePolicy>,
                                                   const api::ListOptions& options,
                                                   std::string_view resourceVersion) override;
  // One GET of the collection with limit (0: the server's default, none) and continue.
  Result<api::List<api::Pod>> listPodsPage(const api::ListOptions& options, std::size_t limit,
                                           std::string_view continueToken) override;

  // PATCH application/merge-patch+json {"metadata":{"annotations":{...},"resourceVersion":rv}}
  // (resourceVersion only when given: the API server then answers 409 when it is stale).
  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view resourceVersion) override;
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view resourceVersion) override;
  // GET the pod (to place each name in containers or initContainers), then PATCH pods/{name}/
  // resize with application/strategic-merge-patch+json (containers merge by name). A cpu or
  // memory entry the pod has but the request lacks is deleted (null). kInvalidArgument (field
  // "spec.containers") for a name the pod does not have, before any write.
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override;
  Result<void> evictPod(const api::Eviction& eviction) override;
  Result<api::Event> createEvent(const api::Event& event) override;
  Result<api::Event> updateEvent(const api::Event& event) override;
  Result<api::AttunePolicy> createAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicy(const api::AttunePolicy& policy) override;
  Result<api::AttunePolicy> updateAttunePolicyStatus(const api::AttunePolicy& policy) override;
  // Each write is a task of runTasks: with parallelWrites above 1, up to that many go out at
  // once on its lanes, with the lanes' limiter and retries (this client's). rest().attempts()
  // counts only requests sent on the client's own connection.
  std::vector<Result<api::AttunePolicy>> updateAttunePolicyStatuses(
      std::span<const api::AttunePolicy> policies) override;
  // With parallelWrites above 1: up to that many tasks at once, each on a thread and a lane of
  // its own for the call (an HttpClusterApi with a connection of its own, made on first use and
  // kept). Every request of every lane takes its token from this client's limiter, and is
  // retried as this client's are. A task's reads are the API server's answers (a lane keeps no
  // watch).
  void runTasks(std::span<const Task> tasks) override;
  std::size_t taskLanes() const override;
  Result<api::HorizontalPodAutoscaler> updateHpa(const api::HorizontalPodAutoscaler& hpa) override;
  Result<api::Lease> getLease(std::string_view ns, std::string_view name) override;
  Result<api::WebhookConfiguration> getWebhookConfiguration(api::WebhookConfigurationKind kind,
                                                            std::string_view name) override;
  Result<api::ServerVersion> getServerVersion() override;
  Result<api::WebhookConfiguration> patchWebhookCaBundles(
      const api::WebhookConfiguration& config) override;
  Result<api::Node> updateNodeTaints(std::string_view name, std::span<const api::Taint> taints,
                                     std::string_view resourceVersion) override;
  Result<api::Lease> createLease(const api::Lease& lease) override;
  Result<api::Lease> updateLease(const api::Lease& lease) override;
  Result<api::Secret> getSecret(std::string_view ns, std::string_view name) override;

  // The request path (limiter, retries, attempt count).
  RestClient& rest() { return rest_; }

 private:
  // The key to the lane constructor: runTasks' lanes only.
  struct LaneKey {};

 public:
  // A lane of `owner`'s runTasks: its server, transports and options, a connection of its own,
  // and `owner`'s rate limiter.
  HttpClusterApi(LaneKey, HttpClusterApi& owner);

 private:
  struct Watch;
  template <typename T>
  struct TypedWatch;
  // One watch call on `resource`'s collection (see watchPods).
  template <typename T>
  Result<api::WatchBatch<T>> watchResource(const Resource& resource,
                                           const api::ListOptions& options,
                                           std::string_view resourceVersion,
                                           typename WatchStream<T>::Decode decode = {});
  template <typename T, typename Decode>
  Result<api::List<T>> listAll(const Resource& resource, const api::ListOptions& options,
                               Decode decode);
  template <typename T, typename Decode>
  Result<T> getOne(const std::string& path, Decode decode);
  template <typename T, typename Decode>
  Result<T> write(http::HttpRequest::Method method, const std::string& path, std::string body,
                  std::string contentType, Decode decode);
  Result<std::string> annotationPatch(const api::AnnotationChanges& changes,
                                      std::string_view resourceVersion) const;

  TransportFactory factory_;
  HttpClusterApiOptions options_;
  RestClient rest_;
  // runTasks' lanes (parallelWrites of them, made on first use).
  std::vector<std::unique_ptr<HttpClusterApi>> taskLanes_;
  // The open watch of each resource, by collection ("pods", "deployments", ...).
  std::map<std::string, std::unique_ptr<Watch>, std::less<>> watches_;
};

}  // namespace attune::kube
