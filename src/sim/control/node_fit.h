// Whether a pod fits a node: the scheduler's filter plugins (NodeUnschedulable, NodeReady,
// NodeAffinity for spec.nodeSelector, TaintToleration, NodeResourcesFit) as pure functions.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/node.h"
#include "api/k8s/pod.h"

namespace attune::sim {

// Resource amounts by name ("cpu", "memory", "pods", ...) in nano-units (Quantity::nanos()).
using ResourceAmounts = std::map<std::string, __int128, std::less<>>;

// What the scheduler reserves for a pod (resourcehelper.PodRequests): pod-level requests when
// set; otherwise the sum of regular and sidecar containers, at least each other init container
// plus the sidecars, plus overhead. Always includes "pods" = 1. Pure.
ResourceAmounts podRequests(const api::PodSpec& spec);
// Adds `amounts` into `total`.
void addAmounts(ResourceAmounts& total, const ResourceAmounts& amounts);
// The amount of `name` in `amounts`, 0 when absent.
__int128 amountOf(const ResourceAmounts& amounts, std::string_view name);
// node.status.allocatable as amounts.
ResourceAmounts allocatableOf(const api::Node& node);

// True when every spec.nodeSelector pair is a label of `node`. Pure.
bool nodeSelectorMatches(const api::PodSpec& spec, const api::Node& node);
// True when the node's Ready condition is True.
bool nodeReady(const api::Node& node);

// Why `pod` cannot go on `node`, whose bound pods already request `used`, in kube-scheduler's
// wording ("node(s) were unschedulable", "Insufficient cpu", "node(s) had untolerated taint
// {key: value}"...); empty when it fits. Pure.
std::vector<std::string> unfitReasons(const api::Pod& pod, const api::Node& node,
                                      const ResourceAmounts& used);
// unfitReasons(pod, node, used).empty(), without wording the reasons, given the node's
// allocatableOf and the pod's podRequests already computed (a scheduler asks it for every pod and
// node). Pure.
bool fits(const api::Pod& pod, const api::Node& node, const ResourceAmounts& used,
          const ResourceAmounts& allocatable, const ResourceAmounts& requests);

}  // namespace attune::sim
