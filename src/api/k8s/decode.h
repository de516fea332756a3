// Decoding Kubernetes JSON (GET, LIST and WATCH bodies, admission requests) into the typed
// views of api/k8s.
//
// Every decoder:
//  - reads the fields its type declares and skips every other field; skipped content is only
//    checked for balanced structure and valid strings (simdjson On Demand), not parsed;
//  - treats JSON null like an absent field;
//  - parses resource quantities with Quantity::parse and timestamps with parseRfc3339;
//  - returns an error, never throws: kInvalidArgument for malformed JSON, a wrong type or a bad
//    value, kOutOfRange for a number or quantity out of range. Error::field is the path of
//    the offending field from the document root, e.g.
//    "spec.containers[0].resources.requests.cpu" or "items[3].metadata.labels"; it is empty
//    only for errors about the document as a whole (malformed JSON, trailing content).
// The input need not be NUL-terminated or padded; it is copied once into a padded buffer.
// Thread-safe: concurrent calls share nothing (each thread keeps its own parser).
#pragma once

#include <string_view>

#include "api/k8s/admission.h"
#include "api/k8s/event.h"
#include "api/k8s/eviction.h"
#include "api/k8s/hpa.h"
#include "api/k8s/lease.h"
#include "api/k8s/meta.h"
#include "api/k8s/node.h"
#include "api/k8s/pdb.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "api/k8s/secret.h"
#include "api/k8s/workloads.h"
#include "core/error.h"

namespace attune::api {

// One object, the root of `json`.
Result<Pod> decodePod(std::string_view json);
Result<Node> decodeNode(std::string_view json);
Result<Namespace> decodeNamespace(std::string_view json);
Result<Deployment> decodeDeployment(std::string_view json);
Result<StatefulSet> decodeStatefulSet(std::string_view json);
Result<DaemonSet> decodeDaemonSet(std::string_view json);
Result<ReplicaSet> decodeReplicaSet(std::string_view json);
Result<Job> decodeJob(std::string_view json);
Result<CronJob> decodeCronJob(std::string_view json);
Result<LimitRange> decodeLimitRange(std::string_view json);
Result<ResourceQuota> decodeResourceQuota(std::string_view json);
Result<HorizontalPodAutoscaler> decodeHorizontalPodAutoscaler(std::string_view json);
Result<PodDisruptionBudget> decodePodDisruptionBudget(std::string_view json);
// core/v1 or events.k8s.io/v1.
Result<Event> decodeEvent(std::string_view json);
Result<Lease> decodeLease(std::string_view json);
// `data` base64-decoded (an error at "data.<key>" when a value is not base64).
Result<Secret> decodeSecret(std::string_view json);
Result<Eviction> decodeEviction(std::string_view json);
Result<AdmissionReview> decodeAdmissionReview(std::string_view json);
// A Mutating- or ValidatingWebhookConfiguration, its kind from the "kind" field (Mutating when
// absent).
Result<WebhookConfiguration> decodeWebhookConfiguration(std::string_view json);
Result<MutatingWebhookConfiguration> decodeMutatingWebhookConfiguration(std::string_view json);
// A metav1.Status body (error responses of the API server).
Result<ApiStatus> decodeApiStatus(std::string_view json);

// A LIST body: {"metadata": {"resourceVersion", "continue", "remainingItemCount"}, "items": []}.
// Item errors are reported as "items[i].<path>". Defined for T in: Pod, Node, Namespace,
// Deployment, StatefulSet, DaemonSet, ReplicaSet, Job, CronJob, LimitRange, ResourceQuota,
// HorizontalPodAutoscaler, PodDisruptionBudget, Event, Lease.
template <typename T>
Result<List<T>> decodeList(std::string_view json);

// One line of a watch stream: {"type": "ADDED|MODIFIED|DELETED|BOOKMARK|ERROR", "object": {}}.
// The fields may come in either order. An unknown type is an error at "type". Defined for the
// same T as decodeList.
template <typename T>
Result<WatchEvent<T>> decodeWatchEvent(std::string_view json);

inline Result<List<Pod>> decodePodList(std::string_view json) { return decodeList<Pod>(json); }
inline Result<WatchEvent<Pod>> decodePodWatchEvent(std::string_view json) {
  return decodeWatchEvent<Pod>(json);
}

}  // namespace attune::api
