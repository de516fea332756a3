// How the simulated kubelet reports a pod it runs: the pod status rendered from its PodRuntime.
// Pure apart from the pod it writes into.
#pragma once

#include <string_view>

#include "api/k8s/pod.h"
#include "core/time.h"
#include "sim/kubelet/kubelet.h"

namespace attune::sim {

// Condition reasons and the pod reason the kubelet writes.
inline constexpr std::string_view kContainersNotReady = "ContainersNotReady";
inline constexpr std::string_view kPodCompleted = "PodCompleted";
inline constexpr std::string_view kPodFailed = "PodFailed";
inline constexpr std::string_view kEvicted = "Evicted";
inline constexpr std::string_view kOomKilled = "OOMKilled";
inline constexpr int kOomKilledExitCode = 137;
inline constexpr std::string_view kCompleted = "Completed";

// Writes `runtime` into `pod.status`: phase (and reason/message when the runtime has them),
// startTime (kept once set), one status per runtime container (regular ones in
// containerStatuses, sidecars in initContainerStatuses; created when missing) with ready,
// started, restartCount, state (running since runningSince; waiting CrashLoopBackOff until
// restartAt; terminated) and lastState.terminated; a container status without `resources` gets
// the spec's resources and allocatedResources = spec requests (what the node admitted); plain
// init containers are reported terminated Completed. Conditions Initialized, ContainersReady and
// Ready follow runtime.ready (lastTransitionTime kept while unchanged). Resource fields already
// reported are left alone: resizes own them. Returns whether the status changed.
bool renderPodStatus(api::Pod& pod, const PodRuntime& runtime, Time now);

}  // namespace attune::sim
