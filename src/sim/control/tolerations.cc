#include "sim/control/tolerations.h"

#include <algorithm>

namespace attune::sim {

const api::Taint* untoleratedTaint(const api::Node& node,
                                   const std::vector<api::Toleration>& tolerations) {
  for (const auto& taint : node.spec.taints) {
    if (taint.effect != "NoSchedule" && taint.effect != "NoExecute") continue;
    const bool tolerated =
        std::any_of(tolerations.begin(), tolerations.end(),
                    [&](const api::Toleration& t) { return t.tolerates(taint); });
    if (!tolerated) return &taint;
  }
  return nullptr;
}

}  // namespace attune::sim
