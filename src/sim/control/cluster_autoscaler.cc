#include "sim/control/cluster_autoscaler.h"

#include <algorithm>
#include <set>
#include <utility>

#include "sim/cluster/pod_eviction.h"
#include "sim/control/node_fit.h"
#include "sim/control/tolerations.h"

namespace attune::sim {
namespace {

using UsedByNode = std::map<std::string, ResourceAmounts, std::less<>>;

bool isFinished(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

bool isDaemonSetPod(const api::Pod& pod) {
  const api::OwnerReference* ref = pod.metadata.controllerRef();
  return ref != nullptr && ref->kind == "DaemonSet";
}

bool isUnschedulable(const api::Pod& pod) {
  if (!pod.spec.nodeName.empty() || isFinished(pod) || pod.metadata.deletionTimestamp) {
    return false;
  }
  const api::Condition* c = api::findCondition(pod.status.conditions, "PodScheduled");
  return c != nullptr && c->status == "False" && c->reason == "Unschedulable";
}

// The share of `allocatable` that `used` takes for one resource; 0 when the node has none.
double share(const ResourceAmounts& used, const ResourceAmounts& allocatable,
             std::string_view name) {
  const __int128 cap = amountOf(allocatable, name);
  if (cap <= 0) return 0;
  return static_cast<double>(amountOf(used, name)) / static_cast<double>(cap);
}

std::string groupOf(const api::Node& node) {
  auto it = node.metadata.labels.find(std::string(kNodeGroupLabel));
  return it == node.metadata.labels.end() ? std::string() : it->second;
}

// The requests of the DaemonSets whose pods would run on `node`.
ResourceAmounts daemonSetOverhead(const ClusterState& state, const api::Node& node) {
  ResourceAmounts out;
  state.daemonSets.forEach([&](const api::DaemonSet& ds) {
    const api::PodSpec& spec = ds.spec.template_.spec;
    if (nodeSelectorMatches(spec, node) && untoleratedTaint(node, spec.tolerations) == nullptr) {
      addAmounts(out, podRequests(spec));
    }
  });
  return out;
}

api::Node namedNode(const NodeGroup& group, const std::string& name) {
  api::Node node = group.templateNode;
  node.metadata.name = name;
  node.metadata.labels.insert_or_assign("kubernetes.io/hostname", name);
  node.metadata.labels.insert_or_assign(std::string(kNodeGroupLabel), group.name);
  return node;
}

// A node that can take a pod (first-fit bin), and what is requested on it so far.
struct Bin {
  const api::Node* node = nullptr;
  ResourceAmounts used;
};

// Places `pod` on the first bin it fits; returns false when it fits none.
bool placeFirstFit(const api::Pod& pod, std::vector<Bin>& bins) {
  for (Bin& bin : bins) {
    if (!unfitReasons(pod, *bin.node, bin.used).empty()) continue;
    addAmounts(bin.used, podRequests(pod.spec));
    return true;
  }
  return false;
}

// The cluster as the autoscaler's simulations see it, read once per loop. It points into the
// stores: a write to an object invalidates that object's pointer only (std::map nodes), so a
// node's entries must not be read once it or its pods were deleted.
struct Snapshot {
  std::vector<std::pair<std::string, const api::Node*>> nodes;                  // in name order
  std::map<std::string, std::vector<const api::Pod*>, std::less<>> podsByNode;  // non-finished
  UsedByNode used;                                              // requests of those pods, by node
  std::map<std::string, std::int32_t, std::less<>> groupSizes;  // nodes by group
};

Snapshot snapshotOf(const ClusterState& state) {
  Snapshot s;
  state.nodes.forEach([&](const api::Node& node) {
    s.nodes.emplace_back(node.metadata.name, &node);
    ++s.groupSizes[groupOf(node)];
  });
  state.pods.forEach([&](const api::Pod& pod) {
    if (pod.spec.nodeName.empty() || isFinished(pod)) return;
    s.podsByNode[pod.spec.nodeName].push_back(&pod);
    addAmounts(s.used[pod.spec.nodeName], podRequests(pod.spec));
  });
  return s;
}

// The pods a drain of `node` evicts (not DaemonSet pods, not already deleting), or nullopt when
// one of them blocks the removal (bare pod, safe-to-evict "false", budget exhausted).
std::optional<std::vector<const api::Pod*>> podsToMove(const ClusterState& state, const Snapshot& s,
                                                       const std::string& node) {
  std::vector<const api::Pod*> out;
  auto it = s.podsByNode.find(node);
  if (it == s.podsByNode.end()) return out;
  std::map<std::string, std::int32_t, std::less<>> perBudget;
  for (const api::Pod* p : it->second) {
    const api::Pod& pod = *p;
    if (isDaemonSetPod(pod) || pod.metadata.deletionTimestamp) continue;
    if (pod.metadata.controllerRef() == nullptr) return std::nullopt;
    auto safe = pod.metadata.annotations.find(std::string(kSafeToEvictAnnotation));
    if (safe != pod.metadata.annotations.end() && safe->second == "false") return std::nullopt;
    for (const api::PodDisruptionBudget* pdb : budgetsOfEvictedPod(state, pod)) {
      const std::string key = pdb->metadata.namespace_ + "/" + pdb->metadata.name;
      if (++perBudget[key] > pdb->status.disruptionsAllowed) return std::nullopt;
    }
    out.push_back(p);
  }
  return out;
}

// True when every pod of `pods` fits, first-fit in node name order, on the nodes of `s` other
// than `node` and those in `gone` that are Ready and schedulable.
bool fitsElsewhere(const Snapshot& s, const std::string& node,
                   const std::set<std::string, std::less<>>& gone,
                   const std::vector<const api::Pod*>& pods) {
  if (pods.empty()) return true;
  std::vector<Bin> bins;
  for (const auto& [name, other] : s.nodes) {
    if (name == node || gone.contains(name) || other->spec.unschedulable || !nodeReady(*other)) {
      continue;
    }
    auto used = s.used.find(name);
    bins.push_back({other, used == s.used.end() ? ResourceAmounts{} : used->second});
  }
  return std::all_of(pods.begin(), pods.end(),
                     [&](const api::Pod* pod) { return placeFirstFit(*pod, bins); });
}

// One group's answer to the pending pods: how many new nodes, how many pods they take, and the
// share of their cpu and memory left unrequested.
struct ScaleUpOption {
  std::size_t group = 0;
  std::int32_t nodes = 0;
  std::size_t pods = 0;
  double waste = 0;
};

}  // namespace

ClusterAutoscaler::ClusterAutoscaler(ClusterAutoscalerOptions options,
                                     std::vector<NodeGroup> groups)
    : options_(options), groups_(std::move(groups)) {}

bool ClusterAutoscaler::tick(ClusterState& state, Time now) {
  // A loop on the state the previous one left, before any of its timers is due, would decide
  // the same and write nothing.
  if (state.pods.resourceVersion() == lastVersion_ && nextDue_ && now < *nextDue_) return false;
  bool wrote = createReadyNodes(state, now);
  const bool scaledUp = scaleUp(state, now);
  if (scaledUp) lastScaleUp_ = now;
  const bool cooling =
      scaledUp || (lastScaleUp_ && now - *lastScaleUp_ < options_.scaleDownDelayAfterAdd);
  // The bookkeeping of step 3 runs in every loop; removal only outside the cool-down.
  wrote = scaleDownStep(state, now, !cooling) || wrote;
  lastVersion_ = state.pods.resourceVersion();
  nextDue_ = Time::max();
  for (const Upcoming& u : upcoming_) nextDue_ = std::min(*nextDue_, u.readyAt);
  for (const auto& [name, since] : unneeded_) {
    nextDue_ = std::min(*nextDue_, since + options_.scaleDownUnneededTime);
  }
  if (lastScaleUp_ && !unneeded_.empty()) {
    nextDue_ = std::min(*nextDue_, *lastScaleUp_ + options_.scaleDownDelayAfterAdd);
  }
  return wrote || scaledUp;
}

bool ClusterAutoscaler::createReadyNodes(ClusterState& state, Time now) {
  bool wrote = false;
  std::erase_if(upcoming_, [&](const Upcoming& u) {
    if (u.readyAt > now) return false;
    if (state.nodes.create(namedNode(groups_[u.group], u.name))) {
      ++counters_.nodesAdded;
      wrote = true;
    }
    return true;
  });
  return wrote;
}

bool ClusterAutoscaler::scaleUp(ClusterState& state, Time now) {
  std::vector<api::Pod> pending;
  state.pods.forEach([&](const api::Pod& pod) {
    if (isUnschedulable(pod)) pending.push_back(pod);
  });
  if (pending.empty()) return false;

  // Pods that fit on a node already there (the scheduler has not seen it yet) or on one still
  // provisioning are not pending for long (upstream's filterOutSchedulable).
  const Snapshot s = snapshotOf(state);
  std::vector<api::Node> upcomingNodes;
  for (const Upcoming& u : upcoming_) upcomingNodes.push_back(namedNode(groups_[u.group], u.name));
  std::vector<Bin> existing;
  for (const auto& [name, node] : s.nodes) {
    if (node->spec.unschedulable || !nodeReady(*node)) continue;
    auto used = s.used.find(name);
    existing.push_back({node, used == s.used.end() ? ResourceAmounts{} : used->second});
  }
  for (const api::Node& node : upcomingNodes) {
    existing.push_back({&node, daemonSetOverhead(state, node)});
  }
  std::vector<const api::Pod*> rest;
  for (const api::Pod& pod : pending) {
    if (!placeFirstFit(pod, existing)) rest.push_back(&pod);
  }
  if (rest.empty()) return false;

  std::map<std::string, std::int32_t, std::less<>> sizes = s.groupSizes;
  std::set<std::string, std::less<>> names;
  for (const auto& [name, node] : s.nodes) names.insert(name);
  for (const Upcoming& u : upcoming_) {
    ++sizes[groups_[u.group].name];
    names.insert(u.name);
  }

  std::optional<ScaleUpOption> best;
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    const NodeGroup& group = groups_[g];
    const std::int32_t room = group.maxSize - sizes[group.name];
    if (room <= 0) continue;
    const api::Node templateNode = namedNode(group, group.name + "-template");
    const ResourceAmounts overhead = daemonSetOverhead(state, templateNode);
    const ResourceAmounts allocatable = allocatableOf(templateNode);
    auto size = [&](const api::Pod* pod) {
      const ResourceAmounts r = podRequests(pod->spec);
      return share(r, allocatable, "cpu") + share(r, allocatable, "memory");
    };
    std::vector<std::pair<double, const api::Pod*>> sorted;
    for (const api::Pod* pod : rest) sorted.emplace_back(size(pod), pod);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<Bin> bins;
    ScaleUpOption option{.group = g, .nodes = 0, .pods = 0, .waste = 0};
    for (const auto& [score, pod] : sorted) {
      if (!unfitReasons(*pod, templateNode, overhead).empty()) continue;
      if (!placeFirstFit(*pod, bins)) {
        if (std::ssize(bins) >= room) continue;
        bins.push_back({&templateNode, overhead});
        addAmounts(bins.back().used, podRequests(pod->spec));
      }
      ++option.pods;
    }
    if (option.pods == 0) continue;
    option.nodes = static_cast<std::int32_t>(bins.size());
    ResourceAmounts used;
    for (const Bin& bin : bins) addAmounts(used, bin.used);
    ResourceAmounts total;
    for (std::size_t i = 0; i < bins.size(); ++i) addAmounts(total, allocatable);
    int resources = 0;
    for (const char* name : {"cpu", "memory"}) {
      if (amountOf(total, name) <= 0) continue;
      option.waste += 1.0 - share(used, total, name);
      ++resources;
    }
    if (resources > 0) option.waste /= resources;
    auto better = [&](const ScaleUpOption& a, const ScaleUpOption& b) {
      if (a.waste != b.waste) return a.waste < b.waste;
      if (a.pods != b.pods) return a.pods > b.pods;
      return groups_[a.group].pricePerHour < groups_[b.group].pricePerHour;
    };  // equal: the earlier group (scenario order) stays
    if (!best || better(option, *best)) best = option;
  }
  if (!best) return false;

  const NodeGroup& group = groups_[best->group];
  for (std::int32_t n = 0; n < best->nodes; ++n) {
    std::string name;
    for (int i = 0;; ++i) {
      name = group.name + "-" + std::to_string(i);
      if (!names.contains(name)) break;
    }
    names.insert(name);
    upcoming_.push_back({best->group, name, now + options_.provisioningDelay});
  }
  ++counters_.scaleUps;
  createReadyNodes(state, now);
  return true;
}

bool ClusterAutoscaler::scaleDownStep(ClusterState& state, Time now, bool remove) {
  const Snapshot s = snapshotOf(state);
  auto groupIndex = [&](const api::Node& node) -> std::optional<std::size_t> {
    const std::string name = groupOf(node);
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      if (groups_[g].name == name) return g;
    }
    return std::nullopt;
  };
  // Step 3: which nodes are unneeded now, and since when.
  std::map<std::string, Time, std::less<>> unneeded;
  for (const auto& [name, node] : s.nodes) {
    const auto g = groupIndex(*node);
    if (!g || node->spec.unschedulable || !nodeReady(*node)) continue;
    if (s.groupSizes.at(groups_[*g].name) <= groups_[*g].minSize) continue;
    const ResourceAmounts allocatable = allocatableOf(*node);
    auto used = s.used.find(name);
    const ResourceAmounts none;
    const ResourceAmounts& requested = used == s.used.end() ? none : used->second;
    const double utilization =
        std::max(share(requested, allocatable, "cpu"), share(requested, allocatable, "memory"));
    if (utilization >= options_.scaleDownUtilizationThreshold) continue;
    const auto pods = podsToMove(state, s, name);
    if (!pods || !fitsElsewhere(s, name, {}, *pods)) continue;
    auto known = unneeded_.find(name);
    unneeded.emplace(name, known == unneeded_.end() ? now : known->second);
  }
  unneeded_ = std::move(unneeded);
  if (!remove) return false;

  // Step 4: remove those unneeded long enough: empty nodes first (pass 0), then one node to
  // drain (pass 1), as upstream orders them. A removed node's snapshot entries are not read
  // again (its pointers are gone).
  bool wrote = false;
  std::int32_t empties = 0;
  std::set<std::string, std::less<>> gone;
  std::map<std::string, std::int32_t, std::less<>> sizes = s.groupSizes;
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& [name, node] : s.nodes) {
      if (gone.contains(name)) continue;
      auto since = unneeded_.find(name);
      if (since == unneeded_.end() || now - since->second < options_.scaleDownUnneededTime) {
        continue;
      }
      const NodeGroup& group = groups_[*groupIndex(*node)];
      if (sizes[group.name] <= group.minSize) continue;
      const auto pods = podsToMove(state, s, name);
      if (!pods || !fitsElsewhere(s, name, gone, *pods)) continue;
      if (pods->empty() != (pass == 0)) continue;
      if (pods->empty() && empties >= options_.maxEmptyBulkDelete) continue;
      std::vector<std::pair<std::string, std::string>> daemons;
      if (auto onNode = s.podsByNode.find(name); onNode != s.podsByNode.end()) {
        for (const api::Pod* pod : onNode->second) {
          if (isDaemonSetPod(*pod))
            daemons.emplace_back(pod->metadata.namespace_, pod->metadata.name);
        }
      }
      bool evicted = true;
      for (const api::Pod* pod : *pods) {
        api::Eviction eviction;
        eviction.metadata.name = pod->metadata.name;
        eviction.metadata.namespace_ = pod->metadata.namespace_;
        if (!evictThroughBudgets(state, eviction)) {
          evicted = false;
          break;
        }
        ++counters_.podsEvicted;
        wrote = true;
      }
      if (evicted) {
        for (const auto& [ns, pod] : daemons) (void)state.pods.erase(ns, pod);
        (void)state.nodes.erase("", name);
        gone.insert(name);
        --sizes[group.name];
        ++counters_.nodesRemoved;
        wrote = true;
        if (pods->empty()) ++empties;
      }
      // One drain per loop, whether it completed or not (a node that stays is looked at again
      // in the next loop).
      if (!pods->empty()) break;
    }
  }
  for (const std::string& name : gone) unneeded_.erase(name);
  return wrote;
}

}  // namespace attune::sim
