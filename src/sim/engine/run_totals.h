// What a simulation run did, in totals for summaries (`attune sim`): resources requested against
// used, OOM kills, restarts, evictions, CPU throttling, and the pods' end state; and the
// arithmetic of replica counts over time and of the recovery after a service's rate change
// (`attune backtest`'s scaling summary, docs/simulate-report.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/time.h"
#include "sim/cluster/cluster_state.h"
#include "sim/engine/risk_totals.h"
#include "sim/kubelet/kubelet.h"

namespace attune::sim {

struct RunTotals {
  std::int64_t ticks = 0;
  Duration simulated{0};
  // (container, tick) pairs the kubelet ran: containers of its pods, running or not, per tick.
  std::int64_t containerSteps = 0;
  // Integrals over the run. Requested: the requests of pods bound to a node and not finished
  // (phase neither Succeeded nor Failed), as the scheduler reserves them. Used and demand: what
  // the nodes' containers used and asked for, per the kubelet.
  double cpuRequestedCoreSeconds = 0;
  double cpuUsedCoreSeconds = 0;
  double cpuDemandCoreSeconds = 0;
  double memoryRequestedByteSeconds = 0;
  double memoryUsedByteSeconds = 0;
  // CFS periods of CPU-limited containers, and those in which the container was throttled.
  std::uint64_t cfsPeriods = 0;
  std::uint64_t cfsThrottledPeriods = 0;
  std::uint64_t oomKills = 0;
  // Container exits the kubelet restarts (after its backoff), counted when they happen.
  std::uint64_t restarts = 0;
  // Filled by RunAccounting::finish(): node counters and the state at the end.
  double psiWaitingSeconds = 0;        // node_pressure_cpu_waiting_seconds_total, summed
  std::uint64_t evictions = 0;         // every pod evicted, by the kubelet or through the API
  std::uint64_t kubeletEvictions = 0;  // of which by the kubelet under node memory pressure
  std::int64_t nodes = 0;
  std::int64_t pods = 0;
  std::int64_t containers = 0;
  std::int64_t podsRunning = 0;
  std::int64_t podsPending = 0;        // phase Pending or unset
  std::int64_t podsUnschedulable = 0;  // PodScheduled False, reason Unschedulable
  std::int64_t podsSucceeded = 0;
  std::int64_t podsFailed = 0;
  // Nodes over the run: Σ nodes × tick, Σ nodes × tick × their pool's pricePerHour, the fewest
  // and the most at a tick's end; and what the cluster autoscaler did (zero without it).
  double nodeSeconds = 0;
  double nodeCost = 0;
  std::int64_t nodesMin = 0;
  std::int64_t nodesMax = 0;
  std::int64_t nodesAdded = 0;
  std::int64_t nodesRemoved = 0;
  std::int64_t autoscalerEvictions = 0;
  // Risk per container-sample and pending pods, every tick (risk_totals.h).
  RiskTotals risk;

  double nodeHours() const { return nodeSeconds / 3600; }

  double throttledPercent() const {
    return cfsPeriods == 0
               ? 0.0
               : 100.0 * static_cast<double>(cfsThrottledPeriods) / static_cast<double>(cfsPeriods);
  }
};

// Accumulates RunTotals after each tick. Reads the pod watch log from where it last stopped, so
// its cost per tick is one pass over the kubelet's containers plus the pod writes since the
// previous tick.
// Not thread-safe.
class RunAccounting {
 public:
  // `pricePerHourByPool`: what a node of each pool (label sim.attune.io/node-pool) costs per
  // hour; nodes of other pools cost nothing.
  explicit RunAccounting(std::map<std::string, double, std::less<>> pricePerHourByPool = {})
      : prices_(std::move(pricePerHourByPool)) {}
  // Adds tick (now - dt, now], after the kubelet's tick and before the next one.
  void record(const ClusterState& state, const Kubelet& kubelet, Time now, Duration dt);
  // Fills the end-of-run fields from the state and the kubelet now (node counters include the
  // nodes removed during the run); may be called repeatedly.
  void finish(const ClusterState& state, const Kubelet& kubelet);
  const RunTotals& totals() const { return totals_; }

 private:
  struct Charge {
    double cpuCores = 0;
    double memoryBytes = 0;
  };
  void applyPodEvents(const ClusterState& state);

  // Keeps the PSI and eviction counters of nodes the kubelet no longer runs.
  void retireNodes(const Kubelet& kubelet);

  std::map<std::string, double, std::less<>> prices_;
  RunTotals totals_;
  std::string podResourceVersion_;
  // The last counters seen per node, and those of nodes gone since.
  std::map<std::string, std::pair<double, std::uint64_t>, std::less<>> nodeCounters_;
  double retiredPsiSeconds_ = 0;
  std::uint64_t retiredEvictions_ = 0;
  std::map<std::string, Charge, std::less<>> charges_;  // counted pods by uid
  std::set<std::string, std::less<>> pending_;          // uids of pods pending now
  Charge requested_;                                    // sum of charges_
};

// A replica count over time: the fewest, the most, the last, and the time-weighted mean.
struct ReplicaStats {
  std::int32_t min = 0, max = 0, final = 0;
  double mean = 0;
};

// Accumulates ReplicaStats from one count per tick. Not thread-safe.
class ReplicaTrack {
 public:
  // `replicas` held for `dt` (the tick that just ended).
  void add(std::int32_t replicas, Duration dt);
  // All zero before the first add.
  ReplicaStats stats() const;

 private:
  ReplicaStats stats_;
  double weighted_ = 0;  // replica-seconds
  double seconds_ = 0;
  bool any_ = false;
};

// One tick of a workload: its ready replicas at `at` (the tick's end) and the CPU its containers
// asked for and did not get during (at - tick, at] ("CPU short": demand minus usage, i.e. CFS
// throttling at the limit and node contention), in core-seconds.
struct ScalingSample {
  Time at;
  std::int32_t readyReplicas = 0;
  double cpuShortCoreSeconds = 0;
};

// What happened around one rate change [from, to) of a service workload.
struct Recovery {
  // Ready replicas at the last sample at or before `from` (the first sample when none is).
  std::int32_t baselineReplicas = 0;
  // The fewest ready replicas from `from` until recovered (or the last sample).
  std::int32_t minReplicas = 0;
  // Time to recover: from `to` until the first sample at or after `to` whose ready replicas are
  // back to the baseline (0 when they already are at `to`); unset: not recovered by the last
  // sample.
  std::optional<Duration> timeToRecover;
  // CPU short of the samples in (to, recovered] (to the last sample when not recovered).
  double cpuShortCoreSeconds = 0;
};

// The recovery after the change [from, to) from a workload's samples (oldest first). With no
// samples, everything is zero and timeToRecover is unset.
Recovery recoveryAfter(const std::vector<ScalingSample>& samples, Time from, Time to);

}  // namespace attune::sim
