// The simulated kubelet of every node, advanced one tick at a time: it starts the containers of
// pods bound to its node, runs them against their usage models (CPU demand under CFS limits and
// node contention, memory working set), OOM-kills at the memory limit, restarts with the
// KEP-4603 curve, evicts under node memory pressure, reports readiness, and actuates in-place
// resizes (resize_actuator.h). It keeps cAdvisor-style cumulative counters per container and
// per node, which the simulator's telemetry (sim/telemetry) reads after each tick.
//
// Deterministic: pods and nodes are visited in (namespace, name) / name order; all randomness
// is in the usage models. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/pod.h"
#include "core/error.h"
#include "core/time.h"
#include "core/units.h"
#include "sim/cluster/cluster_state.h"
#include "sim/kubelet/container_restarts.h"
#include "sim/kubelet/cpu_share.h"
#include "sim/kubelet/restart_backoff_config.h"
#include "sim/workload/usage_model.h"

namespace attune::sim {

// Builds the usage model of one container of a pod the kubelet is about to start (regular or
// sidecar container). Called once per container per pod (not again on restarts: models derive
// run-local state from `sinceStart`). An error fails the pod (phase Failed, reason
// UsageModelError, the error as message).
using UsageModelProvider =
    std::function<Result<UsageModelPtr>(const api::Pod& pod, const api::Container& container)>;

struct KubeletOptions {
  // KEP-4603 inputs of every node, unless `perNode` names the node.
  RestartBackoffConfig restartBackoff;
  std::map<std::string, RestartBackoffConfig, std::less<>> perNode;
  // When set, a running container whose throttle ratio over the last tick is above this value
  // is reported not Ready (a liveness/readiness probe that times out while starved of CPU).
  std::optional<double> notReadyAboveThrottleRatio;
  // How bursty CPU demand is within a tick, in [0, 1] (see cfsThrottle in cpu_share.h): 0 is
  // perfectly steady demand (throttled only above the limit), 1 is the most bursty.
  double cpuBurstiness = 0.5;
  // Hard eviction threshold memory.available (the kubelet default is 100Mi).
  Bytes evictionMemoryAvailable = Bytes(100LL << 20);
  // The CFS period (cpu.cfs_period_us); the kubelet default is 100 ms.
  Duration cfsPeriod = std::chrono::milliseconds(100);
  // How long a container is "starting" (not Ready) after each (re)start.
  Duration startupDuration = std::chrono::seconds(10);
};

// One container the kubelet runs, and its counters since the pod started on the node. Counters
// are monotonic for the pod's lifetime (they do not reset when the container restarts).
struct ContainerRuntime {
  std::string name;
  bool sidecar = false;
  UsageModelPtr model;
  std::optional<ContainerRestarts> restarts;  // set once the container first starts
  Time runningSince{};                        // start of the current run
  bool running = false;                       // false while waiting to restart, or completed
  bool completed = false;                     // exited successfully and will not restart

  // The last tick (CPU rates over the part of the tick the container ran).
  double cpuDemandCores = 0;  // what the model asked for
  double cpuUsageCores = 0;   // what it got after its CFS quota and node contention
  Bytes memoryWorkingSet{0};
  std::uint64_t periodsLastTick = 0;
  std::uint64_t throttledPeriodsLastTick = 0;
  double throttleRatioLastTick() const {
    return periodsLastTick == 0 ? 0.0
                                : static_cast<double>(throttledPeriodsLastTick) /
                                      static_cast<double>(periodsLastTick);
  }

  // Cumulative (cAdvisor / kubelet names in comments).
  double cpuUsageSecondsTotal = 0;             // container_cpu_usage_seconds_total
  std::uint64_t cfsPeriodsTotal = 0;           // container_cpu_cfs_periods_total
  std::uint64_t cfsThrottledPeriodsTotal = 0;  // container_cpu_cfs_throttled_periods_total
  double cfsThrottledSecondsTotal = 0;         // container_cpu_cfs_throttled_seconds_total
  double psiCpuWaitingSecondsTotal = 0;        // container_pressure_cpu_waiting_seconds_total
  std::uint64_t oomKillsTotal = 0;             // container_oom_events_total
  std::optional<Time> lastOomKillAt;
  Bytes memoryAtLastOomKill{0};

  // What the container runs with: status.containerStatuses[].resources once reported (the
  // resources a resize applied), else the spec. Zero means unset.
  double cpuRequestCores = 0;
  double cpuLimitCores = 0;  // 0: no CFS quota
  Bytes memoryRequest{0};
  Bytes memoryLimit{0};  // 0: no limit, never OOM-killed by its own limit

  // What the kubelet reports in the container's status.
  bool ready = false;
  int restartCount = 0;           // restarts that happened (crash loop and resize restarts)
  std::optional<Time> restartAt;  // while waiting to restart (reason CrashLoopBackOff)
  std::optional<api::ContainerStateTerminated> terminated;      // exited and will not restart
  std::optional<api::ContainerStateTerminated> lastTerminated;  // lastState.terminated
  double activeSecondsLastTick = 0;                             // how long it ran in the last tick
  bool waiting() const { return !running && restartAt.has_value(); }
};

// One pod the kubelet runs on a node.
struct PodRuntime {
  std::string namespace_;
  std::string name;
  std::string uid;
  std::string node;
  std::vector<ContainerRuntime> containers;  // regular containers, then sidecars, spec order

  std::string phase;               // Running, Succeeded or Failed, as last reported
  std::string reason;              // e.g. Evicted
  std::string message;             // why, with reason
  std::string restartPolicy;       // spec.restartPolicy (empty means Always)
  std::int32_t priority = 0;       // spec.priority (0 when unset)
  bool ready = false;              // condition Ready
  bool resizeOutstanding = false;  // spec resources differ from what was allocated or applied
  std::string resourceVersion;     // the version of the pod this runtime last read or wrote
  bool statusChanged = false;      // something visible changed since the last status write

  bool terminal() const { return phase == "Succeeded" || phase == "Failed"; }
  // Sums over the containers: working set of the last tick, and memory requests.
  Bytes memoryWorkingSet() const;
  Bytes memoryRequest() const;
};

// One node's state and counters.
struct NodeRuntime {
  std::string name;
  bool started = false;        // false when its kubelet config is invalid (KEP-4603)
  std::string startError;      // why it did not start
  double cpuDemandCores = 0;   // last tick: the containers' demand, averaged over the tick
  double cpuUsageCores = 0;    // last tick: what they got, averaged over the tick
  Bytes memoryWorkingSet{0};   // last tick: sum of working sets
  double load1 = 0;            // node_load1: exponentially damped runnable demand (1 minute)
  double cpuSecondsTotal = 0;  // node CPU busy seconds
  double psiCpuWaitingSecondsTotal = 0;  // node_pressure_cpu_waiting_seconds_total
  bool memoryPressure = false;           // condition MemoryPressure
  std::uint64_t evictionsTotal = 0;

  double cpuCapacityCores = 0;  // allocatable (else capacity) cpu shared by its pods; 0: unknown
  Bytes memoryCapacity{0};      // capacity (else allocatable) memory; 0: unknown
  Bytes memoryAvailable{0};     // last tick: memoryCapacity - memoryWorkingSet
  std::optional<BackoffPolicy> restartBackoff;  // the resolved KEP-4603 curve once started
};

class Kubelet {
 public:
  Kubelet(KubeletOptions options, UsageModelProvider models);

  // Advances every node of `state` by one tick (now - dt, now]. Requires dt > 0 and `now` later
  // than the previous tick's.
  //
  // Sync (only when the store's resourceVersion moved since the last tick): a node seen for the
  // first time resolves its restart curve (perNode, else restartBackoff); an invalid KEP-4603
  // config leaves it not started, with node condition Ready False (reason KubeletConfigInvalid)
  // and its pods never started; a started node gets MemoryPressure False (and Ready True when it
  // has no Ready condition). Pods that left the cluster or changed uid are forgotten. A pod bound
  // to a started node, not terminal and not deleting, is started at `now`: one ContainerRuntime
  // per regular and sidecar container (models from the provider; an error fails the pod with
  // reason UsageModelError), status Running with startTime, containers running since `now`
  // (a pod already Running is adopted with its reported start and restartCount).
  //
  // Then per node by name, its pods in (namespace, name) order:
  // - resizes: when a pod has a resize outstanding, actuateResizes for the node (with the last
  //   tick's working sets); afterwards each container's quota, weight and limits come from its
  //   applied resources (status resources, else spec), and a RestartContainer restart starts a
  //   new run at `now` (the model's sinceStart starts over);
  // - containers waiting whose restartAt <= now restart at restartAt (restartCount + 1). A
  //   container runs for the part of the tick after its (re)start; one (re)started at `now`
  //   runs from the next tick. A running container whose model is finished exits 0 (Completed);
  //   otherwise the model gives demand and working set at `now`;
  // - CPU: the CFS quota (cfsThrottle, options.cpuBurstiness) caps demand and advances periods,
  //   throttled periods and seconds; if the capped demands exceed the node's cpu (allocatable,
  //   else capacity) they are shared by weight (shareCpu, weights cpuShares(request)). Unmet
  //   demand (demand - usage) accrues PSI waiting seconds, per container and summed per node;
  //   load1 = load1 * e^(-dt/1m) + demand * (1 - e^(-dt/1m));
  // - memory: a working set above the memory limit OOM-kills the container at `now` (exit 137,
  //   OOMKilled); exits restart per restartPolicy (sidecars always; Always; OnFailure unless
  //   exit 0; Never not at all) after the ContainerRestarts delay, waiting in CrashLoopBackOff;
  //   a container that will not restart is terminated. When every regular container has
  //   terminated the pod is Succeeded (all exit 0) or Failed, and its sidecars stop;
  // - readiness: a container is ready when running, startupDuration past its start and, with
  //   notReadyAboveThrottleRatio, throttled at most that ratio in this tick; the pod is Ready
  //   when all its containers are;
  // - eviction: memory.available = memory capacity (else allocatable) - working sets; below
  //   evictionMemoryAvailable, MemoryPressure True and one pod is evicted per tick, ranked:
  //   working set above requests first, then lower priority, then larger excess; it is written
  //   Failed/Evicted, then ClusterState::evictPod deletes it. MemoryPressure False once relieved;
  // - a pod's status is written only when something visible changed (phase, a container's
  //   state, readiness, restarts).
  // Returns the first store error (none expected when `state` is only driven from one thread).
  Result<void> tick(ClusterState& state, Time now, Duration dt);

  // Runtime state, keyed by pod uid / node name, for telemetry and tests.
  const std::map<std::string, PodRuntime, std::less<>>& pods() const { return pods_; }
  const std::map<std::string, NodeRuntime, std::less<>>& nodes() const { return nodes_; }
  const KubeletOptions& options() const { return options_; }

 private:
  KubeletOptions options_;
  UsageModelProvider models_;
  std::map<std::string, PodRuntime, std::less<>> pods_;
  std::map<std::string, NodeRuntime, std::less<>> nodes_;

  // A node and the runtimes of the pods on it, in (namespace, name) order.
  struct NodeWork {
    NodeRuntime* runtime = nullptr;
    std::vector<PodRuntime*> pods;
  };

  // Re-reads nodes and pods when the store changed since the last tick: forgets pods that left,
  // refreshes changed ones, starts newly bound ones. Returns nothing; keeps work_ current.
  void sync(ClusterState& state, Time now);
  // Returns whether the set of nodes changed.
  bool syncNodes(ClusterState& state, Time now);
  // Starts (or adopts) `pod` on its node; nullptr when a usage model failed (the pod failed).
  PodRuntime* startPod(ClusterState& state, const api::Pod& pod, Time now);
  // Copies the stored pod's spec and applied resources into `rt`; notices resize restarts.
  void refresh(PodRuntime& rt, const api::Pod& pod, Time now);
  Result<void> actuate(ClusterState& state, NodeWork& work, Time now);
  void run(NodeWork& work, Time now, Duration dt);
  void exit(PodRuntime& pod, ContainerRuntime& c, Time now, std::string_view reason, int code);
  void finishPod(PodRuntime& pod, Time now);
  void stopAll(PodRuntime& pod, Time now);
  void updateReadiness(PodRuntime& pod, Time now);
  Result<void> evict(ClusterState& state, NodeWork& work, Time now);
  Result<void> writeNode(ClusterState& state, NodeRuntime& node, Time now);
  Result<void> writePod(ClusterState& state, PodRuntime& pod, Time now);
  void forget(PodRuntime* pod);

  std::vector<NodeWork> work_;      // by node name
  std::vector<PodRuntime*> order_;  // every pod runtime, by (namespace, name)
  std::string syncedVersion_;       // the store version the runtimes were last synced with
  bool resyncNeeded_ = false;       // this tick removed pods from the store
  std::vector<PodRuntime*> orderScratch_;
  // Per-tick scratch, kept to avoid allocation.
  std::vector<CpuClaim> claims_;
  std::vector<ContainerRuntime*> claimed_;
  std::vector<std::size_t> shareScratch_;
};

}  // namespace attune::sim
