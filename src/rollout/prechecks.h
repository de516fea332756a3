// The pre-checks a resize must pass, each a pure function of the pod, its would-be spec and the
// namespace's or node's constraints. Each returns nullopt when the resize may proceed, else the
// message of the skip.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/k8s/hpa.h"
#include "api/k8s/node.h"
#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "core/units.h"
#include "rollout/plan.h"
#include "rollout/pod_targets.h"

namespace attune::rollout {

// True when `meta` carries attune.io/skip: "true".
bool optedOut(const api::ObjectMeta& meta);

// QoS preservation: the class of `after` (api::computeQosClass) must equal the pod's current
// class (status.qosClass when set, else computed from the current spec).
std::optional<std::string> checkQos(const api::Pod& pod, const api::PodSpec& after);

// LimitRange: for every Container item of the LimitRanges in the pod's namespace and every
// changed resource of every changed container: the new request and limit must be within
// [min, max], and limit/request must not exceed maxLimitRequestRatio.
std::optional<std::string> checkLimitRanges(const api::Pod& pod,
                                            const std::vector<ContainerChange>& changes,
                                            std::span<const api::LimitRange> limitRanges);

// The requests and limits a pod's resize adds in a namespace (negative for decreases).
struct PodDelta {
  Millicores cpuRequests;
  Bytes memoryRequests;
  Millicores cpuLimits;
  Bytes memoryLimits;
};
PodDelta podDelta(const std::vector<ContainerChange>& changes);

// ResourceQuota headroom, over one plan: remembers what earlier resizes of the same plan take
// from each quota, so that several increases together cannot overrun one.
class QuotaLedger {
 public:
  explicit QuotaLedger(std::span<const api::ResourceQuota> quotas) : quotas_(quotas) {}

  // For every ResourceQuota in `ns` (scopes are not evaluated: every quota counts), and every
  // tracked key the quota sets a hard limit for — requests.cpu and cpu, requests.memory and
  // memory, limits.cpu, limits.memory — an increase (positive delta) must fit in
  // hard − used − what this plan already took. Hard is status.hard, or spec.hard when the
  // status has none; absent used counts as 0. Decreases are never blocked.
  std::optional<std::string> check(std::string_view ns, const PodDelta& delta) const;
  // Records that a resize with `delta` in `ns` was planned.
  void take(std::string_view ns, const PodDelta& delta);

 private:
  std::span<const api::ResourceQuota> quotas_;
  std::map<std::string, PodDelta, std::less<>> taken_;  // by "namespace/name"
};

// What a pod spec requests of its node: regular containers, sidecar init containers and
// spec.overhead.
struct PodRequests {
  Millicores cpu;
  Bytes memory;
};
PodRequests podRequests(const api::PodSpec& spec);

// Node capacity: the pod's requests after the resize — regular containers, sidecar init
// containers and spec.overhead — must not exceed the allocatable cpu and memory of its node.
// A pod without a node, a node not in `nodes`, or a resource the node does not list is not
// checked (the resize proceeds, as when the node cannot be read).
std::optional<std::string> checkNodeCapacity(const api::Pod& pod, const api::PodSpec& after,
                                             const api::Node* node);

// The HPAs in the workload's namespace that scale the workload on cpu or memory (a Resource or
// ContainerResource metric), with the message of the informational HPAConflict event; empty
// message when there is none. The caller passes only the HPAs Attune does not retune
// (controller/hpa_retunes.h): a retuned HPA gets HPARetuned events instead.
std::string hpaConflict(const api::WorkloadRef& workload,
                        std::span<const api::HorizontalPodAutoscaler> hpas);

}  // namespace attune::rollout
