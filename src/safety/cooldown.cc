#include "safety/cooldown.h"

#include <algorithm>
#include <charconv>
#include <string>

#include "safety/annotations.h"

namespace attune::safety {
namespace {

Result<std::optional<Time>> timeAnnotation(const api::ObjectMeta& meta, std::string_view key) {
  auto it = meta.annotations.find(key);
  if (it == meta.annotations.end()) return std::optional<Time>{};
  auto t = parseRfc3339(it->second);
  if (!t) {
    return fail(ErrorCode::kInvalidArgument, "not an RFC 3339 time: " + t.error().message,
                std::string(key));
  }
  return std::optional<Time>(*t);
}

}  // namespace

int cooldownMultiplier(int consecutiveReverts) {
  return 1 << std::clamp(consecutiveReverts, 0, kMaxBackoffDoublings);
}

Duration effectiveCooldown(Duration base, int consecutiveReverts) {
  return base * cooldownMultiplier(consecutiveReverts);
}

Result<CooldownState> decodeCooldownState(const api::ObjectMeta& workload) {
  CooldownState state;
  auto last = timeAnnotation(workload, kLastResizeTimeAnnotation);
  if (!last) return std::unexpected(last.error());
  state.lastResizeTime = *last;
  auto safe = timeAnnotation(workload, kLastSafeTimeAnnotation);
  if (!safe) return std::unexpected(safe.error());
  state.lastSafeTime = *safe;
  if (auto it = workload.annotations.find(kConsecutiveRevertsAnnotation);
      it != workload.annotations.end()) {
    const std::string& text = it->second;
    auto [end, ec] =
        std::from_chars(text.data(), text.data() + text.size(), state.consecutiveReverts);
    if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
        state.consecutiveReverts < 0) {
      return fail(ErrorCode::kInvalidArgument, "not a non-negative integer: \"" + text + "\"",
                  std::string(kConsecutiveRevertsAnnotation));
    }
  }
  return state;
}

Duration remainingCooldown(const CooldownState& state, Duration base, Time now) {
  if (!state.lastResizeTime) return Duration::zero();
  const Duration left =
      *state.lastResizeTime + effectiveCooldown(base, state.consecutiveReverts) - now;
  return std::max(left, Duration::zero());
}

api::AnnotationChanges annotationsAfterResize(Time now) {
  return {{std::string(kLastResizeTimeAnnotation), formatRfc3339(now)}};
}

api::AnnotationChanges annotationsAfterRevert(const CooldownState& state, Time now) {
  return {{std::string(kLastResizeTimeAnnotation), formatRfc3339(now)},
          {std::string(kConsecutiveRevertsAnnotation),
           std::to_string(std::max(state.consecutiveReverts, 0) + 1)}};
}

api::AnnotationChanges annotationsAfterSafe(Time now) {
  return {{std::string(kConsecutiveRevertsAnnotation), std::nullopt},
          {std::string(kLastSafeTimeAnnotation), formatRfc3339(now)}};
}

}  // namespace attune::safety
