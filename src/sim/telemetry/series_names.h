// The series the simulator exports (cAdvisor, kube-state-metrics, node-exporter and kubelet
// resource-metrics names) and their label sets, shared by the OpenMetrics dump and the
// Prometheus text rendering. Internal to sim/telemetry.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "core/quantity.h"
#include "core/time.h"

namespace attune::sim::series {

// One metric family. `name` is the family name; counters' samples (and, in the text format
// 0.0.4, their TYPE line) carry `name` + "_total".
struct Family {
  std::string_view name;
  std::string_view type;  // "counter" or "gauge"
  std::string_view help;
  bool counter() const { return type == "counter"; }
  // The sample name: name + "_total" for counters.
  std::string sampleName() const;
};

inline constexpr Family kCfsPeriods{"container_cpu_cfs_periods", "counter",
                                    "Number of elapsed enforcement period intervals."};
inline constexpr Family kCfsThrottledPeriods{"container_cpu_cfs_throttled_periods", "counter",
                                             "Number of throttled period intervals."};
inline constexpr Family kCpuUsage{"container_cpu_usage_seconds", "counter",
                                  "Cumulative cpu time consumed in seconds."};
inline constexpr Family kMemoryWorkingSet{"container_memory_working_set_bytes", "gauge",
                                          "Current working set in bytes."};
inline constexpr Family kPressureCpuWaiting{
    "container_pressure_cpu_waiting_seconds", "counter",
    "Total time duration tasks in the container have waited due to CPU congestion."};
inline constexpr Family kHttpRequests{"http_requests", "counter",
                                      "Requests received by the workload (the service model)."};
inline constexpr Family kJobOwner{"kube_job_owner", "gauge", "Information about the Job's owner."};
inline constexpr Family kNodeCapacity{"kube_node_status_capacity", "gauge",
                                      "The capacity for different resources of a node."};
inline constexpr Family kResourceLimits{"kube_pod_container_resource_limits", "gauge",
                                        "The number of requested limit resource by a container."};
inline constexpr Family kResourceRequests{
    "kube_pod_container_resource_requests", "gauge",
    "The number of requested request resource by a container."};
inline constexpr Family kLastTerminatedReason{
    "kube_pod_container_status_last_terminated_reason", "gauge",
    "Describes the last reason the container was in terminated state."};
inline constexpr Family kRestarts{"kube_pod_container_status_restarts", "counter",
                                  "The number of container restarts per container."};
inline constexpr Family kPodOwner{"kube_pod_owner", "gauge", "Information about the Pod's owner."};
inline constexpr Family kReplicaSetOwner{"kube_replicaset_owner", "gauge",
                                         "Information about the ReplicaSet's owner."};
inline constexpr Family kNodeCpuUsage{"node_cpu_usage_seconds", "counter",
                                      "Cumulative cpu time consumed by the node in core-seconds."};
inline constexpr Family kNodeLoad1{"node_load1", "gauge", "1m load average."};
inline constexpr Family kNodeMemoryWorkingSet{"node_memory_working_set_bytes", "gauge",
                                              "Current working set of the node in bytes."};

using Labels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// `{name="value",...}` with values escaped (backslash, double quote, newline).
std::string labelSet(Labels labels);

// cAdvisor labels of one container; `id` is the container's cgroup, unique per pod uid.
std::string cadvisorLabels(std::string_view ns, std::string_view pod, std::string_view container,
                           std::string_view node, std::string_view uid);
// kube_pod_owner, kube_replicaset_owner and kube_job_owner labels; an empty kind is "<none>".
std::string ownerLabels(std::string_view objectLabel, std::string_view ns, std::string_view object,
                        std::string_view uid, std::string_view ownerKind,
                        std::string_view ownerName, bool controller);

// http_requests_total labels of a workload: namespace and the workload under its lowercase kind
// ("deployment", "statefulset", ...), as kube-state-metrics labels workloads.
std::string requestLabels(std::string_view ns, std::string_view kindLabel, std::string_view name);

// kube-state-metrics' unit label of a resource: "core" for cpu, "byte" for memory, storage
// and hugepages, "integer" otherwise.
std::string_view unitOf(std::string_view resource);
// A quantity in the unit of unitOf(resource): cores, bytes, or plain units.
double valueOf(const Quantity& q);

// A sample timestamp in seconds: whole seconds, or with milliseconds when not whole.
std::string timestamp(Time t);

}  // namespace attune::sim::series
