// The HPA's replica calculator for resource metrics (upstream pkg/controller/podautoscaler,
// replica_calculator.go): from the target's pods and what the metrics API reports of them, the
// replica count one `Resource` or `ContainerResource` metric proposes. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/pod.h"
#include "core/error.h"
#include "core/time.h"
#include "core/units.h"

namespace attune::sim {

// What the metrics API (metrics.k8s.io, metrics-server) reports of one container.
struct ContainerUsageSample {
  std::string name;
  Millicores cpu{0};
  Bytes memory{0};
};

// What the metrics API reports of one pod: its running containers' usage over `window`, ending
// at `timestamp`.
struct PodUsageSample {
  Time timestamp{};
  Duration window{};
  std::vector<ContainerUsageSample> containers;
};

// Pod usage by "namespace/name"; a pod without an entry has no metrics (not running yet).
using PodUsageByName = std::map<std::string, PodUsageSample, std::less<>>;

// The key of `pod` in PodUsageByName.
std::string podUsageKey(std::string_view ns, std::string_view name);

// The band of usage ratios in which the HPA keeps the current count: [1 - down, 1 + up].
struct Tolerances {
  double scaleDown = 0.1;
  double scaleUp = 0.1;
  bool contains(double ratio) const { return 1.0 - scaleDown <= ratio && ratio <= 1.0 + scaleUp; }
};

// What the calculator needs about readiness (the controller manager's flags).
struct ReadinessWindows {
  Duration cpuInitializationPeriod = std::chrono::minutes(5);
  Duration initialReadinessDelay = std::chrono::seconds(30);
};

// One resource metric of an HPA: resource "cpu" or "memory", of one container (`container`
// set, ContainerResource) or of the whole pod (regular and sidecar containers summed). Exactly
// one of the targets applies: `targetUtilization` (percent of the request) when > 0, else
// `targetAverageMilli` (average usage per pod, in milli-units: millicores, or bytes × 1000).
struct ResourceMetricQuery {
  std::string resource;
  std::string container;
  std::int32_t targetUtilization = 0;
  std::int64_t targetAverageMilli = 0;
};

// A metric's proposal and the current value for status.currentMetrics.
struct ResourceProposal {
  std::int32_t replicas = 0;
  std::int32_t utilization = 0;   // percent of the requests (utilization targets only)
  std::int64_t averageMilli = 0;  // average usage per pod with metrics, in milli-units
};

// The replica count `query` proposes for a target whose spec.replicas is `currentReplicas`,
// given the pods its selector picks and their usage, as upstream computes it:
// - metrics: each pod's usage of the resource (of `container`, or summed); a pod with metrics
//   but without `container` among them is an error ("container ... not present"), as is a
//   resource request missing in a counted container (utilization only);
// - pods: deleting or Failed are ignored; Pending ones are unready; those without metrics are
//   missing; for cpu, a pod is unready when it has no Ready condition or start time, or within
//   cpuInitializationPeriod of its start is not Ready or was sampled less than a window after
//   its Ready transition, or later is not Ready and never was (its last transition within
//   initialReadinessDelay of its start);
// - ratio = usage / target over the ready pods with metrics (utilization: integer percent of
//   the summed requests, divided by the target); with no unready pods on a scale-up and no
//   missing pods, a ratio within the tolerances keeps currentReplicas, else ceil(ratio × ready);
// - otherwise missing pods count 0 on a scale-up and max(100 %, target) of their request (the
//   target for AverageValue) on a scale-down, unready pods 0 on a scale-up; the ratio is
//   recomputed over them all and currentReplicas kept when it is within the tolerances, crosses
//   1 the other way, or its ceil(ratio × pods) goes against the first ratio's direction.
// Errors (kNotFound/kInvalidArgument) when no pods match, none has usable metrics, or the
// metrics are malformed as above.
Result<ResourceProposal> resourceReplicas(const ResourceMetricQuery& query,
                                          std::int32_t currentReplicas,
                                          const std::vector<const api::Pod*>& pods,
                                          const PodUsageByName& usage, const Tolerances& tolerances,
                                          const ReadinessWindows& readiness, Time now);

}  // namespace attune::sim
