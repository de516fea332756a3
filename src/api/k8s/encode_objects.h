// Encoding whole Kubernetes objects as the API server returns them: every kind the typed views
// of api/k8s hold, LISTs, watch events and metav1.Status error bodies. The simulator's REST
// front end (sim/serve) serves these.
//
// Each object carries apiVersion and kind and every field its typed view keeps; as in encode.h,
// empty strings, zero counts and unset optionals are omitted, so decoding an encoded object with
// decode.h gives back the same value. Output is compact JSON; strings that are not valid UTF-8
// have the bad bytes replaced by U+FFFD. Pure and thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/event.h"
#include "api/k8s/hpa.h"
#include "api/k8s/lease.h"
#include "api/k8s/meta.h"
#include "api/k8s/node.h"
#include "api/k8s/pdb.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "api/k8s/workloads.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/attune_policy.h"

namespace attune::api {

// apiVersion and kind of an object, and the kind of its list ("PodList").
struct TypeMeta {
  std::string_view apiVersion;
  std::string_view kind;
  std::string_view listKind;
};

// One object as JSON, with apiVersion and kind.
std::string encodeObjectJson(const Pod& pod);
std::string encodeObjectJson(const Node& node);
std::string encodeObjectJson(const Namespace& ns);
std::string encodeObjectJson(const Deployment& deployment);
std::string encodeObjectJson(const StatefulSet& statefulSet);
std::string encodeObjectJson(const DaemonSet& daemonSet);
std::string encodeObjectJson(const ReplicaSet& replicaSet);
std::string encodeObjectJson(const Job& job);
std::string encodeObjectJson(const CronJob& cronJob);
std::string encodeObjectJson(const LimitRange& limitRange);
std::string encodeObjectJson(const ResourceQuota& quota);
std::string encodeObjectJson(const HorizontalPodAutoscaler& hpa);
std::string encodeObjectJson(const PodDisruptionBudget& pdb);
std::string encodeObjectJson(const Event& event);  // core/v1
std::string encodeObjectJson(const Lease& lease);
std::string encodeObjectJson(const AttunePolicy& policy);      // encodePolicyJson
std::string encodeObjectJson(const AttuneDefaults& defaults);  // encodeDefaultsJson
std::string encodeObjectJson(const AttuneNamespaceDefaults& defaults);

// The TypeMeta of each kind above (the argument only selects the overload).
TypeMeta typeMetaOf(const Pod&);
TypeMeta typeMetaOf(const Node&);
TypeMeta typeMetaOf(const Namespace&);
TypeMeta typeMetaOf(const Deployment&);
TypeMeta typeMetaOf(const StatefulSet&);
TypeMeta typeMetaOf(const DaemonSet&);
TypeMeta typeMetaOf(const ReplicaSet&);
TypeMeta typeMetaOf(const Job&);
TypeMeta typeMetaOf(const CronJob&);
TypeMeta typeMetaOf(const LimitRange&);
TypeMeta typeMetaOf(const ResourceQuota&);
TypeMeta typeMetaOf(const HorizontalPodAutoscaler&);
TypeMeta typeMetaOf(const PodDisruptionBudget&);
TypeMeta typeMetaOf(const Event&);
TypeMeta typeMetaOf(const Lease&);
TypeMeta typeMetaOf(const AttunePolicy&);
TypeMeta typeMetaOf(const AttuneDefaults&);
TypeMeta typeMetaOf(const AttuneNamespaceDefaults&);

// A LIST body around already-encoded items (each a JSON object):
// {"apiVersion":..,"kind":..,"metadata":{"resourceVersion":..,"continue":..},"items":[..]}.
// An empty continueToken is omitted; `items` is always present (possibly empty).
std::string encodeListJson(std::string_view apiVersion, std::string_view listKind,
                           std::span<const std::string> items, std::string_view resourceVersion,
                           std::string_view continueToken = {});

// A typed LIST: items encoded with encodeObjectJson, kinds from typeMetaOf(T{}).
template <typename T>
std::string encodeListJson(const List<T>& list) {
  std::vector<std::string> items;
  items.reserve(list.items.size());
  for (const T& item : list.items) items.push_back(encodeObjectJson(item));
  const TypeMeta meta = typeMetaOf(T{});
  return encodeListJson(meta.apiVersion, meta.listKind, items, list.resourceVersion,
                        list.continueToken);
}

// One watch stream line without its newline: {"type":"ADDED","object":<objectJson>}.
// `objectJson` must be one JSON object; it is inserted as is.
std::string encodeWatchEventJson(WatchEventType type, std::string_view objectJson);

// A typed watch event; for kError the object is the event's metav1.Status.
template <typename T>
std::string encodeWatchEventJson(const WatchEvent<T>& event);

// One entry of a Status' details.causes (e.g. type "FieldValueInvalid", field "spec.x").
struct StatusCause {
  std::string type;
  std::string message;
  std::string field;

  bool operator==(const StatusCause&) const = default;
};

// metav1.StatusDetails: what the failure is about.
struct StatusDetails {
  std::string name;
  std::string group;
  std::string kind;  // the resource (plural) or kind named in the message
  std::vector<StatusCause> causes;
  std::int32_t retryAfterSeconds = 0;

  bool empty() const {
    return name.empty() && group.empty() && kind.empty() && causes.empty() &&
           retryAfterSeconds == 0;
  }
};

// A metav1.Status body: {"kind":"Status","apiVersion":"v1","metadata":{},"status":..,
// "message":..,"reason":..,"details":{..},"code":..}. Details are omitted when empty.
// decodeApiStatus() of the output gives back `status`.
std::string encodeStatusJson(const ApiStatus& status, const StatusDetails& details = {});

}  // namespace attune::api
