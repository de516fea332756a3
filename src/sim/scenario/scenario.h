// A simulation scenario as written in a scenario file (docs/scenarios.md): the cluster's nodes,
// namespaces, workloads with their usage models or traces, namespace policy objects,
// AttunePolicies, kubelet options, and the run's seed, start, duration and tick.
//
// Plain values: decodeScenario() (scenario_codec.h) fills and checks them; Simulation::create()
// (sim/engine/simulation.h) turns them into a cluster. Every field has its default here.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "core/time.h"
#include "core/units.h"
#include "sim/control/cluster_autoscaler.h"
#include "sim/kubelet/kubelet.h"
#include "sim/workload/usage_model_factory.h"

namespace attune::metrics {
class TraceSource;
}  // namespace attune::metrics

namespace attune::sim {

inline constexpr std::string_view kScenarioApiVersion = "sim.attune.io/v1alpha1";
inline constexpr std::string_view kScenarioKind = "Scenario";

// A group of identical nodes named "<name>-<i>", i = 0..count-1.
struct NodePool {
  std::string name;
  std::int32_t count = 1;
  Millicores cpu{0};  // capacity
  Bytes memory{0};    // capacity
  std::int64_t pods = 110;
  // Allocatable; each unset one equals the capacity.
  std::optional<Millicores> allocatableCpu;
  std::optional<Bytes> allocatableMemory;
  std::optional<std::int64_t> allocatablePods;
  api::StringMap labels;  // added to kubernetes.io/hostname and sim.attune.io/node-pool
  std::vector<api::Taint> taints;
  // The pool's own KEP-4603 kubelet inputs; unset: the scenario's kubelet.restartBackoff.
  std::optional<RestartBackoffConfig> restartBackoff;
  // The pool as a node group of the cluster autoscaler (spec.clusterAutoscaler): its size
  // bounds (unset: count) and what one node costs per hour (also counted with a fixed count).
  std::optional<std::int32_t> minSize;
  std::optional<std::int32_t> maxSize;
  double pricePerHour = 0;
};

// One container of a workload's pod template.
struct ContainerScenario {
  std::string name;
  std::string image = "registry.sim.attune.io/app:1";
  api::ResourceRequirements resources;
  std::vector<api::ContainerResizePolicy> resizePolicy;
  UsageModelSpec model;
};

// A workload written in the file. `kind` is one of Deployment, StatefulSet, DaemonSet, Job,
// CronJob (never ReplicaSet).
struct WorkloadScenario {
  api::WorkloadKind kind = api::WorkloadKind::kDeployment;
  std::string namespace_ = "default";
  std::string name;
  std::optional<std::int32_t> replicas;  // Deployment, StatefulSet; default 1
  api::StringMap labels;          // on the workload and its pods, beside app.kubernetes.io/name
  api::StringMap annotations;     // on the workload
  api::StringMap podAnnotations;  // on its pods
  std::optional<std::int32_t> priority;
  std::string priorityClassName;
  api::StringMap nodeSelector;
  std::vector<api::Toleration> tolerations;
  // Pod restartPolicy; empty: Always, or OnFailure for Job and CronJob.
  std::string restartPolicy;
  std::vector<ContainerScenario> containers;
  // Job and CronJob (the CronJob's job template).
  std::optional<std::int32_t> completions;
  std::optional<std::int32_t> parallelism;
  std::optional<std::int32_t> backoffLimit;
  // CronJob only.
  std::string schedule;                     // five-field cron expression or @hourly, @daily...
  std::string concurrencyPolicy = "Allow";  // Allow, Forbid, Replace
  bool suspend = false;
  std::string fieldPath;  // where it was written ("spec.workloads[3]"), for messages
};

// A `trace:` entry of spec.workloads: one single-replica Deployment per pod of the trace, each
// container replaying its series and requesting what the trace first provisioned it with.
struct TraceWorkloads {
  std::filesystem::path path;         // file or directory; relative paths already resolved
  std::string format;                 // "" (recognised per file), "bitbrains" or "attune-csv"
  std::string namespace_;             // "" keeps the trace's namespaces (Bitbrains: "bitbrains")
  std::optional<std::int32_t> limit;  // at most this many pods, in trace order
  std::string fieldPath;              // where it was written ("spec.workloads[5].trace")
  // The trace in memory, once loaded (loadTraces() in sim/engine/scenario_builder.h): every
  // simulation built from a copy of the scenario shares it instead of reading the files again.
  std::shared_ptr<const metrics::TraceSource> loaded;
};

// A whole scenario. LimitRanges, ResourceQuotas, HPAs and PodDisruptionBudgets are kept as the
// API objects they become.
struct Scenario {
  std::string name;
  api::StringMap labels;
  api::StringMap annotations;

  std::uint64_t seed = 1;
  Time start = Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5));
  Duration duration = std::chrono::hours(24);
  Duration tick = std::chrono::seconds(60);

  // The Kubernetes version of the simulated API server and kubelets (spec.kubernetesVersion,
  // e.g. "v1.33.2"): /version answers it, and before v1.34 the resize subresource refuses a
  // memory limit decrease without a RestartContainer resize policy. Unset: v1.34.0.
  std::optional<api::ServerVersion> kubernetesVersion;
  // Options of every node's kubelet; perNode is filled from the pools' restartBackoff.
  KubeletOptions kubelet;
  std::vector<NodePool> nodePools;
  std::vector<std::string> namespaces;  // plus every namespace an object is in
  std::vector<WorkloadScenario> workloads;
  std::vector<TraceWorkloads> traces;
  std::vector<api::LimitRange> limitRanges;
  std::vector<api::ResourceQuota> resourceQuotas;  // status.hard = spec.hard
  std::vector<api::HorizontalPodAutoscaler> hpas;
  std::vector<api::PodDisruptionBudget> podDisruptionBudgets;  // status left to the controller
  std::vector<api::AttunePolicy> policies;                     // as written (not defaulted)
  // Set: the cluster autoscaler runs (docs/scenarios.md); unset: every pool keeps its count.
  std::optional<ClusterAutoscalerOptions> clusterAutoscaler;

  // Where each field was written (field path → line), for messages about the scenario that are
  // found after decoding (Simulation::create). Empty for scenarios built in code.
  api::SourceMap sources;
};

}  // namespace attune::sim
