#include "safety/node_load.h"

#include <algorithm>

namespace attune::safety {

api::Taint overloadedTaint() {
  return api::Taint{std::string(kOverloadedTaintKey), "true", "NoSchedule"};
}

NodeLoadDecision decideNodeTaint(const NodeLoadReading& reading, double threshold) {
  NodeLoadDecision decision{.node = reading.node};
  if (!reading.load1 || reading.cpuCores <= 0) return decision;
  const double load = *reading.load1 / reading.cpuCores;
  decision.load = load;
  if (load > threshold && !reading.tainted) decision.change = NodeLoadDecision::Change::kTaint;
  if (load < threshold && reading.tainted) decision.change = NodeLoadDecision::Change::kUntaint;
  return decision;
}

bool hasOverloadedTaint(std::span<const api::Taint> taints) {
  return std::ranges::any_of(taints,
                             [](const api::Taint& t) { return t.key == kOverloadedTaintKey; });
}

std::vector<api::Taint> withOverloadedTaint(std::span<const api::Taint> taints, bool add) {
  std::vector<api::Taint> out;
  for (const auto& taint : taints) {
    if (taint.key != kOverloadedTaintKey) out.push_back(taint);
  }
  if (add) out.push_back(overloadedTaint());
  return out;
}

}  // namespace attune::safety
