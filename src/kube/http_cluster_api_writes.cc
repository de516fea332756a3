// HttpClusterApi: writes (patches, the resize and eviction subresources, Events, Leases,
// AttunePolicies).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

#include "api/k8s/decode.h"
#include "api/k8s/encode_objects.h"
#include "kube/http_cluster_api.h"
#include "kube/wire.h"

namespace attune::kube {
namespace {

using Method = http::HttpRequest::Method;

constexpr std::string_view kJson = "application/json";
constexpr std::string_view kMergePatch = "application/merge-patch+json";
constexpr std::string_view kStrategicMergePatch = "application/strategic-merge-patch+json";

Result<void> requireName(const api::ObjectMeta& meta, bool namespaced, std::string_view kind) {
  if (meta.name.empty()) {
    return fail(ErrorCode::kInvalidArgument, std::string(kind) + " needs a name", "metadata.name");
  }
  if (namespaced && meta.namespace_.empty()) {
    return fail(ErrorCode::kInvalidArgument, std::string(kind) + " needs a namespace",
                "metadata.namespace");
  }
  return {};
}

// The resource list of a resize request: the desired entries, plus null for cpu or memory when
// the request leaves it out (the patch deletes it if the container has it).
nlohmann::json resizeList(const api::ResourceList& desired) {
  auto out = nlohmann::json::parse(api::jsonResourceList(desired));
  if (!desired.cpu) out["cpu"] = nullptr;
  if (!desired.memory) out["memory"] = nullptr;
  return out;
}

const Resource& workloadResource(api::WorkloadKind kind) {
  switch (kind) {
    case api::WorkloadKind::kDeployment:
      return kDeployments;
    case api::WorkloadKind::kStatefulSet:
      return kStatefulSets;
    case api::WorkloadKind::kDaemonSet:
      return kDaemonSets;
    case api::WorkloadKind::kReplicaSet:
      return kReplicaSets;
    case api::WorkloadKind::kJob:
      return kJobs;
    case api::WorkloadKind::kCronJob:
      return kCronJobs;
  }
  return kDeployments;
}

// The metadata of a workload object of `kind` in `json`.
Result<api::ObjectMeta> workloadMeta(api::WorkloadKind kind, std::string_view json) {
  const auto meta = [](auto decoded) -> Result<api::ObjectMeta> {
    if (!decoded) return std::unexpected(decoded.error());
    return std::move(decoded->metadata);
  };
  switch (kind) {
    case api::WorkloadKind::kDeployment:
      return meta(api::decodeDeployment(json));
    case api::WorkloadKind::kStatefulSet:
      return meta(api::decodeStatefulSet(json));
    case api::WorkloadKind::kDaemonSet:
      return meta(api::decodeDaemonSet(json));
    case api::WorkloadKind::kReplicaSet:
      return meta(api::decodeReplicaSet(json));
    case api::WorkloadKind::kJob:
      return meta(api::decodeJob(json));
    case api::WorkloadKind::kCronJob:
      return meta(api::decodeCronJob(json));
  }
  return meta(api::decodeDeployment(json));
}

std::string eventNamespace(const api::Event& event) {
  return event.metadata.namespace_.empty() ? "default" : event.metadata.namespace_;
}

}  // namespace

template <typename T, typename Decode>
Result<T> HttpClusterApi::write(Method method, const std::string& path, std::string body,
                                std::string contentType, Decode decode) {
  auto response = rest_.call(method, path, std::move(body), std::move(contentType));
  if (!response) return std::unexpected(response.error());
  auto object = decode(*response);
  if (!object) {
    Error e = object.error();
    e.code = ErrorCode::kInternal;
    e.message = "response of " + std::string(http::methodName(method)) + " " + path +
                " does not decode: " + e.message;
    return std::unexpected(std::move(e));
  }
  return std::move(*object);
}

Result<std::string> HttpClusterApi::annotationPatch(const api::AnnotationChanges& changes,
                                                    std::string_view resourceVersion) const {
  nlohmann::json annotations = nlohmann::json::object();
  for (const auto& [key, value] : changes) {
    if (value) {
      annotations[key] = *value;
    } else {
      annotations[key] = nullptr;
    }
  }
  nlohmann::json metadata = {{"annotations", std::move(annotations)}};
  if (!resourceVersion.empty()) metadata["resourceVersion"] = std::string(resourceVersion);
  const nlohmann::json patch = {{"metadata", std::move(metadata)}};
  return patch.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<api::ObjectMeta> HttpClusterApi::patchPodAnnotations(std::string_view ns,
                                                            std::string_view name,
                                                            const api::AnnotationChanges& changes,
                                                            std::string_view resourceVersion) {
  auto body = annotationPatch(changes, resourceVersion);
  if (!body) return std::unexpected(body.error());
  auto pod = write<api::Pod>(Method::kPatch, objectPath(kPods, ns, name), std::move(*body),
                             std::string(kMergePatch), api::decodePod);
  if (!pod) return std::unexpected(pod.error());
  return std::move(pod->metadata);
}

Result<api::ObjectMeta> HttpClusterApi::patchWorkloadAnnotations(
    api::WorkloadKind kind, std::string_view ns, std::string_view name,
    const api::AnnotationChanges& changes, std::string_view resourceVersion) {
  auto body = annotationPatch(changes, resourceVersion);
  if (!body) return std::unexpected(body.error());
  return write<api::ObjectMeta>(Method::kPatch, objectPath(workloadResource(kind), ns, name),
                                std::move(*body), std::string(kMergePatch),
                                [kind](std::string_view json) { return workloadMeta(kind, json); });
}

Result<api::Pod> HttpClusterApi::resizePod(std::string_view ns, std::string_view name,
                                           std::span<const api::ContainerResize> containers) {
  // One request, without reading the pod first: each list names every resource the resize
  // leaves out as null, which deletes it where the container has it and is ignored where it
  // does not. A container the pod lacks is refused by the server (a resize cannot add one).
  nlohmann::json regular = nlohmann::json::array();
  nlohmann::json init = nlohmann::json::array();
  for (const auto& c : containers) {
    nlohmann::json resources = {{"requests", resizeList(c.resources.requests)},
                                {"limits", resizeList(c.resources.limits)}};
    (c.initContainer ? init : regular)
        .push_back({{"name", c.name}, {"resources", std::move(resources)}});
  }
  nlohmann::json spec = nlohmann::json::object();
  if (!regular.empty()) spec["containers"] = std::move(regular);
  if (!init.empty()) spec["initContainers"] = std::move(init);
  const nlohmann::json patch = {{"spec", std::move(spec)}};
  return write<api::Pod>(Method::kPatch, objectPath(kPods, ns, name, "resize"), patch.dump(),
                         std::string(kStrategicMergePatch), api::decodePod);
}

Result<void> HttpClusterApi::evictPod(const api::Eviction& eviction) {
  if (auto ok = requireName(eviction.metadata, true, "Eviction"); !ok) return ok;
  const auto& meta = eviction.metadata;
  auto response =
      rest_.call(Method::kPost, objectPath(kPods, meta.namespace_, meta.name, "eviction"),
                 wire::evictionBody(eviction), std::string(kJson));
  if (!response) return std::unexpected(response.error());
  return {};
}

Result<api::Event> HttpClusterApi::createEvent(const api::Event& event) {
  if (event.metadata.name.empty() && event.metadata.generateName.empty()) {
    return fail(ErrorCode::kInvalidArgument, "Event needs a name or generateName", "metadata.name");
  }
  return write<api::Event>(Method::kPost, collectionPath(kEvents, eventNamespace(event)),
                           wire::eventBody(event), std::string(kJson), api::decodeEvent);
}

Result<api::Event> HttpClusterApi::updateEvent(const api::Event& event) {
  if (auto ok = requireName(event.metadata, false, "Event"); !ok) {
    return std::unexpected(ok.error());
  }
  return write<api::Event>(Method::kPut,
                           objectPath(kEvents, eventNamespace(event), event.metadata.name),
                           wire::eventBody(event), std::string(kJson), api::decodeEvent);
}

Result<api::AttunePolicy> HttpClusterApi::createAttunePolicy(const api::AttunePolicy& policy) {
  const auto& meta = policy.metadata;
  if (meta.name.empty() && meta.generateName.empty()) {
    return fail(ErrorCode::kInvalidArgument, "AttunePolicy needs a name or generateName",
                "metadata.name");
  }
  if (meta.namespace_.empty()) {
    return fail(ErrorCode::kInvalidArgument, "AttunePolicy needs a namespace",
                "metadata.namespace");
  }
  return write<api::AttunePolicy>(Method::kPost, collectionPath(kAttunePolicies, meta.namespace_),
                                  wire::policyBody(policy), std::string(kJson), wire::decodePolicy);
}

Result<api::AttunePolicy> HttpClusterApi::updateAttunePolicy(const api::AttunePolicy& policy) {
  const auto& meta = policy.metadata;
  if (auto ok = requireName(meta, true, "AttunePolicy"); !ok) return std::unexpected(ok.error());
  return write<api::AttunePolicy>(Method::kPut,
                                  objectPath(kAttunePolicies, meta.namespace_, meta.name),
                                  wire::policyBody(policy), std::string(kJson), wire::decodePolicy);
}

Result<api::AttunePolicy> HttpClusterApi::updateAttunePolicyStatus(
    const api::AttunePolicy& policy) {
  const auto& meta = policy.metadata;
  if (auto ok = requireName(meta, true, "AttunePolicy"); !ok) return std::unexpected(ok.error());
  return write<api::AttunePolicy>(Method::kPut,
                                  objectPath(kAttunePolicies, meta.namespace_, meta.name, "status"),
                                  wire::policyBody(policy), std::string(kJson), wire::decodePolicy);
}

std::vector<Result<api::AttunePolicy>> HttpClusterApi::updateAttunePolicyStatuses(
    std::span<const api::AttunePolicy> policies) {
  // Each write is a task of its own: several at once on runTasks' lanes.
  std::vector<std::optional<Result<api::AttunePolicy>>> results(policies.size());
  std::vector<Task> tasks;
  tasks.reserve(policies.size());
  for (std::size_t i = 0; i < policies.size(); ++i) {
    tasks.emplace_back([&results, &policies, i](api::ClusterApi& lane) {
      results[i] = lane.updateAttunePolicyStatus(policies[i]);
    });
  }
  runTasks(tasks);
  std::vector<Result<api::AttunePolicy>> out;
  out.reserve(policies.size());
  for (auto& result : results) out.push_back(std::move(*result));
  return out;
}

std::size_t HttpClusterApi::taskLanes() const {
  return static_cast<std::size_t>(std::max(options_.parallelWrites, 1));
}

void HttpClusterApi::runTasks(std::span<const Task> tasks) {
  const std::size_t lanes = std::min(taskLanes(), tasks.size());
  if (lanes <= 1) {
    ClusterApi::runTasks(tasks);
    return;
  }
  while (taskLanes_.size() < lanes) {
    taskLanes_.push_back(std::make_unique<HttpClusterApi>(LaneKey{}, *this));
  }
  std::atomic<std::size_t> next = 0;  // the next task a lane takes
  const auto lane = [&](HttpClusterApi& api) {
    for (std::size_t i = next++; i < tasks.size(); i = next++) tasks[i](api);
  };
  std::vector<std::jthread> threads;
  threads.reserve(lanes);
  for (std::size_t k = 0; k < lanes; ++k) threads.emplace_back(lane, std::ref(*taskLanes_[k]));
}  // the threads are joined: every task has ended

Result<api::HorizontalPodAutoscaler> HttpClusterApi::updateHpa(
    const api::HorizontalPodAutoscaler& hpa) {
  const auto& meta = hpa.metadata;
  if (auto ok = requireName(meta, true, "HorizontalPodAutoscaler"); !ok) {
    return std::unexpected(ok.error());
  }
  return write<api::HorizontalPodAutoscaler>(
      Method::kPut, objectPath(kHpas, meta.namespace_, meta.name), api::encodeObjectJson(hpa),
      std::string(kJson), api::decodeHorizontalPodAutoscaler);
}

Result<api::Node> HttpClusterApi::updateNodeTaints(std::string_view name,
                                                   std::span<const api::Taint> taints,
                                                   std::string_view resourceVersion) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& taint : taints) {
    nlohmann::json entry = {{"key", taint.key}, {"effect", taint.effect}};
    if (!taint.value.empty()) entry["value"] = taint.value;
    list.push_back(std::move(entry));
  }
  nlohmann::json patch = {{"spec", {{"taints", std::move(list)}}}};
  if (!resourceVersion.empty()) {
    patch["metadata"] = {{"resourceVersion", std::string(resourceVersion)}};
  }
  return write<api::Node>(Method::kPatch, objectPath(kNodes, "", name), patch.dump(),
                          std::string(kMergePatch), api::decodeNode);
}

Result<api::WebhookConfiguration> HttpClusterApi::patchWebhookCaBundles(
    const api::WebhookConfiguration& config) {
  const auto& meta = config.metadata;
  if (auto ok = requireName(meta, false, api::kindName(config.kind)); !ok) {
    return std::unexpected(ok.error());
  }
  nlohmann::json patch = nlohmann::json::array();
  if (!meta.resourceVersion.empty()) {
    patch.push_back(
        {{"op", "test"}, {"path", "/metadata/resourceVersion"}, {"value", meta.resourceVersion}});
  }
  for (std::size_t i = 0; i < config.webhooks.size(); ++i) {
    const std::string at = "/webhooks/" + std::to_string(i);
    patch.push_back({{"op", "test"}, {"path", at + "/name"}, {"value", config.webhooks[i].name}});
    patch.push_back({{"op", "add"},
                     {"path", at + "/clientConfig/caBundle"},
                     {"value", config.webhooks[i].caBundle}});
  }
  return write<api::WebhookConfiguration>(
      Method::kPatch, objectPath(webhookConfigurations(config.kind), "", meta.name), patch.dump(),
      "application/json-patch+json", api::decodeWebhookConfiguration);
}

Result<api::Lease> HttpClusterApi::createLease(const api::Lease& lease) {
  const auto& meta = lease.metadata;
  if (auto ok = requireName(meta, true, "Lease"); !ok) return std::unexpected(ok.error());
  return write<api::Lease>(Method::kPost, collectionPath(kLeases, meta.namespace_),
                           wire::leaseBody(lease), std::string(kJson), api::decodeLease);
}

Result<api::Lease> HttpClusterApi::updateLease(const api::Lease& lease) {
  const auto& meta = lease.metadata;
  if (auto ok = requireName(meta, true, "Lease"); !ok) return std::unexpected(ok.error());
  return write<api::Lease>(Method::kPut, objectPath(kLeases, meta.namespace_, meta.name),
                           wire::leaseBody(lease), std::string(kJson), api::decodeLease);
}

}  // namespace attune::kube
