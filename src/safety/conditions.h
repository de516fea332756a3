// Policy status conditions: set/replace with Kubernetes' lastTransitionTime semantics, and the
// Degraded condition computed from the resize history. Pure.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "api/k8s/meta.h"
#include "api/policy/attune_policy.h"
#include "core/time.h"

namespace attune::safety {

// Degraded (reason HighRevertRate) when at least this many of the last kDegradedWindow resize
// operations were reverted.
inline constexpr int kDegradedWindow = 5;
inline constexpr int kDegradedRevertThreshold = 3;

// Puts `next` into `conditions`, replacing the condition of the same type (or appending).
// lastTransitionTime becomes `now` when the condition is new or its status changes, and keeps
// its previous value otherwise (whatever `next` carries). Returns whether anything changed.
bool setCondition(std::vector<api::Condition>& conditions, api::Condition next, Time now);
// Removes the condition of type `type`; returns whether there was one.
bool removeCondition(std::vector<api::Condition>& conditions, std::string_view type);

// True for history entries that record a resize operation: result Applied, Success (written by
// the public operator), Reverted or Failed. Skipped, Evicted and TemplatePatched entries, and
// entries without a result, are not resize operations.
bool isResizeOperation(const api::ResizeHistoryEntry& entry);

struct RevertRate {
  int reverted = 0;    // Reverted among `considered`
  int considered = 0;  // the last min(5, operations) resize operations
};
// Over the last kDegradedWindow resize operations of `history` (oldest first, as in status).
RevertRate recentRevertRate(std::span<const api::ResizeHistoryEntry> history);

// Sets Degraded=True, reason HighRevertRate, when recentRevertRate(history).reverted >= 3, and
// removes the Degraded condition otherwise. `observedGeneration` is the policy's generation.
// Returns whether `conditions` changed.
bool updateDegradedCondition(std::vector<api::Condition>& conditions,
                             std::span<const api::ResizeHistoryEntry> history, Time now,
                             std::int64_t observedGeneration);

}  // namespace attune::safety
