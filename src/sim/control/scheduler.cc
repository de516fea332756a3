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

// Mean free fraction of cpu and memory of a node's `allocatable` once `used` and `requests` are
// allocated; higher is emptier.
double freeScore(const ResourceAmounts& allocatable, const ResourceAmounts& used,
                 const ResourceAmounts& requests) {
  double sum = 0;
  for (const char* name : {"cpu", "memory"}) {
    auto cap = allocatable.find(name);
    if (cap == allocatable.end() || cap->second <= 0) continue;
    const __int128 taken = amountOf(used, name) + amountOf(requests, name);
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
  // Per node, in name order: what it can allocate and what its bound pods request.
  std::vector<ResourceAmounts> allocatable;
  std::vector<ResourceAmounts> used;
  {
    UsageByNode usage = usageOf(pods);
    for (const auto& node : nodes) {
      allocatable.push_back(allocatableOf(node));
      used.push_back(std::move(usage[node.metadata.name]));
    }
  }
  for (const auto& pod : pods) {
    if (!isPending(pod)) continue;
    const ResourceAmounts requests = podRequests(pod.spec);
    std::optional<std::size_t> best;
    double bestScore = 0;
    for (std::size_t i = 0; i < nodes.size(); ++i) {  // name order: the first of equal scores wins
      if (!fits(pod, nodes[i], used[i], allocatable[i], requests)) continue;
      const double score = freeScore(allocatable[i], used[i], requests);
      if (!best || score > bestScore) {
        best = i;
        bestScore = score;
      }
    }
    if (!best) {
      std::map<std::string, int> reasons;
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        for (auto& reason : unfitReasons(pod, nodes[i], used[i])) ++reasons[std::move(reason)];
      }
      recordUnschedulable(state, pod, unschedulableMessage(nodes.size(), reasons), now);
      continue;
    }
    bind(state, pod, nodes[*best].metadata.name, now);
    addAmounts(used[*best], requests);
  }
}

}  // namespace attune::sim
