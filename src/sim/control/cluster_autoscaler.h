// The simulated cluster autoscaler: node groups grow when pods cannot be scheduled and shrink when
// a node's pods are requested well below its allocatable and fit elsewhere, after the rules of
// the upstream cluster-autoscaler (kubernetes/autoscaler, cluster-autoscaler/FAQ.md "How does
// scale-up work?" / "How does scale-down work?") with its default flags.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/k8s/node.h"
#include "core/time.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// The label that names a node's group (the scenario's node pool).
inline constexpr std::string_view kNodeGroupLabel = "sim.attune.io/node-pool";
// Upstream's annotation: a pod with "false" blocks the scale-down of its node.
inline constexpr std::string_view kSafeToEvictAnnotation =
    "cluster-autoscaler.kubernetes.io/safe-to-evict";

// A group of identical nodes the autoscaler may add to or remove from. Its nodes are those
// labelled kNodeGroupLabel = name; a new one is `templateNode` named "<name>-<i>" (the lowest
// index no node of the group has; kubernetes.io/hostname follows the name).
struct NodeGroup {
  std::string name;
  std::int32_t minSize = 0;
  std::int32_t maxSize = 0;
  double pricePerHour = 0;
  api::Node templateNode;
};

// Upstream's flags of the same names, at their defaults.
struct ClusterAutoscalerOptions {
  // --scale-down-utilization-threshold: a node whose requested share (the larger of its pods'
  // cpu and memory requests over its allocatable) is below this is a scale-down candidate.
  double scaleDownUtilizationThreshold = 0.5;
  // --scale-down-unneeded-time: how long a node stays a candidate before it is removed.
  Duration scaleDownUnneededTime = std::chrono::minutes(10);
  // --scale-down-delay-after-add: no scale-down for this long after a scale-up.
  Duration scaleDownDelayAfterAdd = std::chrono::minutes(10);
  // --max-empty-bulk-delete: empty nodes removed in one loop (nodes to drain: one per loop).
  std::int32_t maxEmptyBulkDelete = 10;
  // The simulator's own: time from a scale-up decision to the node registering Ready.
  Duration provisioningDelay = std::chrono::minutes(1);
};

// What the autoscaler did so far.
struct AutoscalerCounters {
  std::int64_t scaleUps = 0;      // loops that added nodes
  std::int64_t nodesAdded = 0;    // nodes that registered
  std::int64_t nodesRemoved = 0;  // nodes deleted (empty or drained)
  std::int64_t podsEvicted = 0;   // pods evicted by drains
};

// One loop per call (the simulator calls it once per tick, after the scheduler):
//  1. nodes whose provisioning delay ended are created (Ready);
//  2. scale-up: pods the scheduler marked Unschedulable (PodScheduled False, reason
//     Unschedulable; not bound, not deleting, not finished) are first fitted into the nodes
//     still provisioning; for the rest, each group below its maxSize is simulated: the pods
//     sorted by size (cpu and memory over the template's allocatable, largest first) are packed
//     first-fit into new template nodes (each carrying the requests of the DaemonSets that would
//     run on it), at most maxSize - size nodes; a pod that fits no empty template node is not
//     helped by the group. Of the groups that help at least one pod the least-waste expander
//     picks one (least unrequested share of cpu and memory on the new nodes; ties: more pods
//     helped, lower price, name), and its new nodes are provisioned;
//  3. scale-down bookkeeping: a node of a group is unneeded while its requested share is below
//     the threshold and it is removable: its group is above minSize, none of its pods is a bare
//     pod (no controller) or annotated safe-to-evict "false", the PodDisruptionBudgets covering
//     its pods allow evicting them all (status.disruptionsAllowed), and every pod other than its
//     DaemonSet pods fits (node_fit.h) on the other Ready, schedulable nodes, first-fit in node
//     name order, with the requests already bound there;
//  4. scale-down, unless a scale-up happened in this loop or less than scaleDownDelayAfterAdd
//     ago: among the nodes unneeded for scaleDownUnneededTime (checked again as in 3, with the
//     nodes removed earlier in the loop gone), up to maxEmptyBulkDelete empty ones (only
//     DaemonSet pods) and one with pods to drain are removed, in name order: its pods are evicted
//     through their budgets (the eviction subresource), its DaemonSet pods deleted, then the
//     node is deleted.
// A loop is skipped when nothing was written to the cluster since the previous one and none of
// its timers is due: it would decide the same. Deterministic; not thread-safe.
class ClusterAutoscaler {
 public:
  ClusterAutoscaler(ClusterAutoscalerOptions options, std::vector<NodeGroup> groups);

  // Returns true when it wrote to `state` (a node or pod created, evicted or deleted).
  bool tick(ClusterState& state, Time now);

  const std::vector<NodeGroup>& groups() const { return groups_; }
  const AutoscalerCounters& counters() const { return counters_; }
  // Since when each node has been unneeded (for tests and reports).
  const std::map<std::string, Time, std::less<>>& unneededSince() const { return unneeded_; }

 private:
  struct Upcoming {
    std::size_t group = 0;
    std::string name;
    Time readyAt;
  };

  bool createReadyNodes(ClusterState& state, Time now);
  bool scaleUp(ClusterState& state, Time now);
  // Step 3, and step 4 when `remove`.
  bool scaleDownStep(ClusterState& state, Time now, bool remove);

  ClusterAutoscalerOptions options_;
  std::vector<NodeGroup> groups_;
  std::vector<Upcoming> upcoming_;
  std::map<std::string, Time, std::less<>> unneeded_;
  std::optional<Time> lastScaleUp_;
  AutoscalerCounters counters_;
  // The cluster's resourceVersion after the last loop, and when a timer of that loop comes due
  // (a provisioned node, an unneeded time, the end of the delay after a scale-up).
  std::string lastVersion_;
  std::optional<Time> nextDue_;
};

}  // namespace attune::sim
