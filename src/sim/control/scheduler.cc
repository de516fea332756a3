#include "sim/control/scheduler.h"

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/control/conditions.h"
#include "sim/control/node_fit.h"

namespace attune::sim {
namespace {

using UsageByNode = std::map<std::string, ResourceAmounts, std::less<>>;

bool isTerminal(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool isPending(const api::Pod& pod) {
  return pod.spec.nodeName.empty() && !isTerminal(pod) && !pod.metadata.deletionTimestamp &&
         (pod.spec.schedulerName.empty() || pod.spec.schedulerName == "default-scheduler");
}

UsageByNode usageOf(const std::vector<api::Pod>& pods) {
  UsageByNode usage;
  for (const auto& pod : pods) {
    if (!pod.spec.nodeName.empty() && !isTerminal(pod)) {
      addAmounts(usage[pod.spec.nodeName], podRequests(pod.spec));
    }
  }
  return usage;
}

// Mean free fraction of cpu and memory on `node` once `used` is allocated; higher is emptier.
double freeScore(const api::Node& node, const ResourceAmounts& used) {
  const ResourceAmounts allocatable = allocatableOf(node);
  double sum = 0;
  for (const char* name : {"cpu", "memory"}) {
    auto cap = allocatable.find(name);
    if (cap == allocatable.end() || cap->second <= 0) continue;
    auto u = used.find(name);
    const __int128 taken = u == used.end() ? 0 : u->second;
    sum += static_cast<double>(cap->second - taken) / static_cast<double>(cap->second);
  }
  return sum / 2;
}

// "0/3 nodes are available: 2 Insufficient cpu, 1 node(s) had untolerated taint {k: v}."
std::string unschedulableMessage(std::size_t nodes, const std::map<std::string, int>& reasons) {
  std::string message = "0/" + std::to_string(nodes) + " nodes are available";
  const char* separator = ": ";
  for (const auto& [reason, count] : reasons) {
    message += separator + std::to_string(count) + " " + reason;
    separator = ", ";
  }
  return message + ".";
}

void recordUnschedulable(ClusterState& state, const api::Pod& pod, std::string message, Time now) {
  (void)state.pods.modify(pod.metadata.namespace_, pod.metadata.name, "", [&](api::Pod& p) {
    api::Condition c{"PodScheduled", "False", "Unschedulable", message, {}, 0};
    return setCondition(p.status.conditions, std::move(c), now) ? Change::kMetadata : Change::kNone;
  });
}

void bind(ClusterState& state, const api::Pod& pod, const std::string& node, Time now) {
  (void)state.pods.modify(pod.metadata.namespace_, pod.metadata.name, "", [&](api::Pod& p) {
    p.spec.nodeName = node;
    setCondition(p.status.conditions, api::Condition{"PodScheduled", "True", "", "", {}, 0}, now);
    return Change::kMetadata;  // binding subresource: no generation bump
  });
}

}  // namespace

void Scheduler::tick(ClusterState& state, Time now) const {
  bool anyPending = false;
  state.pods.forEach([&](const api::Pod& pod) { anyPending = anyPending || isPending(pod); });
  if (!anyPending) return;  // the common tick: nothing to bind, nothing to copy
  const std::vector<api::Pod> pods = state.pods.list({});
  const std::vector<api::Node> nodes = state.nodes.list({});
  UsageByNode usage = usageOf(pods);
  for (const auto& pod : pods) {
    if (!isPending(pod)) continue;
    const ResourceAmounts requests = podRequests(pod.spec);
    std::map<std::string, int> reasons;
    const api::Node* best = nullptr;
    double bestScore = 0;
    for (const auto& node : nodes) {  // name order: the first of equal scores wins
      const ResourceAmounts& used = usage[node.metadata.name];
      auto unfit = unfitReasons(pod, node, used);
      for (auto& reason : unfit) ++reasons[std::move(reason)];
      if (!unfit.empty()) continue;
      ResourceAmounts after = used;
      addAmounts(after, requests);
      const double score = freeScore(node, after);
      if (best == nullptr || score > bestScore) {
        best = &node;
        bestScore = score;
      }
    }
    if (best == nullptr) {
      recordUnschedulable(state, pod, unschedulableMessage(nodes.size(), reasons), now);
      continue;
    }
    bind(state, pod, best->metadata.name, now);
    addAmounts(usage[best->metadata.name], requests);
  }
}

}  // namespace attune::sim
