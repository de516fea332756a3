// Cooldown with exponential backoff. A workload's cooldown state lives in its annotations
// (safety/annotations.h): attune.io/last-resize-time, attune.io/consecutive-reverts and
// attune.io/last-safe-time, so it survives a controller restart. Pure.
#pragma once

#include <optional>

#include "api/k8s/meta.h"
#include "api/k8s/patch.h"
#include "core/error.h"
#include "core/time.h"

namespace attune::safety {

// Reverts beyond this many no longer double the cooldown: the multiplier caps at 2^4 = 16.
inline constexpr int kMaxBackoffDoublings = 4;

// 2^min(consecutiveReverts, 4): 1, 2, 4, 8, 16, 16, ... (negative counts as 0).
int cooldownMultiplier(int consecutiveReverts);
// base × cooldownMultiplier(consecutiveReverts).
Duration effectiveCooldown(Duration base, int consecutiveReverts);

struct CooldownState {
  std::optional<Time> lastResizeTime;  // last resize or revert
  int consecutiveReverts = 0;          // reverts since the last resize declared safe
  std::optional<Time> lastSafeTime;    // when the last resize was declared safe

  bool operator==(const CooldownState&) const = default;
};

// The state in a workload's annotations; absent keys give the defaults. kInvalidArgument with
// field = the annotation key when a time is not RFC 3339 or the count is not a non-negative
// integer.
Result<CooldownState> decodeCooldownState(const api::ObjectMeta& workload);

// How long the workload must still wait: lastResizeTime + effectiveCooldown(base, reverts) − now,
// or zero when that is not positive or there was no resize.
Duration remainingCooldown(const CooldownState& state, Duration base, Time now);

// The workload annotations to write after each event:
//  - a resize was made at `now`: last-resize-time = now;
//  - a resize was reverted at `now`: last-resize-time = now, consecutive-reverts = count + 1;
//  - a resize was declared safe at `now`: consecutive-reverts removed (backoff back to 1×),
//    last-safe-time = now.
api::AnnotationChanges annotationsAfterResize(Time now);
api::AnnotationChanges annotationsAfterRevert(const CooldownState& state, Time now);
api::AnnotationChanges annotationsAfterSafe(Time now);

}  // namespace attune::safety
