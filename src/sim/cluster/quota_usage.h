// ResourceQuota accounting for pods, as the API server's quota controller and ResourceQuota
// admission plugin do it (the pod evaluator): what a pod is charged, which quotas charge it, the
// used amounts of a quota, and whether a larger charge still fits. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/pod.h"
#include "api/k8s/quota.h"
#include "core/error.h"

namespace attune::sim {

// What one pod is charged, by quota resource name, and what quota scopes look at.
struct QuotaCharge {
  api::ResourceList usage;
  bool bestEffort = false;  // QoS class BestEffort (scopes BestEffort / NotBestEffort)

  bool operator==(const QuotaCharge&) const = default;
};

// The charge of `pod`, or nullopt when the pod is not charged (phase Succeeded or Failed).
// Usage: "pods" and "count/pods" = 1; for each resource r the pod requests, "requests.r" and,
// for cpu, memory and ephemeral-storage, bare "r"; for each resource it limits, "limits.r".
// Pod amounts are resourcehelper.PodRequests / PodLimits over the spec — the desired resources
// of a resize, which is what admission charges: regular and sidecar containers summed, at
// least each other init container plus the sidecars started before it, pod-level resources
// (spec.resources) instead for cpu and memory when set there, plus spec.overhead (for limits,
// only on resources that have a limit). bestEffort comes from status.qosClass, else the spec.
std::optional<QuotaCharge> quotaChargeOf(const api::Pod& pod);

// True when a pod with `charge` counts against a quota with `scopes` (all must match):
// BestEffort, NotBestEffort; NotTerminating matches every pod and Terminating none
// (activeDeadlineSeconds is not modelled); any other scope (PriorityClass, ...) matches none.
bool quotaScopesMatch(const std::vector<std::string>& scopes, const QuotaCharge& charge);

// True when pods are charged for quota resource `name` ("pods", "requests.cpu", "memory",
// "limits.nvidia.com/gpu"...); false for what other evaluators count ("services",
// "requests.storage", "count/deployments.apps"...).
bool isPodQuotaResource(std::string_view name);

// `used` plus `sign` (+1 or -1) times `usage`, on the resources of `hard` only. An amount
// added to zero takes the added quantity's format, as resource.Quantity.Add does.
void addCharge(api::ResourceList& used, const api::ResourceList& usage,
               const api::ResourceList& hard, int sign);

// The starting point of a quota's status.used before its pods are added: zero for every pod
// resource of spec.hard; the stored used amount (zero if none) for the other resources of
// spec.hard, which this simulation does not count.
api::ResourceList baseUsed(const api::ResourceQuota& quota);

// ResourceQuota admission of one pod's charge going from `before` (nullptr: a new pod) to
// `after`, against `quota` with status.hard and status.used current. Only increases are
// checked: for each resource of status.hard, after − before (when positive) must keep used
// within hard. Fails with kForbidden and the plugin's message, listing the exceeded resources
// sorted by name: "<subject> is forbidden: exceeded quota: <quota>, requested:
// requests.cpu=500m, used: requests.cpu=1500m, limited: requests.cpu=2". `subject` is e.g.
// `pods "web"`.
Result<void> admitQuotaCharge(const api::ResourceQuota& quota, const api::ResourceList* before,
                              const api::ResourceList& after, std::string_view subject);

}  // namespace attune::sim
