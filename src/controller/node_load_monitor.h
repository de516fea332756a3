// The node-load monitor: once per run, reads every node's node_load1 and CPU capacity and
// applies safety/node_load.h's rule — Attune's NoSchedule taint on a node whose load per core
// is above the threshold, removed when it falls below. Cluster-scoped and independent of the
// policies, so it is not part of a policy's Plan: it writes the node's taints itself (with the
// node's resourceVersion as precondition; a conflict is retried on the next run) and records
// each change as an Event on the Node (NodeOverloaded / NodeLoadRecovered) and in its metrics:
//   attune_node_load_ratio{node}             load1 / CPU cores, as last read
//   attune_node_taint_changes_total{change}  taints added ("taint") and removed ("untaint")
//   attune_node_load_unknown{node}           1 while the node has no load sample (left alone)
#pragma once

#include <optional>
#include <string>

#include "api/cluster_api.h"
#include "controller/event_recorder.h"
#include "core/clock.h"
#include "metrics/exposition/registry.h"
#include "metrics/metrics_source.h"

namespace attune::controller {

struct NodeLoadMonitorOptions {
  double threshold = 1.0;  // load1 / CPU cores
  // node_load1 is read as the latest sample within this window before now.
  Duration lookback = std::chrono::minutes(5);
  // Time between runs for runDue().
  Duration interval = std::chrono::minutes(1);
};

// What one run did.
struct NodeLoadRunSummary {
  int nodes = 0;
  int tainted = 0;    // taints added this run
  int untainted = 0;  // taints removed this run
  int unknown = 0;    // nodes without a load sample or a capacity
  int failed = 0;     // taint writes that failed (retried next run)
};

class NodeLoadMonitor {
 public:
  // Every reference must outlive the monitor. Not thread-safe.
  NodeLoadMonitor(api::ClusterApi& api, metrics::MetricsSource& metrics, EventRecorder& events,
                  metrics::Registry& registry, Clock& clock, NodeLoadMonitorOptions options = {});

  // One pass over every node. Fails only when the nodes or the load cannot be read at all;
  // then nothing is changed (no taint is added or removed without data).
  Result<NodeLoadRunSummary> run();
  // run() when one is due (at the first call, then `interval` after the previous run started);
  // nullopt otherwise.
  std::optional<Result<NodeLoadRunSummary>> runDue();

 private:
  api::ClusterApi& api_;
  metrics::MetricsSource& metrics_;
  EventRecorder& events_;
  Clock& clock_;
  NodeLoadMonitorOptions options_;
  std::optional<Time> nextRun_;
  metrics::MetricFamily& loadRatio_;
  metrics::MetricFamily& taintChanges_;
  metrics::MetricFamily& loadUnknown_;
};

}  // namespace attune::controller
