// Startup boost (spec.cpu.startupBoost, docs/startup-boost.md): a pod younger than the boost's
// duration gets the CPU request of its containers raised to the steady recommendation times the
// multiplier, in place; once `attune.io/startup-boost-at` + duration has passed, the CPU goes
// back in place to the steady recommendation (or, without one, to what the pod had before).
// A boost is not a resize under observation: it writes no resize record, so the safety monitor
// never judges or reverts it; everything it needs later is on the pod, so a restarted
// controller ends it the same way. Pure.
#pragma once

#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/node.h"
#include "api/k8s/patch.h"
#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "core/time.h"
#include "rollout/plan.h"
#include "rollout/pod_targets.h"

namespace attune::rollout {

// When the boost was applied (RFC 3339; the public operator's annotation).
inline constexpr std::string_view kStartupBoostAtAnnotation = "attune.io/startup-boost-at";
// Ours: the CPU request and limit each boosted container had before the boost
// ("attune.io/boost-cpu-request.<container>"; a limit key only when the limit changed).
inline constexpr std::string_view kBoostCpuRequestPrefix = "attune.io/boost-cpu-request.";
inline constexpr std::string_view kBoostCpuLimitPrefix = "attune.io/boost-cpu-limit.";

// One workload's pods and steady targets, as the rollout gets them.
struct BoostWorkload {
  api::WorkloadRef ref;
  std::vector<const api::Pod*> pods;  // must outlive the call
  ContainerTargets targets;           // the steady recommendation per container
};

// Plans the boosts and boost ends of one pass, appending StartupBoostAction and
// EndStartupBoostAction entries to `plan`, and returns the pods ("name") the rollout must leave
// alone this pass: those boosted now, still boosted, or whose boost ends now.
//  - A pod carrying kStartupBoostAtAnnotation is boosted. When startup-boost-at + duration has
//    passed (or the policy no longer has a boost, or the annotation does not parse), its boost
//    ends: each boosted container's CPU request (and a raised limit) goes to the steady target
//    derived from `targets` as a resize would, or to the recorded values without a target. This
//    happens in every mode, paused or not. Otherwise the pod is left alone until then
//    (plan.requeue at the end).
//  - A Running pod without that annotation, without a resize record, without a pending resize
//    (PodResizePending / PodResizeInProgress), not being deleted, whose age (now −
//    creationTimestamp) is below the duration, in a mode that resizes (OneShot, Canary, Auto; not
//    paused), gets a boost when a regular, not excluded container with a CPU request has a CPU
//    target: request = target × multiplier, capped at spec.cpu.maxAllowed and at the node's
//    allocatable CPU less the pod's other requests, never below the current request. Under
//    RequestsAndLimits a container with a CPU limit keeps its limit/request ratio (limit raised
//    with the request); otherwise the request is capped at the CPU limit. Readiness is not
//    checked (as the public operator).
// `policy.spec` need not be defaulted.
std::set<std::string> planStartupBoost(const api::AttunePolicy& policy,
                                       std::span<const BoostWorkload> workloads,
                                       std::span<const api::Node> nodes, Time now, Plan& plan);

}  // namespace attune::rollout
