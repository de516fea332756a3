// The simulated kubelet's side of an in-place resize (KEP-1287, Kubernetes 1.33+ conditions):
// admit a pod's desired resources against its node, or report why not, then actuate them.
// Pure apart from the ClusterState it writes: time and memory usage are passed in.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "core/units.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// Condition reasons the kubelet writes while a resize waits or fails.
inline constexpr std::string_view kResizeInfeasible = "Infeasible";  // PodResizePending
inline constexpr std::string_view kResizeDeferred = "Deferred";      // PodResizePending
inline constexpr std::string_view kResizeError = "Error";            // PodResizeInProgress

// What a container reports in lastState.terminated when a resize restarted it (its process is
// killed: SIGKILL's exit code).
inline constexpr std::string_view kResizeRestartReason = "Error";
inline constexpr int kResizeRestartExitCode = 137;

// The working-set memory of container `container` of `pod` now, from the workload model the
// caller owns; Bytes(0) when unknown (no limit decrease is then refused).
using ContainerMemoryUsage = std::function<Bytes(const api::Pod& pod, std::string_view container)>;

// What one sync decided for one pod with an outstanding resize.
struct ResizeDecision {
  enum class Kind {
    kApplied,     // allocated and actual resources now equal the spec
    kInfeasible,  // PodResizePending/Infeasible: requests exceed the node's allocatable
    kDeferred,    // PodResizePending/Deferred: they exceed what the other pods leave free
    kError,       // PodResizeInProgress/Error: allocated, but a memory limit is below usage
  };
  std::string namespace_;
  std::string name;
  Kind kind = Kind::kApplied;
  std::string message;  // the condition's message; empty when applied

  bool operator==(const ResizeDecision&) const = default;
};

// One kubelet sync of in-place resizes on node `nodeName`, level-based and idempotent.
//
// A pod is on the node when spec.nodeName matches and its phase is not Succeeded or Failed.
// A container (regular, or sidecar init container) has a resize outstanding when its status
// reports `resources` and either allocatedResources differs from spec requests or `resources`
// differs from the spec; a container without status `resources` has not started and is left
// alone. A container's allocated requests are status.allocatedResources, or its spec requests
// when it has none. Pod totals cover cpu and memory over regular and sidecar containers plus
// spec.overhead. For each pod with a resize outstanding, in (namespace, name) order:
// - desired requests above the node's allocatable (a resource the node does not list is not
//   checked): PodResizePending, reason Infeasible; nothing is allocated;
// - else above allocatable minus the allocated requests of the node's other pods:
//   PodResizePending, reason Deferred; re-evaluated every sync;
// - else the desired requests are allocated (allocatedResources = spec requests). Then, if a
//   container's memory limit decreases below `usage` and its memory resizePolicy is not
//   RestartContainer: PodResizeInProgress, reason Error; actual resources stay, retried next
//   sync. Otherwise applied: status resources = spec, both resize conditions removed, and each
//   container whose resizePolicy is RestartContainer for a cpu or memory value that changed is
//   restarted (restartCount + 1, lastState.terminated with kResizeRestartReason, running since
//   `now`; no crash-loop backoff: it is not a crash).
// Every status written sets status.observedGeneration and the conditions' observedGeneration to
// metadata.generation; a condition's lastTransitionTime is `now` unless the same condition
// (type, reason) was already there. Writes are status-only (generation unchanged); a pod whose
// status would not change is not written. Level-based: the spec/status difference is what this
// acts on, so a resize the API server accepted needs no hand-over.
//
// Returns one decision per pod with a resize outstanding, or kNotFound when the node does not
// exist. Not thread-safe.
Result<std::vector<ResizeDecision>> actuateResizes(ClusterState& state, std::string_view nodeName,
                                                   Time now, const ContainerMemoryUsage& usage);

// The same, where `candidates` (namespace, name) holds every pod the store has on the node (a
// kubelet's own list; more is harmless, pods missing from it are not seen): only they are read,
// not every pod of the cluster.
using PodName = std::pair<std::string_view, std::string_view>;
Result<std::vector<ResizeDecision>> actuateResizes(ClusterState& state, std::string_view nodeName,
                                                   std::vector<PodName> candidates, Time now,
                                                   const ContainerMemoryUsage& usage);

}  // namespace attune::sim
