// The simulation report: what `attune simulate` measured for every strategy it ran against the
// simulated cluster — totals per run and, per workload, usage and requests over time with the
// safety events. A plain value filled by the simulate command and printed by the renderers
// declared below; pure (no I/O, no clock). The layouts are described in docs/simulate-report.md
// and are stable: the same report always renders to the same bytes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/time.h"

namespace attune::report {

// One sample of a workload's aggregate over its pods at one time.
struct UsagePoint {
  Time time;
  double usage = 0;
  double request = 0;
  std::optional<double> limit;  // unset when no pod of the workload has a limit
};

// A safety-relevant event on a workload's timeline.
struct TimelineEvent {
  Time time;
  std::string kind;  // "Resized", "Reverted", "ResizeSkipped", "ResizeFailed", "OOMKilled",
                     // "Evicted", "Restarted"
  std::string pod;
  std::string container;
  std::string detail;  // e.g. "cpu 500m→200m", "oomkill", reason of a skip
};

struct WorkloadTimeline {
  std::string ns, kind, name;
  std::vector<UsagePoint> cpu;                     // cores, in time order
  std::vector<UsagePoint> memory;                  // bytes, in time order
  double cpuSavingsPct = 0, memorySavingsPct = 0;  // positive = less requested
  // Its requests integrated over the run: as created / as the strategy set them.
  double cpuRequestCoreHoursBefore = 0, cpuRequestCoreHoursAfter = 0;
  double memoryRequestGibHoursBefore = 0, memoryRequestGibHoursAfter = 0;
  std::vector<TimelineEvent> events;
};

struct CpuSummary {
  double requestCoreHoursBefore = 0, requestCoreHoursAfter = 0, usedCoreHours = 0, savingsPct = 0,
         throttledPct = 0, psiWaitingCoreSeconds = 0;
};

struct MemorySummary {
  double requestGibHoursBefore = 0, requestGibHoursAfter = 0, usedGibHours = 0, savingsPct = 0;
  std::int64_t oomKills = 0;
};

struct ResizeSummary {
  std::int64_t applied = 0, failed = 0;
  std::map<std::string, std::int64_t> skippedByReason, revertedByReason;
};

// One HPA's replica count (its target's spec.replicas, each tick) over the run.
struct HpaReplicaSummary {
  std::string ns, name;
  std::string target;  // "ns/Kind/name"
  std::int32_t min = 0, max = 0, final = 0;
  double mean = 0;  // time-weighted
  std::int32_t finalMinReplicas = 0;
};

struct WorkloadPodHours {
  std::string workload;  // "ns/Kind/name"
  double podHours = 0;
};

// The recovery after one rate change of a service workload (docs/simulate-report.md).
struct RateChangeRecovery {
  std::string workload;                        // "ns/Kind/name"
  double fromSeconds = 0;                      // the change, in seconds after the start
  double toSeconds = 0;                        //
  std::int32_t baselineReplicas = 0;           // ready replicas just before the change
  std::int32_t minReplicas = 0;                // fewest ready from the change until recovered
  std::optional<double> timeToRecoverSeconds;  // unset: not recovered
  double cpuShortCoreSeconds = 0;              // CPU short during the recovery
};

// Replicas, pod-hours and the latency proxy ("CPU short": CPU-seconds demanded and not
// received). Filled when the scenario has HPAs or service rate changes, or the HPA guard was
// asked for.
struct ScalingSummary {
  double podHours = 0;
  double cpuShortCoreSeconds = 0;
  std::vector<WorkloadPodHours> workloads;  // every workload that had pods, by name
  std::vector<HpaReplicaSummary> hpas;      // by namespace and name
  std::vector<RateChangeRecovery> recoveries;
};

// What continuous node optimisation cost and broke in a run (docs/node-optimisation.md). Filled
// when it was asked about (`--node-optimisation`), on or off, so the two runs compare.
struct NodeOptimisationSummary {
  // Σ nodes × time. The simulated cluster has a fixed node count, so this is the same for every
  // run of a scenario; the requests (CpuSummary, MemorySummary) are what optimisation changes.
  double nodeHours = 0;
  // Σ over containers and time of max(0, CPU used − CPU request): CPU a container took beyond
  // what it reserved, i.e. from its node's idle CPU.
  double cpuAboveRequestCoreHours = 0;
  // Pods the node optimiser evicted (causes NodeMemoryShortage and NodeCPUShortage); the run's
  // `evictions` counts them among every other eviction.
  std::int64_t evictions = 0;
  // Pods the in-process pod admission webhook gave their workload's sizing at creation
  // ("sized"), and pods it only marked because they already asked for it ("unchanged").
  std::int64_t admissionSized = 0, admissionUnchanged = 0;
};

// The nodes of a run: Σ nodes × time, its cost at the pools' pricePerHour, the fewest, most and
// final node count, and what the cluster autoscaler added and removed (docs/scenarios.md).
struct NodeSummary {
  bool autoscaled = false;  // the scenario ran the cluster autoscaler
  double nodeHours = 0, cost = 0;
  std::int64_t min = 0, max = 0, final = 0, added = 0, removed = 0;
};

// Risk measured per container-sample, and what the run cost; present in every run
// (docs/simulate-report.md). A sample is one regular (not sidecar) container of a running pod
// that ran during one kubelet tick.
struct RiskSummary {
  std::int64_t samples = 0;
  // CPU: the share of samples using more than their request; CPU demanded and not received
  // (CFS throttling at the limit plus node contention); CPU used beyond the requests.
  double cpuAboveRequestPct = 0, cpuShortCoreSeconds = 0, cpuAboveRequestCoreHours = 0;
  // Memory: the share of samples whose working set was above their request, and at or above
  // their limit (the kubelet OOM-kills above it).
  double memoryAboveRequestPct = 0, memoryAtLimitPct = 0;
  // OOM kills, evictions by the kubelet under node memory pressure, every eviction.
  std::int64_t oomKills = 0, kubeletEvictions = 0, evictions = 0;
  double psiWaitingCoreSeconds = 0;
  // Pods pending at a tick's end × the tick, and the most pending at once.
  double pendingPodHours = 0;
  std::int64_t pendingPodsMax = 0;
  // Cost: Σ nodes × time, at the pools' prices, and the requests the scheduler reserved.
  double nodeHours = 0, nodeCost = 0, cpuRequestCoreHours = 0, memoryRequestGibHours = 0;
};

// The whole cluster at one time: its nodes and their allocatable, and the requests and usage of
// every pod the kubelets run.
struct ClusterPoint {
  Time time;
  std::int64_t nodes = 0;
  double cpuAllocatable = 0, cpuRequest = 0, cpuUsage = 0;           // cores
  double memoryAllocatable = 0, memoryRequest = 0, memoryUsage = 0;  // bytes
};

// One strategy (and mode) run over the whole scenario.
struct SimulationRun {
  std::string strategy, mode;
  // "on" or "off" when the HPA guard was asked about (`--hpa-guard`); empty otherwise.
  std::string hpaGuard;
  // "on" or "off" when node optimisation was asked about (`--node-optimisation`); empty
  // otherwise.
  std::string nodeOptimisation;
  double durationSeconds = 0;
  std::int64_t pods = 0, containers = 0;
  CpuSummary cpu;
  MemorySummary memory;
  ResizeSummary resizes;
  std::int64_t restarts = 0, evictions = 0;
  // Whether the pod admission webhook ran in process (the strategies whose tools size new pods
  // at admission, or node optimisation), and the pods it gave their workload's sizing.
  bool admissionWebhook = false;
  std::int64_t podsSizedAtAdmission = 0;
  NodeSummary nodes;
  RiskSummary risk;
  std::vector<WorkloadTimeline> workloads;
  std::vector<ClusterPoint> cluster;  // at the timeline step, in time order
  std::optional<ScalingSummary> scaling;
  std::optional<NodeOptimisationSummary> nodeOptimisationSummary;
};

struct SimulationReport {
  std::string scenario;
  std::uint64_t seed = 0;
  Time start;
  Duration duration{};
  std::vector<SimulationRun> runs;  // in the order the strategies were given
};

// Each renderer returns the whole output, ending with a newline; deterministic.
//
// Text: a header, one summary block per run and, with more than one run, a side-by-side
// comparison (rows = metrics, columns = runs). Runs with a scaling summary add its lines to their
// block and its rows to the comparison. The risk rows of a run other than `none` carry their
// change against the `none` run in brackets when one is in the report.
std::string renderSimulationTable(const SimulationReport& r);
// JSON document: scenario, seed, start (RFC 3339), duration_s and per run the totals and, per
// workload, savings and event counts (not the time series), "risk" in every run; a run's
// "hpa_guard", "scaling" and
// "node_optimisation" (its summary, "enabled" for on or off) only when set. Keys in a fixed order;
// amounts rounded to fixed decimals; non-finite numbers are null.
std::string renderSimulationJson(const SimulationReport& r);
// One self-contained HTML page (no external resources; works offline): header, comparison
// table, and per run and workload inline SVG charts of CPU and memory usage against requests
// and limits with every timeline event marked, then the list of those events.
std::string renderSimulationHtml(const SimulationReport& r);

}  // namespace attune::report
