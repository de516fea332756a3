#include "sim/engine/run_totals.h"

#include <algorithm>
#include <chrono>

namespace attune::sim {
namespace {

bool isFinished(const api::Pod& pod) {
  return pod.status.phase == "Succeeded" || pod.status.phase == "Failed";
}

double nanosToDouble(__int128 nanos) { return static_cast<double>(nanos) / 1e9; }

// The requests the scheduler reserves for `pod` (regular and sidecar containers), in cores and
// bytes.
void requestsOf(const api::Pod& pod, double& cpu, double& memory) {
  cpu = memory = 0;
  auto add = [&](const api::Container& c) {
    if (c.resources.requests.cpu) cpu += nanosToDouble(c.resources.requests.cpu->nanos());
    if (c.resources.requests.memory) {
      memory += nanosToDouble(c.resources.requests.memory->nanos());
    }
  };
  for (const api::Container& c : pod.spec.containers) add(c);
  for (const api::Container& c : pod.spec.initContainers) {
    if (c.isSidecar()) add(c);
  }
}

}  // namespace

void RunAccounting::applyPodEvents(const ClusterState& state) {
  auto batch = state.podEventsAfter({}, podResourceVersion_);
  if (!batch) return;
  podResourceVersion_ = batch->resourceVersion;
  for (const auto& event : batch->events) {
    const api::Pod& pod = event.object;
    const bool counted = event.type != api::WatchEventType::kDeleted &&
                         !pod.spec.nodeName.empty() && !isFinished(pod) &&
                         !pod.metadata.deletionTimestamp;
    const bool pending = event.type != api::WatchEventType::kDeleted &&
                         !pod.metadata.deletionTimestamp &&
                         (pod.status.phase.empty() || pod.status.phase == "Pending");
    if (pending) {
      pending_.insert(pod.metadata.uid);
    } else if (auto p = pending_.find(pod.metadata.uid); p != pending_.end()) {
      pending_.erase(p);
    }
    auto it = charges_.find(pod.metadata.uid);
    if (it != charges_.end()) {
      requested_.cpuCores -= it->second.cpuCores;
      requested_.memoryBytes -= it->second.memoryBytes;
      charges_.erase(it);
    }
    if (!counted) continue;
    Charge charge;
    requestsOf(pod, charge.cpuCores, charge.memoryBytes);
    requested_.cpuCores += charge.cpuCores;
    requested_.memoryBytes += charge.memoryBytes;
    charges_.emplace(pod.metadata.uid, charge);
  }
}

void RunAccounting::record(const ClusterState& state, const Kubelet& kubelet, Time now,
                           Duration dt) {
  const double seconds = std::chrono::duration<double>(dt).count();
  ++totals_.ticks;
  totals_.simulated += dt;
  applyPodEvents(state);
  totals_.cpuRequestedCoreSeconds += requested_.cpuCores * seconds;
  totals_.memoryRequestedByteSeconds += requested_.memoryBytes * seconds;
  totals_.risk.addPending(static_cast<std::int64_t>(pending_.size()), seconds);
  for (const auto& [name, node] : kubelet.nodes()) {
    totals_.cpuUsedCoreSeconds += node.cpuUsageCores * seconds;
    totals_.cpuDemandCoreSeconds += node.cpuDemandCores * seconds;
    totals_.memoryUsedByteSeconds += static_cast<double>(node.memoryWorkingSet.value()) * seconds;
  }
  std::int64_t nodes = 0;
  state.nodes.forEach([&](const api::Node& node) {
    ++nodes;
    totals_.nodeSeconds += seconds;
    auto pool = node.metadata.labels.find("sim.attune.io/node-pool");
    if (pool == node.metadata.labels.end()) return;
    auto price = prices_.find(pool->second);
    if (price != prices_.end()) totals_.nodeCost += price->second * seconds / 3600;
  });
  totals_.nodesMin = totals_.ticks == 1 ? nodes : std::min(totals_.nodesMin, nodes);
  totals_.nodesMax = std::max(totals_.nodesMax, nodes);
  retireNodes(kubelet);
  // The kubelet OOM-kills and exits a container at most once per tick, at the tick's end.
  for (const auto& [uid, pod] : kubelet.pods()) {
    for (const ContainerRuntime& c : pod.containers) {
      ++totals_.containerSteps;
      totals_.cfsPeriods += c.periodsLastTick;
      totals_.cfsThrottledPeriods += c.throttledPeriodsLastTick;
      if (c.lastOomKillAt == now) ++totals_.oomKills;
      if (c.lastTerminated && c.lastTerminated->finishedAt == now) ++totals_.restarts;
      if (auto sample = sampleOf(pod, c, now)) totals_.risk.add(*sample);
    }
  }
}

void RunAccounting::retireNodes(const Kubelet& kubelet) {
  if (nodeCounters_.size() == kubelet.nodes().size() &&
      std::equal(nodeCounters_.begin(), nodeCounters_.end(), kubelet.nodes().begin(),
                 [](const auto& a, const auto& b) { return a.first == b.first; })) {
    for (const auto& [name, node] : kubelet.nodes()) {
      nodeCounters_[name] = {node.psiCpuWaitingSecondsTotal, node.evictionsTotal};
    }
    return;  // the common tick: the same nodes
  }
  for (auto it = nodeCounters_.begin(); it != nodeCounters_.end();) {
    if (kubelet.nodes().contains(it->first)) {
      ++it;
      continue;
    }
    retiredPsiSeconds_ += it->second.first;
    retiredEvictions_ += it->second.second;
    it = nodeCounters_.erase(it);
  }
  for (const auto& [name, node] : kubelet.nodes()) {
    nodeCounters_[name] = {node.psiCpuWaitingSecondsTotal, node.evictionsTotal};
  }
}

void RunAccounting::finish(const ClusterState& state, const Kubelet& kubelet) {
  RunTotals& t = totals_;
  t.psiWaitingSeconds = retiredPsiSeconds_;
  t.kubeletEvictions = retiredEvictions_;
  for (const auto& [name, node] : kubelet.nodes()) {
    t.psiWaitingSeconds += node.psiCpuWaitingSecondsTotal;
    t.kubeletEvictions += node.evictionsTotal;
  }
  // The kubelet evicts through the state too, so evictions() holds its evictions as well.
  t.evictions = std::max<std::uint64_t>(state.evictions().size(), t.kubeletEvictions);
  t.nodes = static_cast<std::int64_t>(state.nodes.list({}).size());
  t.pods = t.containers = t.podsRunning = t.podsPending = t.podsUnschedulable = 0;
  t.podsSucceeded = t.podsFailed = 0;
  for (const api::Pod& pod : state.pods.list({})) {
    ++t.pods;
    t.containers += static_cast<std::int64_t>(pod.spec.containers.size());
    const std::string& phase = pod.status.phase;
    if (phase == "Running") ++t.podsRunning;
    if (phase == "Succeeded") ++t.podsSucceeded;
    if (phase == "Failed") ++t.podsFailed;
    if (phase.empty() || phase == "Pending") ++t.podsPending;
    const api::Condition* scheduled = api::findCondition(pod.status.conditions, "PodScheduled");
    if (scheduled != nullptr && scheduled->status == "False" &&
        scheduled->reason == "Unschedulable") {
      ++t.podsUnschedulable;
    }
  }
}

void ReplicaTrack::add(std::int32_t replicas, Duration dt) {
  const double seconds = std::chrono::duration<double>(dt).count();
  if (!any_) {
    stats_.min = stats_.max = replicas;
    any_ = true;
  }
  stats_.min = std::min(stats_.min, replicas);
  stats_.max = std::max(stats_.max, replicas);
  stats_.final = replicas;
  weighted_ += replicas * seconds;
  seconds_ += seconds;
}

ReplicaStats ReplicaTrack::stats() const {
  ReplicaStats out = stats_;
  out.mean = seconds_ > 0 ? weighted_ / seconds_ : stats_.final;
  return out;
}

Recovery recoveryAfter(const std::vector<ScalingSample>& samples, Time from, Time to) {
  Recovery out;
  if (samples.empty()) return out;
  out.baselineReplicas = samples.front().readyReplicas;
  for (const ScalingSample& s : samples) {
    if (s.at > from) break;
    out.baselineReplicas = s.readyReplicas;
  }
  bool seen = false;
  for (const ScalingSample& s : samples) {
    if (s.at < from) continue;
    out.minReplicas = seen ? std::min(out.minReplicas, s.readyReplicas) : s.readyReplicas;
    seen = true;
    if (s.at < to) continue;
    if (s.at > to) out.cpuShortCoreSeconds += s.cpuShortCoreSeconds;
    if (s.readyReplicas >= out.baselineReplicas) {
      out.timeToRecover = s.at - to;
      break;
    }
  }
  if (!seen) out.minReplicas = out.baselineReplicas;
  return out;
}

}  // namespace attune::sim
