// Overlapping policies (spec.weight, the public operator's rule): a workload that several
// AttunePolicies of its namespace target is handled by one of them alone, the one with the
// highest spec.weight (unset: 100); of equal weights, the one whose name sorts first. Each other
// policy leaves that workload out of its pass entirely (no usage read, recommendation, resize or
// verdict) and reports it: a PolicyConflict condition naming the winner, and a PolicyConflict
// Warning Event on the policy when that changes. Pure except reportPolicyConflict's Event.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/k8s/meta.h"
#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "controller/event_recorder.h"
#include "controller/target_resolution.h"
#include "core/time.h"

namespace attune::controller {

inline constexpr std::string_view kConditionPolicyConflict = "PolicyConflict";
inline constexpr std::string_view kReasonPolicyConflict = "PolicyConflict";  // condition, Event
inline constexpr std::string_view kReasonHandledByOtherPolicy = "HandledByOtherPolicy";

// A workload of this policy's targets that another policy handles.
struct YieldedWorkload {
  api::WorkloadRef workload;
  std::string winner;  // the handling policy's name (same namespace)
  int winnerWeight = 0;
  int weight = 0;  // this policy's
};

// Removes from `targets` (the workloads `policy` resolved to) those another policy of `listed`
// handles, and returns them in the order of `targets`. `listed` is every AttunePolicy as listed
// (any namespace; `policy` itself, by namespace and name, and policies being deleted are
// ignored); a listed policy targets a workload when its targetRef selects it as resolveTargets
// would.
std::vector<YieldedWorkload> yieldOverlaps(const api::AttunePolicy& policy,
                                           std::span<const api::AttunePolicy* const> listed,
                                           std::vector<TargetWorkload>& targets);

// The PolicyConflict condition for `yielded` (status True, reason HandledByOtherPolicy, the
// message naming each workload's winner and both weights, at most 5); nullopt when nothing
// yielded.
std::optional<api::Condition> policyConflictCondition(std::span<const YieldedWorkload> yielded,
                                                      std::int64_t generation);

// Sets (or, when nothing yielded, removes) the PolicyConflict condition in `status`, which
// settleStatus has written; a Ready=False NoWorkloadsFound condition then says that the policy's
// workloads are handled by other policies. When the condition's message differs from the one in
// `before` (the stored status), records a PolicyConflict Warning Event on `policy`.
void reportPolicyConflict(api::AttunePolicyStatus& status, const api::AttunePolicyStatus& before,
                          const api::AttunePolicy& policy, std::span<const YieldedWorkload> yielded,
                          EventRecorder& events, Time now);

}  // namespace attune::controller
