#include "sim/control/conditions.h"

#include <algorithm>
#include <utility>

namespace attune::sim {

bool setCondition(std::vector<api::Condition>& conditions, api::Condition condition, Time now) {
  auto it = std::find_if(conditions.begin(), conditions.end(),
                         [&](const api::Condition& c) { return c.type == condition.type; });
  if (it == conditions.end()) {
    condition.lastTransitionTime = now;
    conditions.push_back(std::move(condition));
    return true;
  }
  condition.lastTransitionTime = it->status == condition.status ? it->lastTransitionTime : now;
  if (*it == condition) return false;
  *it = std::move(condition);
  return true;
}

}  // namespace attune::sim
