#include "controller/policy_overlaps.h"

#include <algorithm>

#include "api/policy/policy_defaults.h"
#include "safety/conditions.h"

namespace attune::controller {
namespace {

int weightOf(const api::AttunePolicy& p) { return p.spec.weight.value_or(api::kDefaultWeight); }

// Whether `a` outranks `b` for a workload both target: higher weight, then the smaller name.
bool outranks(int weightA, const std::string& nameA, int weightB, const std::string& nameB) {
  return weightA != weightB ? weightA > weightB : nameA < nameB;
}

std::string describe(const YieldedWorkload& y) {
  return y.workload.kind + " " + y.workload.name + " is handled by AttunePolicy " + y.winner +
         " (weight " + std::to_string(y.winnerWeight) +
         (y.winnerWeight == y.weight ? ", the same as this policy's; its name sorts first)"
                                     : ", this policy " + std::to_string(y.weight) + ")");
}

}  // namespace

std::vector<YieldedWorkload> yieldOverlaps(const api::AttunePolicy& policy,
                                           std::span<const api::AttunePolicy* const> listed,
                                           std::vector<TargetWorkload>& targets) {
  std::vector<YieldedWorkload> yielded;
  const api::TargetRef& ref = policy.spec.targetRef;
  if (!ref.kind || targets.empty()) return yielded;
  const std::string& ns = policy.metadata.namespace_;
  const int weight = weightOf(policy);
  std::vector<const api::AttunePolicy*> rivals;
  for (const api::AttunePolicy* listedPolicy : listed) {
    const api::AttunePolicy& other = *listedPolicy;
    if (other.metadata.namespace_ != ns || other.metadata.name == policy.metadata.name ||
        other.metadata.deletionTimestamp || other.spec.targetRef.kind != ref.kind) {
      continue;
    }
    if (outranks(weightOf(other), other.metadata.name, weight, policy.metadata.name)) {
      rivals.push_back(&other);
    }
  }
  if (rivals.empty()) return yielded;
  std::erase_if(targets, [&](const TargetWorkload& t) {
    const api::AttunePolicy* winner = nullptr;
    for (const api::AttunePolicy* rival : rivals) {
      if (!targetRefSelects(rival->spec.targetRef, *t.metadata)) continue;
      if (winner == nullptr || outranks(weightOf(*rival), rival->metadata.name, weightOf(*winner),
                                        winner->metadata.name)) {
        winner = rival;
      }
    }
    if (winner == nullptr) return false;
    yielded.push_back({.workload = t.ref,
                       .winner = winner->metadata.name,
                       .winnerWeight = weightOf(*winner),
                       .weight = weight});
    return true;
  });
  return yielded;
}

std::optional<api::Condition> policyConflictCondition(std::span<const YieldedWorkload> yielded,
                                                      std::int64_t generation) {
  if (yielded.empty()) return std::nullopt;
  constexpr std::size_t kNamed = 5;
  std::string message;
  for (std::size_t i = 0; i < yielded.size() && i < kNamed; ++i) {
    message += (i ? "; " : "") + describe(yielded[i]);
  }
  if (yielded.size() > kNamed) {
    message += "; and " + std::to_string(yielded.size() - kNamed) + " more workload(s)";
  }
  return api::Condition{.type = std::string(kConditionPolicyConflict),
                        .status = "True",
                        .reason = std::string(kReasonHandledByOtherPolicy),
                        .message = std::move(message),
                        .lastTransitionTime = std::nullopt,
                        .observedGeneration = generation};
}

void reportPolicyConflict(api::AttunePolicyStatus& status, const api::AttunePolicyStatus& before,
                          const api::AttunePolicy& policy, std::span<const YieldedWorkload> yielded,
                          EventRecorder& events, Time now) {
  const std::optional<api::Condition> conflict =
      policyConflictCondition(yielded, policy.metadata.generation);
  if (!conflict) {
    safety::removeCondition(status.conditions, kConditionPolicyConflict);
    return;
  }
  safety::setCondition(status.conditions, *conflict, now);
  for (api::Condition& c : status.conditions) {
    if (c.type == api::kConditionReady && c.reason == api::kReasonNoWorkloadsFound) {
      c.message = "every workload spec.targetRef matches is handled by another policy (see the " +
                  std::string(kConditionPolicyConflict) + " condition)";
    }
  }
  const api::Condition* was = api::findCondition(before.conditions, kConditionPolicyConflict);
  if (was != nullptr && was->message == conflict->message) return;
  (void)events.record(referenceTo(api::kPolicyApiVersion, api::kPolicyKind, policy.metadata),
                      "Warning", kReasonPolicyConflict, conflict->message);
}

}  // namespace attune::controller
