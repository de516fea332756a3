// OOM recovery (CruiseKube's OOM handling): a container killed for memory is recorded — the
// memory it had at the kill, kept on its workload so that neither the pod's eviction nor an
// operator restart loses it — and its pod is evicted so that the workload recreates it, sized by
// the admission webhook with the higher memory limit (2 × max(7-day max, memory at the OOM
// kill)). Pure.
//
// Per OOM kill seen in a pod's status (a container whose lastState.terminated.reason is
// OOMKilled), in this order:
//  1. a pod carrying an Attune resize record is the safety monitor's: its verdict reverts the
//     resize in place (reason oomkill) and the OOM handler leaves the pod alone — the two never
//     act on the same pod, nor on the same kill: a kill seen under observation is remembered
//     as handled (without starting the cooldown), so the pod is not evicted for it after the
//     revert;
//  2. a kill already handled (the same finishedAt as the one recorded for that pod and
//     container) is not handled again;
//  3. a kill within `cooldown` of the last one handled for the same pod and container is not
//     evicted again (the cooldown resets with the pod: a recreated pod has a new name);
//  4. a pod or workload opted out (attune.io/skip: "true"), or a workload whose memory its
//     policy does not manage, is left alone (nothing to size its replacement with);
//  5. otherwise the pod is evicted, and before it the memory at the kill (the container's
//     memory limit, where the kernel killed it) is recorded on the workload:
//     attune.io/oom-memory.<container> = the highest memory at an OOM kill so far, in bytes.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/pod.h"
#include "api/k8s/workload_ref.h"
#include "core/time.h"
#include "core/units.h"
#include "rollout/plan.h"

namespace attune::rollout {

inline constexpr std::string_view kOomMemoryAnnotationPrefix = "attune.io/oom-memory.";
inline constexpr std::string_view kOomKilledCause = "OOMKilled";

// The OOM kills handled, by "pod/container": the kill's finishedAt and when it was handled.
// Memory only: after an operator restart a kill within the cooldown can be handled once more,
// which evicts a pod that has already been (or is being) replaced — harmless with the uid
// precondition, and the recorded memory is persisted on the workload regardless.
struct HandledOomKill {
  Time finishedAt;
  Time handledAt;
};
using OomCooldowns = std::map<std::string, HandledOomKill, std::less<>>;

struct OomRecoveryOptions {
  Duration cooldown = std::chrono::minutes(30);
};

// One pod of a workload, as the OOM handler needs it.
struct OomPod {
  const api::Pod* pod = nullptr;
  bool underObservation = false;  // carries an Attune resize record
};

struct OomWorkload {
  api::WorkloadRef ref;
  const api::ObjectMeta* meta = nullptr;  // the workload's metadata (its annotations)
  bool memoryManaged = true;              // the policy controls memory (and is not paused or off)
  std::vector<OomPod> pods;
};

// What the handler decided for one kill (for events and tests).
struct OomDecision {
  enum class Outcome { kLeftToSafetyMonitor, kAlreadyHandled, kCooldown, kOptedOut, kEvict };
  std::string pod;
  std::string container;
  Outcome outcome = Outcome::kEvict;
  Bytes memoryAtKill;
};

// Plans the handling of every new OOM kill of `workload`'s pods: one EvictAction per pod to
// evict (carrying the workload annotation with the memory at the kill), appended to `plan`;
// `cooldowns` updated for the kills handled. Returns one decision per kill seen, in pod order.
std::vector<OomDecision> planOomRecovery(const OomWorkload& workload, OomCooldowns& cooldowns,
                                         Time now, const OomRecoveryOptions& options, Plan& plan);

// The memory recorded at OOM kills for `container` of a workload with these annotations (0 when
// none or malformed).
Bytes recordedOomMemory(const api::StringMap& annotations, std::string_view container);

}  // namespace attune::rollout
