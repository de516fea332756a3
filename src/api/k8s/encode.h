// Encoding the objects Attune writes: the pod resize body, Events, Leases, Evictions and
// admission responses. Output is compact JSON; strings that are not valid UTF-8 have the bad
// bytes replaced by U+FFFD. Empty strings, zero counts and unset optionals are omitted, so an
// encoded object decodes back to the same values. Pure and thread-safe.
#pragma once

#include <span>
#include <string>

#include "api/k8s/admission.h"
#include "api/k8s/event.h"
#include "api/k8s/eviction.h"
#include "api/k8s/lease.h"
#include "api/k8s/meta.h"

namespace attune::api {

// New resources for one container of a pod.
struct ResizePatchContainer {
  std::string name;
  ResourceRequirements resources;
  bool initContainer = false;  // a sidecar (restartable init container)
};

// The body of PATCH pods/<name>/resize as a strategic merge patch (containers merge by name):
// {"spec":{"containers":[{"name":"app","resources":{"requests":{...},"limits":{...}}}],
//          "initContainers":[...]}}. Only the resources given are written; lists with no
// container are omitted.
std::string encodeResizePatch(std::span<const ResizePatchContainer> containers);

// A core/v1 Event (apiVersion "v1"): metadata, involvedObject, reason, message, type, action,
// source, first/lastTimestamp (seconds), eventTime and series (MicroTime, 6 fraction digits),
// count, related, reportingComponent, reportingInstance.
std::string encodeEvent(const Event& event);

// A coordination.k8s.io/v1 Lease; acquireTime and renewTime as MicroTime (6 fraction digits).
// metadata.resourceVersion is written when set, making a PUT conditional on it.
std::string encodeLease(const Lease& lease);

// A policy/v1 Eviction for POST pods/<name>/eviction.
std::string encodeEviction(const Eviction& eviction);

// An admission.k8s.io/v1 AdmissionReview carrying `response`: uid, allowed, status, and when
// response.patch is non-empty the patch base64-encoded with patchType (default "JSONPatch").
std::string encodeAdmissionReviewResponse(const AdmissionResponse& response);
// An admission.k8s.io/v1 AdmissionReview carrying `request`, as the API server sends it to a
// webhook: object and oldObject embedded as JSON (null when empty or not JSON).
std::string encodeAdmissionReviewRequest(const AdmissionRequest& request);

}  // namespace attune::api
