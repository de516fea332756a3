#include "rollout/recreate_fallback.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "safety/cooldown.h"

namespace attune::rollout {
namespace {

const api::Condition* activeCondition(const api::Pod& pod, std::string_view type) {
  const api::Condition* c = api::findCondition(pod.status.conditions, type);
  return c != nullptr && c->isTrue() ? c : nullptr;
}

// How long `c` has held, from its lastTransitionTime (unknown: from now, so it never times out
// on a condition without one).
Duration heldFor(const api::Condition& c, Time now) {
  return c.lastTransitionTime && *c.lastTransitionTime <= now ? now - *c.lastTransitionTime
                                                              : Duration::zero();
}

bool removeRestore(Plan& plan, const std::string& pod) {
  const auto before = plan.actions.size();
  std::erase_if(plan.actions, [&](const Action& a) {
    const auto* restore = std::get_if<RestoreAction>(&a);
    return restore != nullptr && restore->pod == pod;
  });
  return plan.actions.size() != before;
}

}  // namespace

std::optional<StalledResize> stalledResize(const api::Pod& pod, Time now,
                                           std::optional<Duration>* recheckAfter) {
  if (const api::Condition* pending = activeCondition(pod, api::kPodResizePending)) {
    if (pending->reason == "Infeasible") {
      return StalledResize{"infeasible", "the kubelet reported the resize Infeasible on node " +
                                             pod.spec.nodeName + ": " + pending->message};
    }
    if (pending->reason == "Deferred") {
      const Duration held = heldFor(*pending, now);
      if (held >= kDeferredResizeTimeout) {
        return StalledResize{"deferred-timeout", "the resize has been Deferred for " +
                                                     formatDuration(held) + " (limit " +
                                                     formatDuration(kDeferredResizeTimeout) + ")"};
      }
      if (recheckAfter != nullptr) *recheckAfter = kDeferredResizeTimeout - held;
    }
    return std::nullopt;
  }
  if (const api::Condition* progress = activeCondition(pod, api::kPodResizeInProgress)) {
    if (progress->reason == "Error") {
      return StalledResize{"resize-error",
                           "the kubelet failed to apply the resize: " + progress->message};
    }
    const Duration held = heldFor(*progress, now);
    if (held >= kInProgressResizeTimeout) {
      return StalledResize{"in-progress-timeout",
                           "the resize has been in progress for " + formatDuration(held) +
                               " (limit " + formatDuration(kInProgressResizeTimeout) + ")"};
    }
    if (recheckAfter != nullptr) *recheckAfter = kInProgressResizeTimeout - held;
  }
  return std::nullopt;
}

void planRecreateFallback(std::span<const ObservedPod> observed,
                          const std::map<api::WorkloadRef, RecreateWorkload>& workloads, Time now,
                          Plan& plan) {
  for (const ObservedPod& o : observed) {
    const api::Pod& pod = *o.pod;
    if (recordState(pod, o.record) == RecordState::kAtOriginals) continue;
    std::optional<Duration> recheck;
    auto stalled = stalledResize(pod, now, &recheck);
    plan.requeue(recheck);
    if (!stalled) continue;
    const std::string& name = pod.metadata.name;
    auto it = workloads.find(o.workload);
    std::string blocked;
    if (it == workloads.end() || !o.workload.workloadKind()) {
      blocked = "no workload recreates pod " + name;
    } else if (it->second.runningPods < 2) {
      const auto& annotations = it->second.metadata.annotations;
      auto a = annotations.find(std::string(kRecreateSingleReplicaAnnotation));
      if (a == annotations.end() || a->second != "true") {
        blocked = name + " is the only running pod of " + o.workload.name + " (annotate the " +
                  "workload " + std::string(kRecreateSingleReplicaAnnotation) +
                  ": \"true\" to allow it)";
      }
    }
    if (!blocked.empty()) {
      plan.actions.emplace_back(
          EventAction{o.workload, "Warning", std::string(kEvictionBlockedReason),
                      name + " not recreated: " + stalled->message + "; " + blocked});
      continue;
    }
    removeRestore(plan, name);
    plan.actions.emplace_back(EvictAction{
        .workload = o.workload,
        .pod = name,
        .podUid = pod.metadata.uid,
        .cause = stalled->cause,
        .container = {},
        .workloadAnnotations = safety::annotationsAfterResize(now),
        .message = name + " evicted to be recreated (resizeMethod InPlaceOrRecreate): " +
                   stalled->message});
  }
}

}  // namespace attune::rollout
