#include "safety/conditions.h"

#include <algorithm>
#include <string>

namespace attune::safety {

bool setCondition(std::vector<api::Condition>& conditions, api::Condition next, Time now) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const api::Condition& c) { return c.type == next.type; });
  if (it == conditions.end()) {
    next.lastTransitionTime = now;
    conditions.push_back(std::move(next));
    return true;
  }
  next.lastTransitionTime = it->status == next.status ? it->lastTransitionTime : now;
  if (*it == next) return false;
  *it = std::move(next);
  return true;
}

bool removeCondition(std::vector<api::Condition>& conditions, std::string_view type) {
  return std::erase_if(conditions, [&](const api::Condition& c) { return c.type == type; }) > 0;
}

bool isResizeOperation(const api::ResizeHistoryEntry& entry) {
  if (!entry.result) return false;
  switch (*entry.result) {
    case api::ResizeResult::kApplied:
    case api::ResizeResult::kSuccess:
    case api::ResizeResult::kReverted:
    case api::ResizeResult::kFailed:
      return true;
    case api::ResizeResult::kSkipped:
    case api::ResizeResult::kEvicted:
    case api::ResizeResult::kTemplatePatched:
      return false;
  }
  return false;
}

RevertRate recentRevertRate(std::span<const api::ResizeHistoryEntry> history) {
  RevertRate rate;
  for (auto it = history.rbegin(); it != history.rend() && rate.considered < kDegradedWindow;
       ++it) {
    if (!isResizeOperation(*it)) continue;
    ++rate.considered;
    if (*it->result == api::ResizeResult::kReverted) ++rate.reverted;
  }
  return rate;
}

bool updateDegradedCondition(std::vector<api::Condition>& conditions,
                             std::span<const api::ResizeHistoryEntry> history, Time now,
                             std::int64_t observedGeneration) {
  const RevertRate rate = recentRevertRate(history);
  if (rate.reverted < kDegradedRevertThreshold) {
    return removeCondition(conditions, api::kConditionDegraded);
  }
  api::Condition c;
  c.type = std::string(api::kConditionDegraded);
  c.status = "True";
  c.reason = std::string(api::kReasonHighRevertRate);
  c.message = std::to_string(rate.reverted) + " of the last " + std::to_string(rate.considered) +
              " resizes were reverted; adjust the policy's overheads or minAllowed before "
              "further resizes";
  c.observedGeneration = observedGeneration;
  return setCondition(conditions, std::move(c), now);
}

}  // namespace attune::safety
