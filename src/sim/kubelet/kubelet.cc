#include "sim/kubelet/kubelet.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "sim/control/conditions.h"
#include "sim/kubelet/pod_status.h"
#include "sim/kubelet/resize_actuator.h"

namespace attune::sim {
namespace {

constexpr Duration kLoadWindow = std::chrono::minutes(1);

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

bool terminalPhase(std::string_view phase) { return phase == "Succeeded" || phase == "Failed"; }

int compareKey(const PodRuntime& rt, const api::ObjectMeta& meta) {
  if (int c = rt.namespace_.compare(meta.namespace_); c != 0) return c;
  return rt.name.compare(meta.name);
}

bool keyLess(const PodRuntime* a, const PodRuntime* b) {
  if (int c = a->namespace_.compare(b->namespace_); c != 0) return c < 0;
  return a->name < b->name;
}

const api::Container* specOf(const api::PodSpec& spec, const ContainerRuntime& c) {
  const auto& list = c.sidecar ? spec.initContainers : spec.containers;
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.name == c.name; });
  return it == list.end() ? nullptr : &*it;
}

const api::ContainerStatus* statusOf(const api::PodStatus& status, const ContainerRuntime& c) {
  const auto& list = c.sidecar ? status.initContainerStatuses : status.containerStatuses;
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.name == c.name; });
  return it == list.end() ? nullptr : &*it;
}

// Copies what the CPU and memory model needs from the resources a container runs with. A limit
// without a request requests the limit, as the API server defaults it.
void applyResources(ContainerRuntime& c, const api::ResourceRequirements& r) {
  const auto& req = r.requests;
  const auto& lim = r.limits;
  c.cpuLimitCores = lim.cpu ? toCores(lim.cpu->toMillicores()) : 0;
  c.cpuRequestCores = req.cpu ? toCores(req.cpu->toMillicores()) : c.cpuLimitCores;
  c.memoryLimit = lim.memory ? lim.memory->toBytes() : Bytes(0);
  c.memoryRequest = req.memory ? req.memory->toBytes() : c.memoryLimit;
}

const api::ResourceRequirements& appliedResources(const api::Container& spec,
                                                  const api::ContainerStatus* status) {
  return status != nullptr && status->resources ? *status->resources : spec.resources;
}

bool resizeOutstanding(const api::Container& spec, const api::ContainerStatus* status) {
  return status != nullptr && status->resources &&
         (status->allocatedResources != spec.resources.requests ||
          *status->resources != spec.resources);
}

// The pod's eviction message, as the kubelet's eviction manager writes it.
std::string evictionMessage(const PodRuntime& pod, Bytes threshold, Bytes available) {
  std::string message =
      "The node was low on resource: memory. Threshold quantity: " + formatMemory(threshold) +
      ", available: " + formatMemory(available) + ". ";
  for (const ContainerRuntime& c : pod.containers) {
    if (c.memoryWorkingSet <= c.memoryRequest) continue;
    message += "Container " + c.name + " was using " + formatMemory(c.memoryWorkingSet) +
               ", request is " + formatMemory(c.memoryRequest) +
               ", has larger consumption of memory. ";
  }
  message.pop_back();
  return message;
}

}  // namespace

Bytes PodRuntime::memoryWorkingSet() const {
  Bytes sum{0};
  for (const auto& c : containers) sum += c.memoryWorkingSet;
  return sum;
}

Bytes PodRuntime::memoryRequest() const {
  Bytes sum{0};
  for (const auto& c : containers) sum += c.memoryRequest;
  return sum;
}

Kubelet::Kubelet(KubeletOptions options, UsageModelProvider models)
    : options_(std::move(options)), models_(std::move(models)) {}

Result<void> Kubelet::tick(ClusterState& state, Time now, Duration dt) {
  assert(dt > Duration::zero());
  sync(state, now);
  for (NodeWork& work : work_) {
    if (!work.runtime->started) continue;
    if (auto ok = actuate(state, work, now); !ok) return ok;
    run(work, now, dt);
    if (auto ok = evict(state, work, now); !ok) return ok;
    for (PodRuntime* pod : work.pods) {
      if (!pod->statusChanged) continue;
      if (auto ok = writePod(state, *pod, now); !ok) return ok;
    }
  }
  syncedVersion_ = resyncNeeded_ ? std::string() : state.pods.resourceVersion();
  resyncNeeded_ = false;
  return {};
}

// --- Syncing with the store ------------------------------------------------------------------

void Kubelet::sync(ClusterState& state, Time now) {
  if (!syncedVersion_.empty() && syncedVersion_ == state.pods.resourceVersion()) return;
  bool membership = syncNodes(state, now);

  // Merge the store (in (namespace, name) order) with order_ (same order).
  std::vector<PodRuntime*>& next = orderScratch_;
  next.clear();
  std::vector<std::pair<std::string, std::string>> starts;
  std::size_t cur = 0;
  state.pods.forEach([&](const api::Pod& pod) {
    while (cur < order_.size() && compareKey(*order_[cur], pod.metadata) < 0) {
      forget(order_[cur++]);
      membership = true;
    }
    if (cur < order_.size() && compareKey(*order_[cur], pod.metadata) == 0) {
      PodRuntime* rt = order_[cur++];
      if (rt->uid == pod.metadata.uid && rt->node == pod.spec.nodeName) {
        if (rt->resourceVersion != pod.metadata.resourceVersion) refresh(*rt, pod, now);
        next.push_back(rt);
        return;
      }
      forget(rt);
      membership = true;
    }
    if (pod.spec.nodeName.empty() || terminalPhase(pod.status.phase) ||
        pod.metadata.deletionTimestamp) {
      return;
    }
    auto node = nodes_.find(pod.spec.nodeName);
    if (node == nodes_.end() || !node->second.started) return;
    starts.emplace_back(pod.metadata.namespace_, pod.metadata.name);
  });
  while (cur < order_.size()) {
    forget(order_[cur++]);
    membership = true;
  }
  std::swap(order_, next);

  for (const auto& [ns, name] : starts) {
    const api::Pod* pod = state.pods.find(ns, name);
    assert(pod != nullptr);
    if (PodRuntime* rt = startPod(state, *pod, now)) {
      order_.push_back(rt);
      membership = true;
    }
  }
  if (!membership) return;

  std::sort(order_.begin(), order_.end(), keyLess);
  for (NodeWork& work : work_) work.pods.clear();
  std::erase_if(order_, [&](PodRuntime* rt) {
    auto it = std::lower_bound(
        work_.begin(), work_.end(), rt->node,
        [](const NodeWork& w, const std::string& name) { return w.runtime->name < name; });
    if (it == work_.end() || it->runtime->name != rt->node) {
      forget(rt);  // its node is gone
      return true;
    }
    it->pods.push_back(rt);
    return false;
  });
}

bool Kubelet::syncNodes(ClusterState& state, Time now) {
  bool same = true;
  std::size_t i = 0;
  state.nodes.forEach([&](const api::Node& node) {
    same = same && i < work_.size() && work_[i].runtime->name == node.metadata.name;
    ++i;
  });
  same = same && i == work_.size();

  if (!same) {
    std::vector<NodeWork> rebuilt;
    std::vector<std::string> created;
    state.nodes.forEach([&](const api::Node& node) {
      auto [it, inserted] = nodes_.try_emplace(node.metadata.name);
      NodeRuntime& rt = it->second;
      if (inserted) {
        rt.name = node.metadata.name;
        auto per = options_.perNode.find(rt.name);
        auto policy = resolveRestartBackoff(per == options_.perNode.end() ? options_.restartBackoff
                                                                          : per->second);
        rt.started = policy.has_value();
        if (policy) {
          rt.restartBackoff = *policy;
        } else {
          rt.startError = "failed to validate kubelet configuration: " + policy.error().toString();
        }
        created.push_back(rt.name);
      }
      rebuilt.push_back(NodeWork{&rt, {}});
    });
    std::erase_if(nodes_, [&](const auto& entry) {
      return std::none_of(rebuilt.begin(), rebuilt.end(),
                          [&](const NodeWork& w) { return w.runtime->name == entry.first; });
    });
    work_ = std::move(rebuilt);
    for (const auto& name : created) (void)writeNode(state, nodes_.find(name)->second, now);
  }

  i = 0;
  state.nodes.forEach([&](const api::Node& node) {
    NodeRuntime& rt = *work_[i++].runtime;
    const auto& alloc = node.status.allocatable;
    const auto& cap = node.status.capacity;
    const auto* cpu = alloc.cpu ? &*alloc.cpu : (cap.cpu ? &*cap.cpu : nullptr);
    const auto* memory = cap.memory ? &*cap.memory : (alloc.memory ? &*alloc.memory : nullptr);
    rt.cpuCapacityCores = cpu != nullptr ? toCores(cpu->toMillicores()) : 0;
    rt.memoryCapacity = memory != nullptr ? memory->toBytes() : Bytes(0);
  });
  return !same;
}

PodRuntime* Kubelet::startPod(ClusterState& state, const api::Pod& pod, Time now) {
  const NodeRuntime& node = nodes_.at(pod.spec.nodeName);
  PodRuntime rt;
  rt.namespace_ = pod.metadata.namespace_;
  rt.name = pod.metadata.name;
  rt.uid = pod.metadata.uid;
  rt.node = pod.spec.nodeName;
  rt.phase = "Running";
  rt.restartPolicy = pod.spec.restartPolicy;
  rt.priority = pod.spec.priority.value_or(0);
  rt.statusChanged = true;

  std::optional<Error> failure;
  auto add = [&](const api::Container& spec, bool sidecar) {
    if (failure) return;
    ContainerRuntime c;
    c.name = spec.name;
    c.sidecar = sidecar;
    if (models_) {
      auto model = models_(pod, spec);
      if (!model) {
        failure = model.error();
        return;
      }
      c.model = std::move(*model);
    }
    c.restarts.emplace(*node.restartBackoff);
    const api::ContainerStatus* status = statusOf(pod.status, c);
    applyResources(c, appliedResources(spec, status));
    c.running = true;
    c.runningSince = now;
    if (status != nullptr) {  // adopting a pod that already runs
      if (status->state.running && status->state.running->startedAt) {
        c.runningSince = std::min(now, *status->state.running->startedAt);
      }
      c.restartCount = status->restartCount;
      c.lastTerminated = status->lastState.terminated;
      c.ready = status->ready;
    }
    rt.containers.push_back(std::move(c));
  };
  for (const auto& c : pod.spec.containers) add(c, false);
  for (const auto& c : pod.spec.initContainers) {
    if (c.isSidecar()) add(c, true);
  }
  for (const ContainerRuntime& c : rt.containers) {
    const api::Container* spec = specOf(pod.spec, c);
    if (spec != nullptr && resizeOutstanding(*spec, statusOf(pod.status, c))) {
      rt.resizeOutstanding = true;
    }
  }
  rt.resourceVersion = pod.metadata.resourceVersion;

  if (failure) {  // `pod` is not used after this write
    const std::string message = failure->toString();
    (void)state.pods.modify(rt.namespace_, rt.name, "", [&](api::Pod& p) {
      p.status.phase = "Failed";
      p.status.reason = "UsageModelError";
      p.status.message = message;
      setCondition(p.status.conditions,
                   api::Condition{"Ready", "False", std::string(kPodFailed), "", {}, 0}, now);
      return Change::kMetadata;
    });
    return nullptr;
  }
  updateReadiness(rt, now);
  auto [it, inserted] = pods_.insert_or_assign(rt.uid, std::move(rt));
  PodRuntime& stored = it->second;
  (void)writePod(state, stored, now);
  return &stored;
}

void Kubelet::refresh(PodRuntime& rt, const api::Pod& pod, Time now) {
  rt.resourceVersion = pod.metadata.resourceVersion;
  rt.priority = pod.spec.priority.value_or(0);
  rt.restartPolicy = pod.spec.restartPolicy;
  if (terminalPhase(pod.status.phase) && !rt.terminal()) {
    rt.phase = pod.status.phase;
    stopAll(rt, now);
  }
  rt.resizeOutstanding = false;
  for (ContainerRuntime& c : rt.containers) {
    const api::Container* spec = specOf(pod.spec, c);
    if (spec == nullptr) continue;
    const api::ContainerStatus* status = statusOf(pod.status, c);
    applyResources(c, appliedResources(*spec, status));
    if (resizeOutstanding(*spec, status)) rt.resizeOutstanding = true;
    if (status == nullptr || status->restartCount <= c.restartCount) continue;
    // Restarted outside the crash loop: a resize with resizePolicy RestartContainer. A running
    // container starts a new run; one waiting to restart keeps waiting (the count still grows).
    c.restartCount = status->restartCount;
    c.lastTerminated = status->lastState.terminated;
    if (c.running) {
      const auto& running = status->state.running;
      c.runningSince = running && running->startedAt ? *running->startedAt : now;
    }
    rt.statusChanged = true;
  }
}

void Kubelet::forget(PodRuntime* pod) { pods_.erase(pod->uid); }

// --- Per node, per tick ----------------------------------------------------------------------

Result<void> Kubelet::actuate(ClusterState& state, NodeWork& work, Time now) {
  if (std::none_of(work.pods.begin(), work.pods.end(),
                   [](const PodRuntime* p) { return p->resizeOutstanding && !p->terminal(); })) {
    return {};  // nothing outstanding: a sync would change nothing
  }
  const ContainerMemoryUsage usage = [this](const api::Pod& pod, std::string_view name) {
    auto it = pods_.find(pod.metadata.uid);
    if (it == pods_.end()) return Bytes(0);
    for (const auto& c : it->second.containers) {
      if (c.name == name) return c.memoryWorkingSet;
    }
    return Bytes(0);
  };
  std::vector<PodName> onNode;
  onNode.reserve(work.pods.size());
  for (const PodRuntime* p : work.pods) onNode.emplace_back(p->namespace_, p->name);
  auto decisions = actuateResizes(state, work.runtime->name, std::move(onNode), now, usage);
  if (!decisions) return std::unexpected(decisions.error());
  for (const ResizeDecision& d : *decisions) {
    const api::Pod* pod = state.pods.find(d.namespace_, d.name);
    if (pod == nullptr) continue;
    auto it = pods_.find(pod->metadata.uid);
    if (it != pods_.end()) refresh(it->second, *pod, now);
  }
  return {};
}

void Kubelet::run(NodeWork& work, Time now, Duration dt) {
  NodeRuntime& node = *work.runtime;
  const Time from = now - dt;
  const double tickSeconds = seconds(dt);
  const double period = seconds(options_.cfsPeriod);
  claims_.clear();
  claimed_.clear();

  // 1. Restarts due, batch exits, demand and working set, CFS quota.
  for (PodRuntime* pod : work.pods) {
    if (pod->terminal()) continue;
    for (ContainerRuntime& c : pod->containers) {
      c.cpuDemandCores = 0;
      c.cpuUsageCores = 0;
      c.periodsLastTick = 0;
      c.throttledPeriodsLastTick = 0;
      c.activeSecondsLastTick = 0;
      if (!c.running) {
        c.memoryWorkingSet = Bytes(0);
        if (!c.restartAt || *c.restartAt > now) continue;
        c.running = true;  // the backoff elapsed: restarted at restartAt
        c.runningSince = *c.restartAt;
        c.restartAt.reset();
        ++c.restartCount;
        pod->statusChanged = true;
      }
      const Time start = std::max(c.runningSince, from);
      if (start >= now) continue;  // (re)started at `now`: runs from the next tick
      const Duration sinceStart = now - c.runningSince;
      if (c.model && c.model->finished(now, sinceStart)) {
        c.memoryWorkingSet = Bytes(0);
        exit(*pod, c, now, kCompleted, 0);
        continue;
      }
      const Usage usage = c.model ? c.model->usage(now, sinceStart) : Usage{};
      c.activeSecondsLastTick = seconds(now - start);
      c.cpuDemandCores = usage.cpuCores;
      c.memoryWorkingSet = usage.memory;
      const CfsTick cfs = cfsThrottle(usage.cpuCores, c.cpuLimitCores, c.activeSecondsLastTick,
                                      period, options_.cpuBurstiness);
      c.periodsLastTick = cfs.periods;
      c.throttledPeriodsLastTick = cfs.throttledPeriods;
      c.cfsPeriodsTotal += cfs.periods;
      c.cfsThrottledPeriodsTotal += cfs.throttledPeriods;
      c.cfsThrottledSecondsTotal += cfs.throttledSeconds;
      claims_.push_back(CpuClaim{
          cfs.usageCores,
          cpuShares(Millicores(static_cast<std::int64_t>(std::llround(c.cpuRequestCores * 1000)))),
          0});
      claimed_.push_back(&c);
    }
  }

  // 2. Node contention, then the counters.
  shareCpu(claims_, node.cpuCapacityCores, shareScratch_);
  double demand = 0;
  double usage = 0;
  for (std::size_t i = 0; i < claimed_.size(); ++i) {
    ContainerRuntime& c = *claimed_[i];
    c.cpuUsageCores = claims_[i].gotCores;
    const double active = c.activeSecondsLastTick;
    const double waiting = std::max(0.0, c.cpuDemandCores - c.cpuUsageCores) * active;
    c.cpuUsageSecondsTotal += c.cpuUsageCores * active;
    c.psiCpuWaitingSecondsTotal += waiting;
    node.cpuSecondsTotal += c.cpuUsageCores * active;
    node.psiCpuWaitingSecondsTotal += waiting;
    demand += c.cpuDemandCores * active;
    usage += c.cpuUsageCores * active;
  }
  node.cpuDemandCores = demand / tickSeconds;
  node.cpuUsageCores = usage / tickSeconds;
  const double decay = std::exp(-tickSeconds / seconds(kLoadWindow));
  node.load1 = node.load1 * decay + node.cpuDemandCores * (1 - decay);

  // 3. OOM kills at the memory limit, pod completion, readiness.
  Bytes workingSet{0};
  for (PodRuntime* pod : work.pods) {
    if (pod->terminal()) continue;
    for (ContainerRuntime& c : pod->containers) {
      if (c.running && c.activeSecondsLastTick > 0 && c.memoryLimit > Bytes(0) &&
          c.memoryWorkingSet > c.memoryLimit) {
        ++c.oomKillsTotal;
        c.lastOomKillAt = now;
        c.memoryAtLastOomKill = c.memoryWorkingSet;
        c.memoryWorkingSet = Bytes(0);
        exit(*pod, c, now, kOomKilled, kOomKilledExitCode);
      }
      workingSet += c.memoryWorkingSet;
    }
    if (pod->statusChanged) finishPod(*pod, now);
    updateReadiness(*pod, now);
  }
  node.memoryWorkingSet = workingSet;
}

void Kubelet::exit(PodRuntime& pod, ContainerRuntime& c, Time now, std::string_view reason,
                   int code) {
  api::ContainerStateTerminated exit{code, std::string(reason), "", c.runningSince, now};
  c.running = false;
  c.ready = false;
  pod.statusChanged = true;
  const std::string& restartPolicy = pod.restartPolicy;
  const bool restart = c.sidecar || restartPolicy.empty() || restartPolicy == "Always" ||
                       (restartPolicy == "OnFailure" && code != 0);
  if (!restart) {
    c.completed = code == 0;
    c.terminated = std::move(exit);
    return;
  }
  assert(c.restarts.has_value());
  c.restartAt = c.restarts->exited(ContainerExit{c.runningSince, now, std::string(reason), code});
  c.lastTerminated = std::move(exit);
}

void Kubelet::finishPod(PodRuntime& pod, Time now) {
  bool any = false;
  bool failed = false;
  for (const ContainerRuntime& c : pod.containers) {
    if (c.sidecar) continue;
    any = true;
    if (!c.terminated) return;  // still running or going to restart
    failed = failed || c.terminated->exitCode != 0;
  }
  if (!any) return;
  pod.phase = failed ? "Failed" : "Succeeded";
  stopAll(pod, now);
}

void Kubelet::stopAll(PodRuntime& pod, Time now) {
  for (ContainerRuntime& c : pod.containers) {
    if (c.running) {
      c.terminated =
          api::ContainerStateTerminated{0, std::string(kCompleted), "", c.runningSince, now};
      c.completed = true;
    } else if (!c.terminated) {
      c.terminated = c.lastTerminated;  // was waiting to restart: stays as it last exited
    }
    c.running = false;
    c.ready = false;
    c.restartAt.reset();
    c.memoryWorkingSet = Bytes(0);
    c.cpuDemandCores = 0;
    c.cpuUsageCores = 0;
  }
  pod.ready = false;
  pod.statusChanged = true;
}

void Kubelet::updateReadiness(PodRuntime& pod, Time now) {
  bool all = !pod.terminal();
  for (ContainerRuntime& c : pod.containers) {
    bool ready = c.running && now - c.runningSince >= options_.startupDuration;
    if (ready && options_.notReadyAboveThrottleRatio) {
      ready = c.throttleRatioLastTick() <= *options_.notReadyAboveThrottleRatio;
    }
    if (ready != c.ready) {
      c.ready = ready;
      pod.statusChanged = true;
    }
    all = all && ready;
  }
  if (all != pod.ready) {
    pod.ready = all;
    pod.statusChanged = true;
  }
}

Result<void> Kubelet::evict(ClusterState& state, NodeWork& work, Time now) {
  NodeRuntime& node = *work.runtime;
  if (node.memoryCapacity <= Bytes(0)) return {};
  node.memoryAvailable = node.memoryCapacity - node.memoryWorkingSet;
  const bool pressure = node.memoryAvailable < options_.evictionMemoryAvailable;
  if (pressure != node.memoryPressure) {
    node.memoryPressure = pressure;
    if (auto ok = writeNode(state, node, now); !ok) return ok;
  }
  if (!pressure) return {};

  // The kubelet's ranking: usage above requests first, then lower priority, then the larger
  // usage above requests; ties in (namespace, name) order.
  PodRuntime* victim = nullptr;
  bool victimAbove = false;
  Bytes victimExcess{0};
  for (PodRuntime* pod : work.pods) {
    if (pod->terminal()) continue;
    const Bytes excess = pod->memoryWorkingSet() - pod->memoryRequest();
    const bool above = excess > Bytes(0);
    bool better = victim == nullptr;
    if (!better && above != victimAbove) better = above;
    if (!better && above == victimAbove && pod->priority != victim->priority) {
      better = pod->priority < victim->priority;
    } else if (!better && above == victimAbove) {
      better = excess > victimExcess;
    }
    if (better) {
      victim = pod;
      victimAbove = above;
      victimExcess = excess;
    }
  }
  if (victim == nullptr) return {};

  const Bytes freed = victim->memoryWorkingSet();
  victim->phase = "Failed";
  victim->reason = std::string(kEvicted);
  victim->message =
      evictionMessage(*victim, options_.evictionMemoryAvailable, node.memoryAvailable);
  for (ContainerRuntime& c : victim->containers) {
    if (c.running) {  // killed: SIGKILL's exit code
      c.terminated =
          api::ContainerStateTerminated{kOomKilledExitCode, "Error", "", c.runningSince, now};
      c.running = false;
    }
  }
  stopAll(*victim, now);
  if (auto ok = writePod(state, *victim, now); !ok) return ok;
  if (auto ok = state.evictPod(victim->namespace_, victim->name); !ok) return ok;
  resyncNeeded_ = true;
  ++node.evictionsTotal;
  node.memoryWorkingSet -= freed;
  node.memoryAvailable += freed;
  return {};
}

// --- Writes ----------------------------------------------------------------------------------

Result<void> Kubelet::writeNode(ClusterState& state, NodeRuntime& node, Time now) {
  auto written = state.nodes.modify("", node.name, "", [&](api::Node& n) -> Result<Change> {
    auto& conditions = n.status.conditions;
    bool changed = false;
    if (!node.started) {
      changed = setCondition(
          conditions,
          api::Condition{"Ready", "False", "KubeletConfigInvalid", node.startError, {}, 0}, now);
    } else {
      if (api::findCondition(conditions, "Ready") == nullptr) {
        changed = setCondition(
            conditions,
            api::Condition{
                "Ready", "True", "KubeletReady", "kubelet is posting ready status", {}, 0},
            now);
      }
      api::Condition memory = node.memoryPressure
                                  ? api::Condition{"MemoryPressure",
                                                   "True",
                                                   "KubeletHasInsufficientMemory",
                                                   "kubelet has insufficient memory available",
                                                   {},
                                                   0}
                                  : api::Condition{"MemoryPressure",
                                                   "False",
                                                   "KubeletHasSufficientMemory",
                                                   "kubelet has sufficient memory available",
                                                   {},
                                                   0};
      changed = setCondition(conditions, std::move(memory), now) || changed;
    }
    return changed ? Change::kMetadata : Change::kNone;
  });
  if (!written) return std::unexpected(written.error());
  return {};
}

Result<void> Kubelet::writePod(ClusterState& state, PodRuntime& pod, Time now) {
  bool synced = false;
  auto written =
      state.pods.modify(pod.namespace_, pod.name, "", [&](api::Pod& p) -> Result<Change> {
        if (p.metadata.uid != pod.uid) return Change::kNone;
        synced = p.metadata.resourceVersion == pod.resourceVersion;
        return renderPodStatus(p, pod, now) ? Change::kMetadata : Change::kNone;
      });
  if (!written) return std::unexpected(written.error());
  pod.statusChanged = false;
  if (synced) {
    pod.resourceVersion = written->metadata.resourceVersion;
  } else if (written->metadata.uid == pod.uid) {
    refresh(pod, *written, now);
  }
  return {};
}

}  // namespace attune::sim
