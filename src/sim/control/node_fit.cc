#include "sim/control/node_fit.h"

#include <algorithm>

#include "sim/control/tolerations.h"

namespace attune::sim {
namespace {

ResourceAmounts amountsOf(const api::ResourceList& list) {
  ResourceAmounts out;
  list.forEach(
      [&](std::string_view name, const Quantity& q) { out[std::string(name)] = q.nanos(); });
  return out;
}

void maxInto(ResourceAmounts& total, const ResourceAmounts& amounts) {
  for (const auto& [name, value] : amounts) total[name] = std::max(total[name], value);
}

constexpr __int128 kOnePod = 1'000'000'000;  // 1 in nano-units

}  // namespace

__int128 amountOf(const ResourceAmounts& amounts, std::string_view name) {
  auto it = amounts.find(name);
  return it == amounts.end() ? 0 : it->second;
}

void addAmounts(ResourceAmounts& total, const ResourceAmounts& amounts) {
  for (const auto& [name, value] : amounts) total[name] += value;
}

ResourceAmounts podRequests(const api::PodSpec& spec) {
  ResourceAmounts out;
  if (spec.resources) {
    out = amountsOf(spec.resources->requests);
  } else {
    ResourceAmounts sidecars;
    ResourceAmounts initPeak;
    for (const auto& c : spec.initContainers) {
      ResourceAmounts during = sidecars;
      addAmounts(during, amountsOf(c.resources.requests));
      maxInto(initPeak, during);
      if (c.isSidecar()) addAmounts(sidecars, amountsOf(c.resources.requests));
    }
    out = sidecars;
    for (const auto& c : spec.containers) addAmounts(out, amountsOf(c.resources.requests));
    maxInto(out, initPeak);
  }
  addAmounts(out, amountsOf(spec.overhead));
  out["pods"] = kOnePod;
  return out;
}

ResourceAmounts allocatableOf(const api::Node& node) { return amountsOf(node.status.allocatable); }

bool nodeSelectorMatches(const api::PodSpec& spec, const api::Node& node) {
  return std::all_of(spec.nodeSelector.begin(), spec.nodeSelector.end(), [&](const auto& kv) {
    auto it = node.metadata.labels.find(kv.first);
    return it != node.metadata.labels.end() && it->second == kv.second;
  });
}

bool nodeReady(const api::Node& node) {
  const api::Condition* ready = api::findCondition(node.status.conditions, "Ready");
  return ready != nullptr && ready->isTrue();
}

namespace {

// The first request `allocatable` cannot hold on top of `used`, or nullptr.
const std::string* exceeded(const ResourceAmounts& used, const ResourceAmounts& allocatable,
                            const ResourceAmounts& requests) {
  for (const auto& [name, request] : requests) {
    if (request == 0) continue;
    // A node that does not report "pods" is not limited in pod count.
    if (name == "pods" && !allocatable.contains("pods")) continue;
    if (amountOf(used, name) + request > amountOf(allocatable, name)) return &name;
  }
  return nullptr;
}

}  // namespace

bool fits(const api::Pod& pod, const api::Node& node, const ResourceAmounts& used,
          const ResourceAmounts& allocatable, const ResourceAmounts& requests) {
  return !node.spec.unschedulable && nodeReady(node) && nodeSelectorMatches(pod.spec, node) &&
         untoleratedTaint(node, pod.spec.tolerations) == nullptr &&
         exceeded(used, allocatable, requests) == nullptr;
}

std::vector<std::string> unfitReasons(const api::Pod& pod, const api::Node& node,
                                      const ResourceAmounts& used) {
  std::vector<std::string> reasons;
  if (node.spec.unschedulable) reasons.push_back("node(s) were unschedulable");
  if (!nodeReady(node)) reasons.push_back("node(s) were not ready");
  if (!nodeSelectorMatches(pod.spec, node)) {
    reasons.push_back("node(s) didn't match Pod's node affinity/selector");
  }
  if (const api::Taint* taint = untoleratedTaint(node, pod.spec.tolerations)) {
    reasons.push_back("node(s) had untolerated taint {" + taint->key + ": " + taint->value + "}");
  }
  const ResourceAmounts allocatable = allocatableOf(node);
  for (const auto& [name, request] : podRequests(pod.spec)) {
    if (request == 0) continue;
    // A node that does not report "pods" is not limited in pod count.
    if (name == "pods" && !allocatable.contains("pods")) continue;
    if (amountOf(used, name) + request > amountOf(allocatable, name)) {
      reasons.push_back(name == "pods" ? "Too many pods" : "Insufficient " + name);
    }
  }
  return reasons;
}

}  // namespace attune::sim
