// policy/v1 PodDisruptionBudget: how many of the pods it selects may be disrupted (evicted) at
// once. The eviction subresource checks it; the disruption controller keeps its status.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/int_or_string.h"
#include "api/k8s/meta.h"
#include "core/error.h"

namespace attune::api {

// spec.unhealthyPodEvictionPolicy values. Unset means IfHealthyBudget.
inline constexpr std::string_view kIfHealthyBudget = "IfHealthyBudget";
inline constexpr std::string_view kAlwaysAllow = "AlwaysAllow";

// The status condition the disruption controller keeps, and its reasons.
inline constexpr std::string_view kDisruptionAllowedCondition = "DisruptionAllowed";
inline constexpr std::string_view kSufficientPodsReason = "SufficientPods";
inline constexpr std::string_view kInsufficientPodsReason = "InsufficientPods";
inline constexpr std::string_view kSyncFailedReason = "SyncFailed";

// The eviction subresource's refusal when a budget allows no disruption (HTTP 429, reason
// TooManyRequests), and the type of the StatusCause naming the budget.
inline constexpr std::string_view kEvictionRefusedMessage =
    "Cannot evict pod as it would violate the pod's disruption budget.";
inline constexpr std::string_view kDisruptionBudgetCause = "DisruptionBudget";

// The error of an eviction a budget refuses, as ClusterApi::evictPod returns it: code
// kDisruptionBudget, message kEvictionRefusedMessage followed by " " and `cause` (the message of
// the DisruptionBudget StatusCause). Pure.
Error disruptionBudgetRefusal(std::string_view cause);
// The cause in such an error's message ("" when it has none). Pure.
std::string_view disruptionBudgetCause(const Error& error);

struct PdbSpec {
  std::optional<IntOrString> minAvailable;
  // Absent: the budget selects no pods. Present and empty ({}): every pod of the namespace for
  // the disruption controller (policy/v1), while the eviction subresource treats an empty
  // selector as matching nothing — both as the API server does.
  std::optional<LabelSelector> selector;
  std::optional<IntOrString> maxUnavailable;
  std::string unhealthyPodEvictionPolicy;  // "" (= IfHealthyBudget), IfHealthyBudget, AlwaysAllow

  bool operator==(const PdbSpec&) const = default;
};

// One entry of status.disruptedPods: a pod the eviction subresource allowed to be evicted and
// the time it did, kept until the disruption controller sees the pod gone (or 2 minutes pass).
struct DisruptedPod {
  std::string name;
  Time at;

  bool operator==(const DisruptedPod&) const = default;
};

struct PdbStatus {
  std::int64_t observedGeneration = 0;
  std::vector<DisruptedPod> disruptedPods;  // a map on the wire, by pod name; kept sorted
  std::int32_t disruptionsAllowed = 0;
  std::int32_t currentHealthy = 0;
  std::int32_t desiredHealthy = 0;
  std::int32_t expectedPods = 0;
  std::vector<Condition> conditions;  // DisruptionAllowed

  bool operator==(const PdbStatus&) const = default;
};

struct PodDisruptionBudget {
  ObjectMeta metadata;
  PdbSpec spec;
  PdbStatus status;

  bool operator==(const PodDisruptionBudget&) const = default;
};

// The API server's validation of a spec (policy/v1): minAvailable and maxUnavailable not both
// set (field ""), each an integer >= 0 or a percentage from 0% to 100% (field "minAvailable" /
// "maxUnavailable"), unhealthyPodEvictionPolicy empty, IfHealthyBudget or AlwaysAllow. Every
// error, kInvalidArgument, with its field relative to the spec. Pure.
std::vector<Error> validatePdbSpec(const PdbSpec& spec);

}  // namespace attune::api
