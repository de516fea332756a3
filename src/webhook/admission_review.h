// The admission decisions the webhook server serves, one per endpoint, from the AdmissionRequest
// alone plus what the operator knows. Pure: no I/O, no clock.
//
//  - Pod CREATE (mutating, /mutate-pods): sized by pod_sizing.h when the pod's workload has a
//    policy and statistics, and then marked with kAdmissionSizedAnnotation ("sized", or
//    "unchanged" when the pod already asked for the sizing); every other pod — another operation or
//    kind, a bare pod, a pod or workload opted out with attune.io/skip: "true", a workload without
//    a policy or statistics, an object that does not decode — is allowed unchanged. The webhook
//    never refuses a pod.
//  - AttunePolicy CREATE/UPDATE (validating, /validate-attunepolicies): the `attune policy
//    validate` pipeline; refused with every error and its field path, allowed with the
//    warnings that command prints.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "api/k8s/admission.h"
#include "api/k8s/workload_ref.h"
#include "webhook/pod_sizing.h"

namespace attune::webhook {

// The sizing the operator has for a workload's containers; nullopt when the workload has no
// policy, its policy is off, or there are no statistics yet.
using SizingLookup =
    std::function<std::optional<std::vector<ContainerSizing>>(const api::WorkloadRef& workload)>;

// Why a pod review came out as it did, for the webhook's metrics and logs.
enum class PodReviewOutcome {
  kSized,          // a JSON Patch of the resources (and the marker) was returned
  kUnchanged,      // sized already, or nothing to change: the marker only
  kNotApplicable,  // not a pod CREATE, a bare pod, or opted out
  kNoSizing,       // the workload has no policy or no statistics
  kUndecodable,    // request.object is not a pod (allowed unchanged)
};

struct PodReview {
  api::AdmissionResponse response;
  PodReviewOutcome outcome = PodReviewOutcome::kNotApplicable;
  std::optional<api::WorkloadRef> workload;
};

PodReview reviewPod(const api::AdmissionRequest& request, const SizingLookup& lookup);

// The validating review of an AttunePolicy. A refusal has status code 422, reason "Invalid" and
// the message `AttunePolicy "name" is invalid: path: message; path: message` (every error, in
// source order); the warnings (public fields accepted without effect, suspicious settings) are
// returned as admission warnings "path: message", refused or not. Other operations and kinds
// are allowed.
api::AdmissionResponse reviewPolicy(const api::AdmissionRequest& request);

}  // namespace attune::webhook
