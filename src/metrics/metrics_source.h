// MetricsSource: everything the usage statistics and the safety checks read about containers,
// nodes and workloads, whatever the backend (Prometheus, trace files, the simulator).
//
// Contract for every implementation:
// - Queries are by scope (one namespace, several, or the whole cluster), never per pod: a
//   backend answers one scope with as few requests as it can (Prometheus: one query per
//   namespace or per cluster per metric, aggregated by namespace, pod and container).
// - Values are in base units: CPU in cores (a rate), memory in bytes, ratios in [0, 1].
// - Missing data is absent, never zero: a container with no samples has no series, and a
//   sample that is NaN or infinite is dropped by the backend. A failure of the backend is an
//   Error (kUnavailable for an unreachable or failing peer), never an empty answer.
// - Container exclusion: a backend never asks its store for the series of a container the
//   scope excludes (Scope::excludedContainers) and never returns one. Per-pod answers
//   (podOwners) are not affected: a pod whose containers are all excluded still has an owner.
// - Implementations are not required to be thread-safe; one caller drives one source.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/resource_values.h"
#include "api/k8s/workload_ref.h"
#include "core/error.h"
#include "core/time.h"
#include "core/units.h"

namespace attune::metrics {

// One container of one pod.
struct ContainerId {
  std::string ns;
  std::string pod;
  std::string container;
  auto operator<=>(const ContainerId&) const = default;
};

// Which namespaces a query covers, and which containers it leaves out.
struct Scope {
  // Empty = every namespace (one cluster-wide query).
  std::vector<std::string> namespaces;
  // Container names never queried or returned, in any namespace of the scope (the policy's
  // spec.excludedContainers plus the known sidecars). Order and duplicates do not matter.
  std::vector<std::string> excludedContainers;

  bool allNamespaces() const { return namespaces.empty(); }
  // True if the scope covers namespace `ns`.
  bool contains(std::string_view ns) const;
  // True if containers named `container` are excluded.
  bool excludes(std::string_view container) const;
  // True if the scope covers `id`: its namespace is in scope and its container not excluded.
  bool includes(const ContainerId& id) const;
};

// A time range sampled every `step`, inclusive of both ends, as Prometheus query_range.
struct Range {
  Time start;
  Time end;
  Duration step = std::chrono::minutes(5);
};

// "ns/pod/container", for messages and table keys.
std::string toString(const ContainerId& id);

struct Point {
  Time time;
  double value = 0;
};

// Samples of one container, in time order.
struct ContainerSeries {
  ContainerId id;
  std::vector<Point> points;
};

// A container's last termination for OOM, with the memory working set just before it.
struct OomKill {
  ContainerId id;
  Time time;
  Bytes memoryAtKill;
};

struct RestartCount {
  ContainerId id;
  std::int64_t restarts = 0;
};

// The requests and limits of a container at some time (unset = not set on the container).
struct ContainerResourceValues : api::ResourceValues {
  ContainerId id;
};

struct PodOwner {
  std::string ns;
  std::string pod;
  api::WorkloadRef workload;
};

struct NodeSeries {
  std::string node;
  std::vector<Point> points;
};

struct NodeCapacity {
  std::string node;
  Millicores cpu;
  Bytes memory;
};

class MetricsSource {
 public:
  virtual ~MetricsSource() = default;

  // CPU usage in cores per container (rate of container_cpu_usage_seconds_total).
  virtual Result<std::vector<ContainerSeries>> cpuUsage(const Scope& scope, const Range& range) = 0;
  // PSI CPU waiting rate per container (seconds waiting per second). Optional: a backend
  // without PSI returns an empty vector, which callers treat as "no adjustment".
  virtual Result<std::vector<ContainerSeries>> cpuPressureWaiting(const Scope& scope,
                                                                  const Range& range) = 0;
  // Memory working set in bytes per container.
  virtual Result<std::vector<ContainerSeries>> memoryWorkingSet(const Scope& scope,
                                                                const Range& range) = 0;
  // CFS throttle ratio (throttled periods / periods over the range step) per container.
  virtual Result<std::vector<ContainerSeries>> cpuThrottleRatio(const Scope& scope,
                                                                const Range& range) = 0;
  // OOM kills whose time falls in the range, with the memory at the time.
  virtual Result<std::vector<OomKill>> oomKills(const Scope& scope, const Range& range) = 0;
  // Container restart counts at `at`.
  virtual Result<std::vector<RestartCount>> restartCounts(const Scope& scope, Time at) = 0;
  // Current requests and limits per container at `at`.
  virtual Result<std::vector<ContainerResourceValues>> resources(const Scope& scope, Time at) = 0;
  // The workload owning each pod at `at` (Pod → ReplicaSet → Deployment, Job → CronJob, ...).
  virtual Result<std::vector<PodOwner>> podOwners(const Scope& scope, Time at) = 0;
  // node_load1 per node over the range.
  virtual Result<std::vector<NodeSeries>> nodeLoad(const Range& range) = 0;
  // Node CPU and memory capacity at `at`.
  virtual Result<std::vector<NodeCapacity>> nodeCapacity(Time at) = 0;

  // A second source reading the same backend with the same options, to be read on another
  // thread while this one is read on its own (each source is still driven by one thread at a
  // time). nullptr (the default): the backend is read through this source only.
  virtual std::unique_ptr<MetricsSource> parallelCopy() const { return nullptr; }
};
using MetricsSourcePtr = std::unique_ptr<MetricsSource>;

}  // namespace attune::metrics
