// Kubernetes object vocabulary shared by every kind: object metadata, owner references,
// conditions, label selectors, resource lists, API status, lists and watch events.
//
// These are typed views of what Attune reads: a decoder fills the fields it knows and skips the
// rest. Absent fields keep their default (empty string, 0, nullopt); JSON null counts as absent.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/quantity.h"
#include "core/time.h"

namespace attune::api {

// Labels, annotations, node selectors: string → string, ordered by key, heterogeneous lookup.
using StringMap = std::map<std::string, std::string, std::less<>>;

// A resource list (requests, limits, capacity, quota...). CPU and memory, which Attune reads
// everywhere, are kept apart for direct access; every other resource (ephemeral-storage,
// hugepages-2Mi, nvidia.com/gpu, pods, requests.cpu in a quota...) is in `other` by name.
struct ResourceList {
  std::optional<Quantity> cpu;
  std::optional<Quantity> memory;
  std::map<std::string, Quantity, std::less<>> other;

  bool empty() const { return !cpu && !memory && other.empty(); }
  // The quantity for resource `name` ("cpu", "memory" or any other), or nullptr when absent.
  const Quantity* find(std::string_view name) const;
  // Sets resource `name` to `q`, replacing any previous value.
  void set(std::string_view name, Quantity q);
  // Calls fn(name, quantity) for every entry: cpu, memory, then the others by name.
  void forEach(const std::function<void(std::string_view, const Quantity&)>& fn) const;

  bool operator==(const ResourceList&) const = default;
};

// core/v1 ResourceRequirements (claims are ignored).
struct ResourceRequirements {
  ResourceList requests;
  ResourceList limits;

  bool operator==(const ResourceRequirements&) const = default;
};

struct OwnerReference {
  std::string apiVersion;
  std::string kind;
  std::string name;
  std::string uid;
  bool controller = false;

  bool operator==(const OwnerReference&) const = default;
};

// metav1.ObjectMeta, the parts Attune uses.
struct ObjectMeta {
  std::string name;
  std::string generateName;
  std::string namespace_;
  std::string uid;
  std::string resourceVersion;
  std::int64_t generation = 0;
  StringMap labels;
  StringMap annotations;
  std::vector<OwnerReference> ownerReferences;
  std::optional<Time> creationTimestamp;
  std::optional<Time> deletionTimestamp;

  // The owner reference with controller=true, or nullptr.
  const OwnerReference* controllerRef() const;

  bool operator==(const ObjectMeta&) const = default;
};

// core/v1 ObjectReference (Event.involvedObject, CronJob.status.active, ...).
struct ObjectReference {
  std::string apiVersion;
  std::string kind;
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string resourceVersion;
  std::string fieldPath;

  bool operator==(const ObjectReference&) const = default;
};

// A status condition of any kind (Pod, Node, workloads, HPA, Namespace). Kind-specific
// timestamps (lastProbeTime, lastHeartbeatTime, lastUpdateTime) are not kept.
struct Condition {
  std::string type;
  std::string status;  // "True", "False" or "Unknown"
  std::string reason;
  std::string message;
  std::optional<Time> lastTransitionTime;
  std::int64_t observedGeneration = 0;

  bool isTrue() const { return status == "True"; }
  bool operator==(const Condition&) const = default;
};

// The condition of type `type` in `conditions`, or nullptr.
const Condition* findCondition(const std::vector<Condition>& conditions, std::string_view type);

struct LabelSelectorRequirement {
  std::string key;
  std::string operator_;  // In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;

  bool operator==(const LabelSelectorRequirement&) const = default;
};

struct LabelSelector {
  StringMap matchLabels;
  std::vector<LabelSelectorRequirement> matchExpressions;

  bool operator==(const LabelSelector&) const = default;
};

// True when `labels` satisfy `selector`: every matchLabels pair and every matchExpression
// (In, NotIn, Exists, DoesNotExist; an unknown operator matches nothing). An empty selector
// matches everything. Pure.
bool selectorMatches(const LabelSelector& selector, const StringMap& labels);

// metav1.Status, as returned in failed responses, watch ERROR events and admission responses.
struct ApiStatus {
  std::string status;  // "Success" or "Failure"
  std::string message;
  std::string reason;  // e.g. "Expired", "Conflict", "NotFound"
  std::int32_t code = 0;

  bool operator==(const ApiStatus&) const = default;
};

// A LIST response: the items and the list metadata needed to watch from it or page on.
template <typename T>
struct List {
  std::vector<T> items;
  std::string resourceVersion;
  std::string continueToken;  // metadata.continue; empty on the last page
  std::optional<std::int64_t> remainingItemCount;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

// "ADDED", "MODIFIED", ...
std::string_view watchEventTypeName(WatchEventType type);

// One line of a watch stream. For kError the object is a metav1.Status, decoded into `status`
// (e.g. code 410 "Expired" when the resourceVersion is too old); `object` stays default. For
// kBookmark only object.metadata.resourceVersion is meaningful.
template <typename T>
struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  T object;
  ApiStatus status;
};

}  // namespace attune::api
