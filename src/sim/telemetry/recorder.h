// The simulator's metric history: after every kubelet tick, Recorder::record copies the kubelet's
// cAdvisor-style counters of every running container and the node figures into compact
// per-series sample vectors, and tracks what kube-state-metrics would report over time (restart
// counts, last termination reasons, requests and limits, owners). SimMetricsSource answers
// MetricsSource queries from it; writeOpenMetrics dumps it for `promtool` backfill.
//
// Storage: one series per (pod uid, container) and per node. A container sample is 24 bytes
// (counters as increases since the series' previous sample, the working set as a float); the
// time of a sample is the index of its tick. Pod, namespace, container and node names are
// interned once. Status and resources are change logs (one entry per change, never pruned);
// samples and OOM events older than the retention are dropped in batches.
//
// Deterministic: the same calls in the same order give the same history. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/quantity.h"
#include "core/time.h"
#include "core/units.h"
#include "sim/cluster/cluster_state.h"
#include "sim/kubelet/kubelet.h"

namespace attune::sim {

struct RecorderOptions {
  // Samples older than this (relative to the latest record) may be dropped.
  Duration retention = std::chrono::hours(24 * 8);
};

// Index into the recorder's string table.
using StringId = std::uint32_t;
// Ticks are numbered from 0 in record order; a number is never reused.
using TickId = std::uint32_t;

// One sample of one running container. Counters are the increase since the series' previous
// sample (0 for the series' first sample); see RecordedContainer for the absolute values.
struct ContainerSample {
  TickId tick = 0;
  float cpuSeconds = 0;         // container_cpu_usage_seconds_total
  float psiWaitingSeconds = 0;  // container_pressure_cpu_waiting_seconds_total
  std::uint32_t periods = 0;    // container_cpu_cfs_periods_total
  std::uint32_t throttled = 0;  // container_cpu_cfs_throttled_periods_total
  float memoryBytes = 0;        // container_memory_working_set_bytes (absolute)
};
static_assert(sizeof(ContainerSample) == 24);

// The value of a cumulative counter at each sample: base + the increases up to that sample.
struct CounterBases {
  double cpuSeconds = 0;
  double psiWaitingSeconds = 0;
  std::uint64_t periods = 0;
  std::uint64_t throttled = 0;
};

// A container's status as kube-state-metrics reports it, from `tick` on.
struct StatusChange {
  TickId tick = 0;
  std::int32_t restarts = 0;
  std::optional<StringId> lastTerminatedReason;  // lastState.terminated.reason, when set
};

// A container's spec requests and limits from `tick` on; unset amounts are nullopt.
struct ResourcesChange {
  TickId tick = 0;
  std::optional<Millicores> cpuRequest;
  std::optional<Millicores> cpuLimit;
  std::optional<Bytes> memoryRequest;
  std::optional<Bytes> memoryLimit;
};

struct OomEvent {
  Time at;
  Bytes memoryAtKill;
};

// An owner reference; kind and name "" when the object has none.
struct OwnerRef {
  StringId kind = 0;
  StringId name = 0;
  bool controller = false;
};

struct RecordedPod {
  std::string uid;
  StringId ns = 0;
  StringId name = 0;
  StringId node = 0;
  TickId firstTick = 0;  // the first and last ticks the kubelet ran the pod
  TickId lastTick = 0;
  // The pod's controller owner (else its first owner) when the pod was first seen; nullopt while
  // the pod object was not found in the state.
  std::optional<OwnerRef> owner;
  std::vector<std::uint32_t> containers;  // indices into containers()
  std::string readVersion;                // resourceVersion of the pod object last read
};

struct RecordedContainer {
  // Written every tick (kept together).
  std::vector<ContainerSample> samples;
  CounterBases last;  // the counters at the last sample, to compute increases
  bool seenCounters = false;
  bool sidecar = false;
  StringId name = 0;
  std::uint32_t pod = 0;  // index into pods()
  std::optional<Time> lastOomAt;

  CounterBases bases;  // absolute counters at samples[i] = bases + increases of samples[0..i]
  std::vector<StatusChange> status;
  std::vector<ResourcesChange> resources;
  std::vector<OomEvent> ooms;
  // The spec's cpu/memory requests/limits last seen, to detect changes.
  std::optional<std::tuple<std::optional<Quantity>, std::optional<Quantity>,
                           std::optional<Quantity>, std::optional<Quantity>>>
      lastSpecResources;
};

struct NodeSample {
  TickId tick = 0;
  float load1 = 0;        // node_load1
  float cpuSeconds = 0;   // increase of node_cpu_usage_seconds_total since the previous sample
  float memoryBytes = 0;  // node_memory_working_set_bytes
};

struct RecordedNode {
  StringId name = 0;
  double cpuSecondsBase = 0;
  std::vector<NodeSample> samples;
  bool seen = false;
  double lastCpuSeconds = 0;
};

// One service workload's requests received so far (http_requests_total).
struct WorkloadRequests {
  std::string namespace_;
  std::string kindLabel;  // "deployment", "statefulset", ...
  std::string name;
  double total = 0;
};

struct RequestSample {
  TickId tick = 0;
  double total = 0;
};

// The owner of a ReplicaSet or Job as seen when one of its pods was first seen, keyed by
// (namespace, "ReplicaSet" | "Job", name).
using ParentKey = std::tuple<StringId, StringId, StringId>;

class Recorder {
 public:
  explicit Recorder(RecorderOptions options = {});

  // Records one tick at `now`, which must be later than the previous record (asserted). `pods`
  // and `nodes` are the kubelet's runtime state after its tick (Kubelet::pods(), ::nodes()).
  // For every container of every pod in `pods`: a sample when it is running; an OOM event when
  // lastOomKillAt changed; its status and spec resources from the pod in `state` (same uid) when
  // they changed. One sample per node. Pods that left `pods` keep their history.
  // A pod object is read from `state` when the pod is new, and then again only when the state
  // was written since the previous record and PodRuntime::resourceVersion is empty or differs
  // from the version last read (the kubelet keeps it current), so that unchanged pods cost no
  // lookup. `state` must be the same on every call.
  void record(Time now, const ClusterState& state,
              const std::map<std::string, PodRuntime, std::less<>>& pods,
              const std::map<std::string, NodeRuntime, std::less<>>& nodes);

  // Records each workload's request counter at the latest recorded tick (call after record()).
  // Request samples are kept for the whole run (one per service workload and tick).
  void recordRequests(const std::vector<WorkloadRequests>& requests);
  // Request samples by their label set (series::requestLabels).
  const std::map<std::string, std::vector<RequestSample>, std::less<>>& requests() const {
    return requests_;
  }
  // The workload each request series is of (its `total` is unused), by the same label sets.
  const std::map<std::string, WorkloadRequests, std::less<>>& requestWorkloads() const {
    return requestWorkloads_;
  }

  const RecorderOptions& options() const { return options_; }
  std::string_view str(StringId id) const { return strings_[id]; }
  const std::vector<RecordedPod>& pods() const { return pods_; }
  const std::vector<RecordedContainer>& containers() const { return containers_; }
  const std::vector<RecordedNode>& nodes() const { return nodes_; }
  const std::map<ParentKey, OwnerRef>& parents() const { return parents_; }

  // Retained ticks are [firstTick(), endTick()); tickTime requires a retained tick.
  TickId firstTick() const { return firstTick_; }
  TickId endTick() const { return firstTick_ + static_cast<TickId>(ticks_.size()); }
  Time tickTime(TickId tick) const { return ticks_[tick - firstTick_]; }
  // The first retained tick at or after `t` (endTick() when none).
  TickId tickAtOrAfter(Time t) const;
  // The first retained tick after `t` (endTick() when none).
  TickId tickAfter(Time t) const;

  // Total container samples currently held (for benchmarks and tests).
  std::size_t sampleCount() const;

 private:
  StringId intern(std::string_view s);
  std::uint32_t addPod(const std::string& uid, const PodRuntime& runtime, TickId tick);
  // The index in containers_ of container `runtime` at `position` in its pod (added if new).
  std::uint32_t containerOf(std::uint32_t podIndex, std::size_t position,
                            const ContainerRuntime& runtime);
  void appendSample(RecordedContainer& c, TickId tick, const ContainerRuntime& runtime);
  OwnerRef ownerRef(const api::OwnerReference* ref);  // ref may be nullptr
  void resolveOwner(std::uint32_t podIndex, const api::Pod& object, const ClusterState& state);
  void observeStatus(RecordedContainer& c, TickId tick, const api::Pod& object,
                     std::string_view name);
  void recordNodes(TickId tick, const std::map<std::string, NodeRuntime, std::less<>>& nodes);
  void prune(Time now);

  RecorderOptions options_;
  std::vector<std::string> strings_;
  std::map<std::string, StringId, std::less<>> stringIds_;
  std::vector<RecordedPod> pods_;
  std::vector<RecordedContainer> containers_;
  std::vector<RecordedNode> nodes_;
  std::map<ParentKey, OwnerRef> parents_;
  std::map<std::string, std::uint32_t, std::less<>> livePods_;   // uid → pods_ index
  std::map<std::string, std::uint32_t, std::less<>> nodeIndex_;  // name → nodes_ index
  std::string lastVersion_;  // the pods store's resourceVersion at the previous record
  std::vector<Time> ticks_;
  TickId firstTick_ = 0;
  std::map<std::string, std::vector<RequestSample>, std::less<>> requests_;
  std::map<std::string, WorkloadRequests, std::less<>> requestWorkloads_;
};

}  // namespace attune::sim
