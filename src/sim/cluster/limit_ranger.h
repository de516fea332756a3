// The LimitRanger admission plugin for pods, and the API server's pod defaulting that runs
// before it. Pure.
//
// A LimitRange is read as the API server stores it after defaulting its Container items: an
// unset default (limit) comes from max, an unset defaultRequest from default, else from min.
// LimitRanges built in code without those fields therefore behave as they would on a cluster.
#pragma once

#include <span>
#include <string_view>

#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "core/error.h"

namespace attune::sim {

// The annotation in which LimitRanger records the defaults it applied.
inline constexpr std::string_view kLimitRangerAnnotation = "kubernetes.io/limit-ranger";

// Defaulting of a pod being created, in the API server's order, on regular and init
// containers: a resource with a limit but no request gets request = limit (SetDefaults_Pod);
// then each LimitRange of `ranges`, in order, fills the requests and limits still unset from its
// Container items' defaultRequest and default. What LimitRanger set is recorded in
// kLimitRangerAnnotation: "LimitRanger plugin set: cpu, memory request for container app; cpu
// limit for init container setup". Resizes are not defaulted.
void applyPodDefaults(api::Pod& pod, std::span<const api::LimitRange> ranges);

// LimitRanger validation of `spec` (on create and on the resize subresource) against every
// item of `ranges`: Container items per container (regular and init) — request and limit at
// least min, at most max, limit/request at most maxLimitRequestRatio; Pod items the same over
// the pod's totals (containers summed, at least each init container, plus overhead). Fails with
// kForbidden "<subject> is forbidden: <reason>" in the plugin's words, e.g. "maximum cpu usage
// per Container is 2, but limit is 4", "minimum memory usage per Container is 64Mi.  No request
// is specified"; several reasons read "[reason, reason]". `subject` is e.g. `pods "web"`.
Result<void> validateLimitRanges(const api::PodSpec& spec, std::span<const api::LimitRange> ranges,
                                 std::string_view subject);

}  // namespace attune::sim
