// HttpClusterApi: construction, reads and the pod watch. Writes are in
// http_cluster_api_writes.cc.
#include "kube/http_cluster_api.h"

#include <algorithm>
#include <tuple>

#include "api/k8s/decode.h"
#include "kube/pod_watch.h"
#include "kube/wire.h"

namespace attune::kube {
namespace {

using Method = http::HttpRequest::Method;

// A response body the decoders reject is the server's fault, not the caller's.
Error responseError(Error e, std::string_view what) {
  e.code = ErrorCode::kInternal;
  e.message = "response of " + std::string(what) + " does not decode: " + e.message;
  return e;
}

template <typename T>
void sortByNamespaceAndName(std::vector<T>& items) {
  std::ranges::stable_sort(items, [](const T& a, const T& b) {
    return std::tie(a.metadata.namespace_, a.metadata.name) <
           std::tie(b.metadata.namespace_, b.metadata.name);
  });
}

// "?k=v&k=v" from non-empty values (percent-encoded).
std::string query(std::initializer_list<std::pair<std::string_view, std::string_view>> params) {
  std::string out;
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    out += out.empty() ? '?' : '&';
    out += key;
    out += '=';
    out += http::percentEncode(value);
  }
  return out;
}

}  // namespace

// An open watch and what it was opened for.
struct HttpClusterApi::Watch {
  virtual ~Watch() = default;
  std::string path;        // collection path and selector it covers
  std::string resumeFrom;  // the resourceVersion the next watch call is expected to pass
};

template <typename T>
struct HttpClusterApi::TypedWatch final : Watch {
  std::unique_ptr<WatchStream<T>> stream;
};

HttpClusterApi::HttpClusterApi(const ClusterConfig& config, Clock& clock,
                               HttpClusterApiOptions options)
    : HttpClusterApi(
          config.server,
          [http = config.http] { return std::make_unique<http::CurlHttpClient>(http); }, clock,
          options) {}

HttpClusterApi::HttpClusterApi(std::string server, TransportFactory factory, Clock& clock,
                               HttpClusterApiOptions options)
    : factory_(std::move(factory)),
      options_(options),
      rest_(std::move(server), factory_(), clock, options.rest) {}

HttpClusterApi::HttpClusterApi(LaneKey, HttpClusterApi& owner)
    : factory_(owner.factory_),
      options_(owner.options_),
      rest_(owner.rest_.server(), factory_(), owner.rest_.clock(), owner.options_.rest,
            &owner.rest_.limiter()) {
  options_.parallelWrites = 1;
}

HttpClusterApi::~HttpClusterApi() = default;

template <typename T, typename Decode>
Result<T> HttpClusterApi::getOne(const std::string& path, Decode decode) {
  auto body = rest_.call(Method::kGet, path);
  if (!body) return std::unexpected(body.error());
  auto object = decode(*body);
  if (!object) return std::unexpected(responseError(object.error(), "GET " + path));
  return std::move(*object);
}

template <typename T, typename Decode>
Result<api::List<T>> HttpClusterApi::listAll(const Resource& resource,
                                             const api::ListOptions& options, Decode decode) {
  auto selector = selectorQuery(options.labelSelector);
  if (!selector) return std::unexpected(selector.error());
  const std::string path = collectionPath(resource, options.namespace_);
  const std::string limit = std::to_string(std::max(1, options_.listPageSize));
  api::List<T> all;
  std::string continueToken;
  bool first = true;
  do {
    const std::string target =
        path + query({{"limit", limit}, {"labelSelector", *selector}, {"continue", continueToken}});
    auto body = rest_.call(Method::kGet, target);
    if (!body) return std::unexpected(body.error());
    auto page = decode(*body);
    if (!page) return std::unexpected(responseError(page.error(), "GET " + target));
    if (first) all.resourceVersion = page->resourceVersion;
    first = false;
    std::ranges::move(page->items, std::back_inserter(all.items));
    continueToken = page->continueToken;
  } while (!continueToken.empty());
  sortByNamespaceAndName(all.items);
  return all;
}

Result<api::List<api::Pod>> HttpClusterApi::listPodsPage(const api::ListOptions& options,
                                                         std::size_t limit,
                                                         std::string_view continueToken) {
  auto selector = selectorQuery(options.labelSelector);
  if (!selector) return std::unexpected(selector.error());
  const std::string target = collectionPath(kPods, options.namespace_) +
                             query({{"limit", limit == 0 ? std::string() : std::to_string(limit)},
                                    {"labelSelector", *selector},
                                    {"continue", std::string(continueToken)}});
  auto body = rest_.call(Method::kGet, target);
  if (!body) return std::unexpected(body.error());
  auto page = api::decodeList<api::Pod>(*body);
  if (!page) return std::unexpected(responseError(page.error(), "GET " + target));
  sortByNamespaceAndName(page->items);
  return page;
}

#define ATTUNE_KUBE_GET(Type, Name, resource, decoder)                                      \
  Result<api::Type> HttpClusterApi::get##Name(std::string_view ns, std::string_view name) { \
    return getOne<api::Type>(objectPath(resource, ns, name), api::decoder);                 \
  }
#define ATTUNE_KUBE_LIST(Type, Name, resource)                                               \
  Result<api::List<api::Type>> HttpClusterApi::list##Name(const api::ListOptions& options) { \
    return listAll<api::Type>(resource, options, api::decodeList<api::Type>);                \
  }

ATTUNE_KUBE_GET(Pod, Pod, kPods, decodePod)
ATTUNE_KUBE_LIST(Pod, Pods, kPods)
ATTUNE_KUBE_GET(Deployment, Deployment, kDeployments, decodeDeployment)
ATTUNE_KUBE_LIST(Deployment, Deployments, kDeployments)
ATTUNE_KUBE_GET(StatefulSet, StatefulSet, kStatefulSets, decodeStatefulSet)
ATTUNE_KUBE_LIST(StatefulSet, StatefulSets, kStatefulSets)
ATTUNE_KUBE_GET(DaemonSet, DaemonSet, kDaemonSets, decodeDaemonSet)
ATTUNE_KUBE_LIST(DaemonSet, DaemonSets, kDaemonSets)
ATTUNE_KUBE_GET(ReplicaSet, ReplicaSet, kReplicaSets, decodeReplicaSet)
ATTUNE_KUBE_LIST(ReplicaSet, ReplicaSets, kReplicaSets)
ATTUNE_KUBE_GET(Job, Job, kJobs, decodeJob)
ATTUNE_KUBE_LIST(Job, Jobs, kJobs)
ATTUNE_KUBE_GET(CronJob, CronJob, kCronJobs, decodeCronJob)
ATTUNE_KUBE_LIST(CronJob, CronJobs, kCronJobs)
ATTUNE_KUBE_LIST(LimitRange, LimitRanges, kLimitRanges)
ATTUNE_KUBE_LIST(ResourceQuota, ResourceQuotas, kResourceQuotas)
ATTUNE_KUBE_GET(HorizontalPodAutoscaler, Hpa, kHpas, decodeHorizontalPodAutoscaler)
ATTUNE_KUBE_LIST(HorizontalPodAutoscaler, Hpas, kHpas)
ATTUNE_KUBE_LIST(PodDisruptionBudget, PodDisruptionBudgets, kPodDisruptionBudgets)
ATTUNE_KUBE_LIST(Event, Events, kEvents)
ATTUNE_KUBE_GET(Lease, Lease, kLeases, decodeLease)
ATTUNE_KUBE_GET(Secret, Secret, kSecrets, decodeSecret)

#undef ATTUNE_KUBE_GET
#undef ATTUNE_KUBE_LIST

Result<api::WebhookConfiguration> HttpClusterApi::getWebhookConfiguration(
    api::WebhookConfigurationKind kind, std::string_view name) {
  return getOne<api::WebhookConfiguration>(objectPath(webhookConfigurations(kind), "", name),
                                           api::decodeWebhookConfiguration);
}

Result<api::ServerVersion> HttpClusterApi::getServerVersion() {
  return getOne<api::ServerVersion>("/version", api::decodeServerVersion);
}

Result<api::Node> HttpClusterApi::getNode(std::string_view name) {
  return getOne<api::Node>(objectPath(kNodes, "", name), api::decodeNode);
}

Result<api::List<api::Node>> HttpClusterApi::listNodes(const api::ListOptions& options) {
  api::ListOptions clusterWide = options;
  clusterWide.namespace_.clear();
  return listAll<api::Node>(kNodes, clusterWide, api::decodeList<api::Node>);
}

Result<api::Namespace> HttpClusterApi::getNamespace(std::string_view name) {
  return getOne<api::Namespace>(objectPath(kNamespaces, "", name), api::decodeNamespace);
}

Result<api::List<api::Namespace>> HttpClusterApi::listNamespaces(const api::ListOptions& options) {
  api::ListOptions clusterWide = options;
  clusterWide.namespace_.clear();
  return listAll<api::Namespace>(kNamespaces, clusterWide, api::decodeList<api::Namespace>);
}

Result<api::AttunePolicy> HttpClusterApi::getAttunePolicy(std::string_view ns,
                                                          std::string_view name) {
  return getOne<api::AttunePolicy>(objectPath(kAttunePolicies, ns, name), wire::decodePolicy);
}

Result<api::List<api::AttunePolicy>> HttpClusterApi::listAttunePolicies(
    const api::ListOptions& options) {
  return listAll<api::AttunePolicy>(kAttunePolicies, options, wire::decodePolicyList);
}

Result<api::AttuneDefaults> HttpClusterApi::getAttuneDefaults(std::string_view name) {
  return getOne<api::AttuneDefaults>(objectPath(kAttuneDefaults, "", name),
                                     wire::decodeDefaults<api::AttuneDefaults>);
}

Result<api::List<api::AttuneDefaults>> HttpClusterApi::listAttuneDefaults(
    const api::ListOptions& options) {
  return listAll<api::AttuneDefaults>(kAttuneDefaults,
                                      api::ListOptions{.labelSelector = options.labelSelector},
                                      wire::decodeDefaultsList<api::AttuneDefaults>);
}

Result<api::AttuneNamespaceDefaults> HttpClusterApi::getAttuneNamespaceDefaults(
    std::string_view ns, std::string_view name) {
  return getOne<api::AttuneNamespaceDefaults>(objectPath(kAttuneNamespaceDefaults, ns, name),
                                              wire::decodeDefaults<api::AttuneNamespaceDefaults>);
}

Result<api::List<api::AttuneNamespaceDefaults>> HttpClusterApi::listAttuneNamespaceDefaults(
    const api::ListOptions& options) {
  return listAll<api::AttuneNamespaceDefaults>(
      kAttuneNamespaceDefaults, options, wire::decodeDefaultsList<api::AttuneNamespaceDefaults>);
}

template <typename T>
Result<api::WatchBatch<T>> HttpClusterApi::watchResource(const Resource& resource,
                                                         const api::ListOptions& options,
                                                         std::string_view resourceVersion,
                                                         typename WatchStream<T>::Decode decode) {
  auto selector = selectorQuery(options.labelSelector);
  if (!selector) return std::unexpected(selector.error());
  const std::string path =
      collectionPath(resource, options.namespace_) + query({{"labelSelector", *selector}});
  std::unique_ptr<Watch>& slot = watches_[std::string(resource.plural)];
  if (slot && (slot->path != path || slot->resumeFrom != resourceVersion)) slot.reset();
  if (!slot) {
    const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(options_.watchTimeout);
    http::HttpRequest request;
    request.url = rest_.server() + path + (selector->empty() ? "?" : "&") +
                  "watch=1&allowWatchBookmarks=true";
    if (!resourceVersion.empty()) {
      request.url += "&resourceVersion=" + http::percentEncode(resourceVersion);
    }
    request.url += "&timeoutSeconds=" + std::to_string(std::max<long>(1, timeout.count()));
    request.headers = {{"Accept", "application/json"}, {"User-Agent", "attune"}};
    rest_.limiter().acquire();
    auto opened = std::make_unique<TypedWatch<T>>();
    opened->path = path;
    opened->stream = std::make_unique<WatchStream<T>>(
        factory_(), std::move(request), std::move(decode), options_.watchNamespaceFilter);
    slot = std::move(opened);
  }
  auto& watch = static_cast<TypedWatch<T>&>(*slot);
  typename WatchStream<T>::Drained drained = watch.stream->drain(options_.watchWait);
  api::WatchBatch<T> batch;
  batch.events = std::move(drained.events);
  batch.resourceVersion =
      drained.resourceVersion.empty() ? std::string(resourceVersion) : drained.resourceVersion;
  watch.resumeFrom = batch.resourceVersion;
  if (drained.error && batch.events.empty()) {
    Error error = *drained.error;
    slot.reset();
    return std::unexpected(std::move(error));
  }
  if (drained.ended && !drained.error) slot.reset();  // the next call reopens from here
  return batch;
}

Result<api::WatchBatch<api::Pod>> HttpClusterApi::watchPods(const api::ListOptions& options,
                                                            std::string_view resourceVersion) {
  return watchResource<api::Pod>(kPods, options, resourceVersion);
}

#define ATTUNE_KUBE_WATCH(Type, resource)                                                      \
  Result<api::WatchBatch<api::Type>> HttpClusterApi::watch(api::Watched<api::Type>,            \
                                                           const api::ListOptions& options,    \
                                                           std::string_view resourceVersion) { \
    return watchResource<api::Type>(resource, options, resourceVersion);                       \
  }

ATTUNE_KUBE_WATCH(Deployment, kDeployments)
ATTUNE_KUBE_WATCH(StatefulSet, kStatefulSets)
ATTUNE_KUBE_WATCH(DaemonSet, kDaemonSets)
ATTUNE_KUBE_WATCH(ReplicaSet, kReplicaSets)
ATTUNE_KUBE_WATCH(Job, kJobs)
ATTUNE_KUBE_WATCH(CronJob, kCronJobs)
ATTUNE_KUBE_WATCH(LimitRange, kLimitRanges)
ATTUNE_KUBE_WATCH(ResourceQuota, kResourceQuotas)
ATTUNE_KUBE_WATCH(HorizontalPodAutoscaler, kHpas)
ATTUNE_KUBE_WATCH(PodDisruptionBudget, kPodDisruptionBudgets)

#undef ATTUNE_KUBE_WATCH

Result<api::WatchBatch<api::Node>> HttpClusterApi::watch(api::Watched<api::Node>,
                                                         const api::ListOptions& options,
                                                         std::string_view resourceVersion) {
  api::ListOptions clusterWide = options;
  clusterWide.namespace_.clear();
  return watchResource<api::Node>(kNodes, clusterWide, resourceVersion);
}

Result<api::WatchBatch<api::AttuneDefaults>> HttpClusterApi::watch(
    api::Watched<api::AttuneDefaults>, const api::ListOptions& options,
    std::string_view resourceVersion) {
  return watchResource<api::AttuneDefaults>(
      kAttuneDefaults, api::ListOptions{.labelSelector = options.labelSelector}, resourceVersion,
      wire::decodeDefaultsWatchEvent<api::AttuneDefaults>);
}

Result<api::WatchBatch<api::AttuneNamespaceDefaults>> HttpClusterApi::watch(
    api::Watched<api::AttuneNamespaceDefaults>, const api::ListOptions& options,
    std::string_view resourceVersion) {
  return watchResource<api::AttuneNamespaceDefaults>(
      kAttuneNamespaceDefaults, options, resourceVersion,
      wire::decodeDefaultsWatchEvent<api::AttuneNamespaceDefaults>);
}

Result<api::WatchBatch<api::AttunePolicy>> HttpClusterApi::watch(api::Watched<api::AttunePolicy>,
                                                                 const api::ListOptions& options,
                                                                 std::string_view resourceVersion) {
  return watchResource<api::AttunePolicy>(kAttunePolicies, options, resourceVersion,
                                          wire::decodePolicyWatchEvent);
}

}  // namespace attune::kube
