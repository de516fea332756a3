// Status-condition bookkeeping shared by the simulated controllers.
#pragma once

#include <vector>

#include "api/k8s/meta.h"

namespace attune::sim {

// Puts `condition` into `conditions`, replacing the one of the same type. lastTransitionTime is
// `now` when the status changes (or the condition is new) and kept otherwise. Returns whether
// anything changed, so that callers skip writes that would change nothing.
bool setCondition(std::vector<api::Condition>& conditions, api::Condition condition, Time now);

}  // namespace attune::sim
