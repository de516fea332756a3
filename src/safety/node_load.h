// Node-load tainting (CruiseKube's node load monitoring): a node whose one-minute load average
// per CPU core is above a threshold gets Attune's NoSchedule taint, so no new pod lands on it
// while its pods contend; the taint goes when the load falls below the threshold again. Pure.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/node.h"

namespace attune::safety {

// The taint Attune puts on an overloaded node (and the only one it ever removes).
inline constexpr std::string_view kOverloadedTaintKey = "attune.io/node-overloaded";
api::Taint overloadedTaint();

// One node as the monitor sees it now.
struct NodeLoadReading {
  std::string node;
  std::optional<double> load1;  // node_load1, the latest sample; nullopt when missing
  double cpuCores = 0;          // status.capacity cpu (0 when unknown)
  bool tainted = false;         // carries kOverloadedTaintKey
};

// What to do with one node. `load` is load1 / cpuCores when both are known.
struct NodeLoadDecision {
  enum class Change { kNone, kTaint, kUntaint };
  std::string node;
  Change change = Change::kNone;
  std::optional<double> load;
};

// The rule, per node: load = load1 / cpuCores. load > threshold and not tainted → kTaint;
// load < threshold and tainted → kUntaint; otherwise kNone. A node without a load sample or
// without a known capacity is left as it is (no taint is added or removed on missing data).
NodeLoadDecision decideNodeTaint(const NodeLoadReading& reading, double threshold);

// `taints` with Attune's overloaded taint added (when `add`) or removed; other taints kept in
// order.
std::vector<api::Taint> withOverloadedTaint(std::span<const api::Taint> taints, bool add);

// True when `taints` hold Attune's overloaded taint.
bool hasOverloadedTaint(std::span<const api::Taint> taints);

}  // namespace attune::safety
