#include "sim/telemetry/recorder.h"

#include "sim/telemetry/series_names.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace attune::sim {
namespace {

// The increase of a counter from `last` to `now`; a decrease is a reset (Prometheus' rule).
double increase(double now, double last) { return now >= last ? now - last : now; }

std::uint32_t increase(std::uint64_t now, std::uint64_t last) {
  const std::uint64_t inc = now >= last ? now - last : now;
  return static_cast<std::uint32_t>(
      std::min<std::uint64_t>(inc, std::numeric_limits<std::uint32_t>::max()));
}

// The controller owner reference of `meta`, else its first one, else nullptr.
const api::OwnerReference* ownerOf(const api::ObjectMeta& meta) {
  if (const api::OwnerReference* ref = meta.controllerRef()) return ref;
  return meta.ownerReferences.empty() ? nullptr : &meta.ownerReferences.front();
}

std::optional<Millicores> millicores(const std::optional<Quantity>& q) {
  return q ? std::optional<Millicores>(q->toMillicores()) : std::nullopt;
}

std::optional<Bytes> bytes(const std::optional<Quantity>& q) {
  return q ? std::optional<Bytes>(q->toBytes()) : std::nullopt;
}

// Drops the samples before tick `keep` from `samples`, passing each dropped one to `fold`.
template <typename Sample, typename Fold>
void dropBefore(std::vector<Sample>& samples, TickId keep, Fold fold) {
  auto end = std::partition_point(samples.begin(), samples.end(),
                                  [&](const Sample& s) { return s.tick < keep; });
  std::for_each(samples.begin(), end, fold);
  samples.erase(samples.begin(), end);
}

}  // namespace

Recorder::Recorder(RecorderOptions options) : options_(options) {}

StringId Recorder::intern(std::string_view s) {
  if (auto it = stringIds_.find(s); it != stringIds_.end()) return it->second;
  const auto id = static_cast<StringId>(strings_.size());
  strings_.emplace_back(s);
  stringIds_.emplace(std::string(s), id);
  return id;
}

TickId Recorder::tickAtOrAfter(Time t) const {
  return firstTick_ +
         static_cast<TickId>(std::lower_bound(ticks_.begin(), ticks_.end(), t) - ticks_.begin());
}

TickId Recorder::tickAfter(Time t) const {
  return firstTick_ +
         static_cast<TickId>(std::upper_bound(ticks_.begin(), ticks_.end(), t) - ticks_.begin());
}

std::size_t Recorder::sampleCount() const {
  std::size_t n = 0;
  for (const auto& c : containers_) n += c.samples.size();
  return n;
}

void Recorder::record(Time now, const ClusterState& state,
                      const std::map<std::string, PodRuntime, std::less<>>& pods,
                      const std::map<std::string, NodeRuntime, std::less<>>& nodes) {
  assert(ticks_.empty() || now > ticks_.back());
  const TickId tick = endTick();
  ticks_.push_back(now);

  // Pod objects are re-read only when something was written since the last record and the
  // kubelet saw a version other than the one last read (or reports none).
  std::string version = state.pods.resourceVersion();
  const bool written = version != lastVersion_;
  lastVersion_ = std::move(version);

  // `pods` and livePods_ are both in uid order: walk them together; live entries skipped over
  // are pods the kubelet no longer runs.
  auto live = livePods_.begin();
  for (const auto& [uid, runtime] : pods) {
    while (live != livePods_.end() && live->first < uid) live = livePods_.erase(live);
    std::uint32_t podIndex = 0;
    if (live != livePods_.end() && live->first == uid) {
      podIndex = live->second;
    } else {
      podIndex = addPod(uid, runtime, tick);
      live = livePods_.emplace_hint(live, uid, podIndex);
    }
    ++live;

    RecordedPod& pod = pods_[podIndex];
    pod.lastTick = tick;
    const api::Pod* object = nullptr;
    if (pod.readVersion.empty() || (written && (runtime.resourceVersion.empty() ||
                                                runtime.resourceVersion != pod.readVersion))) {
      object = state.pods.find(runtime.namespace_, runtime.name);
      if (object != nullptr && object->metadata.uid != uid) object = nullptr;
    }
    if (object != nullptr) {
      pod.readVersion = object->metadata.resourceVersion;
      if (!pod.owner) resolveOwner(podIndex, *object, state);
    }

    for (std::size_t i = 0; i < runtime.containers.size(); ++i) {
      const ContainerRuntime& rt = runtime.containers[i];
      RecordedContainer& c = containers_[containerOf(podIndex, i, rt)];
      if (rt.running) appendSample(c, tick, rt);
      if (rt.lastOomKillAt && rt.lastOomKillAt != c.lastOomAt) {
        c.lastOomAt = rt.lastOomKillAt;
        c.ooms.push_back(OomEvent{*rt.lastOomKillAt, rt.memoryAtLastOomKill});
      }
      if (object != nullptr) observeStatus(c, tick, *object, rt.name);
    }
  }
  livePods_.erase(live, livePods_.end());

  recordNodes(tick, nodes);
  prune(now);
}

std::uint32_t Recorder::addPod(const std::string& uid, const PodRuntime& runtime, TickId tick) {
  RecordedPod pod;
  pod.uid = uid;
  pod.ns = intern(runtime.namespace_);
  pod.name = intern(runtime.name);
  pod.node = intern(runtime.node);
  pod.firstTick = tick;
  pod.lastTick = tick;
  pods_.push_back(std::move(pod));
  return static_cast<std::uint32_t>(pods_.size() - 1);
}

std::uint32_t Recorder::containerOf(std::uint32_t podIndex, std::size_t position,
                                    const ContainerRuntime& runtime) {
  std::vector<std::uint32_t>& ids = pods_[podIndex].containers;
  // Containers keep their positions from tick to tick; fall back to a search by name.
  if (position < ids.size() && strings_[containers_[ids[position]].name] == runtime.name) {
    return ids[position];
  }
  for (std::uint32_t id : ids) {
    if (strings_[containers_[id].name] == runtime.name) return id;
  }
  RecordedContainer c;
  c.pod = podIndex;
  c.name = intern(runtime.name);
  c.sidecar = runtime.sidecar;
  containers_.push_back(std::move(c));
  ids.push_back(static_cast<std::uint32_t>(containers_.size() - 1));
  return ids.back();
}

void Recorder::appendSample(RecordedContainer& c, TickId tick, const ContainerRuntime& rt) {
  const CounterBases now{rt.cpuUsageSecondsTotal, rt.psiCpuWaitingSecondsTotal, rt.cfsPeriodsTotal,
                         rt.cfsThrottledPeriodsTotal};
  ContainerSample s;
  s.tick = tick;
  s.memoryBytes = static_cast<float>(rt.memoryWorkingSet.value());
  if (!c.seenCounters) {
    c.bases = now;
    c.seenCounters = true;
  } else {
    s.cpuSeconds = static_cast<float>(increase(now.cpuSeconds, c.last.cpuSeconds));
    s.psiWaitingSeconds =
        static_cast<float>(increase(now.psiWaitingSeconds, c.last.psiWaitingSeconds));
    s.periods = increase(now.periods, c.last.periods);
    s.throttled = increase(now.throttled, c.last.throttled);
  }
  c.last = now;
  c.samples.push_back(s);
}

void Recorder::resolveOwner(std::uint32_t podIndex, const api::Pod& object,
                            const ClusterState& state) {
  const StringId ns = pods_[podIndex].ns;
  const api::OwnerReference* ref = ownerOf(object.metadata);
  pods_[podIndex].owner = ownerRef(ref);
  if (ref == nullptr) return;
  const api::ObjectMeta* parent = nullptr;
  if (ref->kind == "ReplicaSet") {
    if (const auto* rs = state.replicaSets.find(str(ns), ref->name)) parent = &rs->metadata;
  } else if (ref->kind == "Job") {
    if (const auto* job = state.jobs.find(str(ns), ref->name)) parent = &job->metadata;
  }
  if (parent == nullptr) return;
  const ParentKey key{ns, intern(ref->kind), intern(ref->name)};
  if (parents_.contains(key)) return;
  parents_.emplace(key, ownerRef(ownerOf(*parent)));
}

OwnerRef Recorder::ownerRef(const api::OwnerReference* ref) {
  if (ref == nullptr) return OwnerRef{intern(""), intern(""), false};
  return OwnerRef{intern(ref->kind), intern(ref->name), ref->controller};
}

void Recorder::observeStatus(RecordedContainer& c, TickId tick, const api::Pod& object,
                             std::string_view name) {
  if (const api::ContainerStatus* s = object.status.findContainerStatus(name)) {
    const auto& terminated = s->lastState.terminated;
    const StatusChange* last = c.status.empty() ? nullptr : &c.status.back();
    const bool same = last != nullptr && last->restarts == s->restartCount &&
                      last->lastTerminatedReason.has_value() == terminated.has_value() &&
                      (!terminated || strings_[*last->lastTerminatedReason] == terminated->reason);
    if (!same) {
      c.status.push_back(StatusChange{
          tick, s->restartCount,
          terminated ? std::optional<StringId>(intern(terminated->reason)) : std::nullopt});
    }
  }
  if (const api::Container* spec = object.spec.findContainer(name)) {
    const auto& r = spec->resources;
    auto current = std::tuple(r.requests.cpu, r.limits.cpu, r.requests.memory, r.limits.memory);
    if (c.lastSpecResources != current) {
      c.resources.push_back(ResourcesChange{tick, millicores(r.requests.cpu),
                                            millicores(r.limits.cpu), bytes(r.requests.memory),
                                            bytes(r.limits.memory)});
      c.lastSpecResources = std::move(current);
    }
  }
}

void Recorder::recordNodes(TickId tick,
                           const std::map<std::string, NodeRuntime, std::less<>>& nodes) {
  for (const auto& [name, rt] : nodes) {
    auto it = nodeIndex_.find(name);
    if (it == nodeIndex_.end()) {
      it = nodeIndex_.emplace(name, static_cast<std::uint32_t>(nodes_.size())).first;
      RecordedNode node;
      node.name = intern(name);
      nodes_.push_back(std::move(node));
    }
    RecordedNode& node = nodes_[it->second];
    NodeSample s;
    s.tick = tick;
    s.load1 = static_cast<float>(rt.load1);
    s.memoryBytes = static_cast<float>(rt.memoryWorkingSet.value());
    if (!node.seen) {
      node.cpuSecondsBase = rt.cpuSecondsTotal;
      node.seen = true;
    } else {
      s.cpuSeconds = static_cast<float>(increase(rt.cpuSecondsTotal, node.lastCpuSeconds));
    }
    node.lastCpuSeconds = rt.cpuSecondsTotal;
    node.samples.push_back(s);
  }
}

void Recorder::recordRequests(const std::vector<WorkloadRequests>& requests) {
  if (ticks_.empty()) return;
  for (const WorkloadRequests& w : requests) {
    std::string labels = series::requestLabels(w.namespace_, w.kindLabel, w.name);
    requests_[labels].push_back({endTick() - 1, w.total});
    requestWorkloads_.try_emplace(std::move(labels), w);
  }
}

void Recorder::prune(Time now) {
  const Time cutoff = now - options_.retention;
  // In batches: only once an eighth of the retention (at least one tick) has expired.
  if (ticks_.size() < 2 || ticks_.front() >= cutoff - options_.retention / 8) return;
  const TickId keep = tickAtOrAfter(cutoff);
  for (RecordedContainer& c : containers_) {
    dropBefore(c.samples, keep, [&](const ContainerSample& s) {
      c.bases.cpuSeconds += s.cpuSeconds;
      c.bases.psiWaitingSeconds += s.psiWaitingSeconds;
      c.bases.periods += s.periods;
      c.bases.throttled += s.throttled;
    });
    std::erase_if(c.ooms, [&](const OomEvent& e) { return e.at < cutoff; });
  }
  for (RecordedNode& node : nodes_) {
    dropBefore(node.samples, keep,
               [&](const NodeSample& s) { node.cpuSecondsBase += s.cpuSeconds; });
  }
  ticks_.erase(ticks_.begin(), ticks_.begin() + (keep - firstTick_));
  firstTick_ = keep;
}

}  // namespace attune::sim
