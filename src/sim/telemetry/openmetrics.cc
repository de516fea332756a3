#include "sim/telemetry/openmetrics.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "metrics/exposition/text_format.h"
#include "sim/telemetry/series_names.h"

namespace attune::sim {
namespace {

// Buffers the text and writes each family's HELP and TYPE before its first sample.
class Writer {
 public:
  explicit Writer(std::ostream& out) : out_(out) {}

  void family(const series::Family& f) {
    family_ = &f;
    header_ = false;
    sampleName_ = f.sampleName();
  }
  // Starts a series; `labels` is its `{...}` text.
  void series(const std::string& labels) { prefix_ = sampleName_ + labels + ' '; }
  void sample(double value, Time t) {
    if (!header_) {
      buffer_ += "# HELP ";
      buffer_ += family_->name;
      buffer_ += ' ';
      buffer_ += metrics::escapeHelp(family_->help);
      buffer_ += "\n# TYPE ";
      buffer_ += family_->name;
      buffer_ += ' ';
      buffer_ += family_->type;
      buffer_ += '\n';
      header_ = true;
    }
    buffer_ += prefix_;
    buffer_ += metrics::formatSampleValue(value);
    buffer_ += ' ';
    buffer_ += series::timestamp(t);
    buffer_ += '\n';
    if (buffer_.size() >= kFlushAt) flush();
  }
  void finish() {
    buffer_ += "# EOF\n";
    flush();
  }

 private:
  static constexpr std::size_t kFlushAt = 1 << 16;
  void flush() {
    out_.write(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    buffer_.clear();
  }

  std::ostream& out_;
  const series::Family* family_ = nullptr;
  bool header_ = false;
  std::string sampleName_;
  std::string prefix_;
  std::string buffer_;
};

// A series to write: its label text and what it is about; sorted by label text.
template <typename T>
struct Keyed {
  std::string labels;
  T item;
};

template <typename T>
void sortByLabels(std::vector<Keyed<T>>& v) {
  std::ranges::sort(v, [](const Keyed<T>& a, const Keyed<T>& b) { return a.labels < b.labels; });
}

class Dump {
 public:
  Dump(std::ostream& out, const Recorder& r, const ClusterState& state)
      : w_(out), r_(r), state_(state) {}

  void run() {
    cadvisor();
    requests();
    jobOwners();
    nodeCapacity();
    resources(series::kResourceLimits, true);
    resources(series::kResourceRequests, false);
    lastTerminatedReasons();
    restarts();
    podOwners();
    replicaSetOwners();
    nodes();
    w_.finish();
  }

 private:
  std::string_view s(StringId id) const { return r_.str(id); }
  const RecordedPod& podOf(const RecordedContainer& c) const { return r_.pods()[c.pod]; }

  // Calls fn(tick) for each retained tick in [first, last].
  void forTicks(TickId first, TickId last, const std::function<void(TickId)>& fn) const {
    const TickId from = std::max(first, r_.firstTick());
    const TickId to = std::min<TickId>(last + 1, r_.endTick());
    for (TickId t = from; t < to; ++t) fn(t);
  }

  // Regular containers, each with its kube-state-metrics container labels plus `extra`.
  std::string ksmContainerLabels(const RecordedContainer& c) const {
    const RecordedPod& pod = podOf(c);
    return series::labelSet({{"container", s(c.name)},
                             {"namespace", s(pod.ns)},
                             {"pod", s(pod.name)},
                             {"uid", pod.uid}});
  }

  void cadvisor() {
    std::vector<Keyed<const RecordedContainer*>> order;
    for (const RecordedContainer& c : r_.containers()) {
      if (c.samples.empty()) continue;
      const RecordedPod& pod = podOf(c);
      order.push_back(
          {series::cadvisorLabels(s(pod.ns), s(pod.name), s(c.name), s(pod.node), pod.uid), &c});
    }
    sortByLabels(order);
    const auto counter = [&](const series::Family& f, auto base, auto increase) {
      w_.family(f);
      for (const auto& [labels, c] : order) {
        w_.series(labels);
        auto value = base(*c);
        for (const ContainerSample& sample : c->samples) {
          value += increase(sample);
          w_.sample(static_cast<double>(value), r_.tickTime(sample.tick));
        }
      }
    };
    counter(
        series::kCfsPeriods, [](const RecordedContainer& c) { return c.bases.periods; },
        [](const ContainerSample& x) { return std::uint64_t{x.periods}; });
    counter(
        series::kCfsThrottledPeriods, [](const RecordedContainer& c) { return c.bases.throttled; },
        [](const ContainerSample& x) { return std::uint64_t{x.throttled}; });
    counter(
        series::kCpuUsage, [](const RecordedContainer& c) { return c.bases.cpuSeconds; },
        [](const ContainerSample& x) { return static_cast<double>(x.cpuSeconds); });
    w_.family(series::kMemoryWorkingSet);
    for (const auto& [labels, c] : order) {
      w_.series(labels);
      for (const ContainerSample& x : c->samples) w_.sample(x.memoryBytes, r_.tickTime(x.tick));
    }
    counter(
        series::kPressureCpuWaiting,
        [](const RecordedContainer& c) { return c.bases.psiWaitingSeconds; },
        [](const ContainerSample& x) { return static_cast<double>(x.psiWaitingSeconds); });
  }

  // Calls fn(tick, change) for each tick its pod ran from the first change of `log` on, with
  // the change in effect at that tick.
  template <typename Change, typename Fn>
  void forChanges(const RecordedContainer& c, const std::vector<Change>& log, Fn fn) const {
    if (log.empty()) return;
    const RecordedPod& pod = podOf(c);
    std::size_t i = 0;
    forTicks(std::max(pod.firstTick, log.front().tick), pod.lastTick, [&](TickId t) {
      while (i + 1 < log.size() && log[i + 1].tick <= t) ++i;
      fn(t, log[i]);
    });
  }

  void resources(const series::Family& f, bool limits) {
    struct Item {
      const RecordedContainer* c;
      bool cpu;
    };
    std::vector<Keyed<Item>> order;
    for (const RecordedContainer& c : r_.containers()) {
      if (c.sidecar || c.resources.empty()) continue;
      const RecordedPod& pod = podOf(c);
      for (const bool cpu : {true, false}) {
        const std::string_view resource = cpu ? "cpu" : "memory";
        order.push_back({series::labelSet({{"container", s(c.name)},
                                           {"namespace", s(pod.ns)},
                                           {"node", s(pod.node)},
                                           {"pod", s(pod.name)},
                                           {"resource", resource},
                                           {"uid", pod.uid},
                                           {"unit", series::unitOf(resource)}}),
                         Item{&c, cpu}});
      }
    }
    sortByLabels(order);
    w_.family(f);
    for (const auto& [labels, item] : order) {
      w_.series(labels);
      forChanges(*item.c, item.c->resources, [&](TickId t, const ResourcesChange& r) {
        std::optional<double> value;
        if (item.cpu) {
          const auto& cpu = limits ? r.cpuLimit : r.cpuRequest;
          if (cpu) value = toCores(*cpu);
        } else {
          const auto& memory = limits ? r.memoryLimit : r.memoryRequest;
          if (memory) value = static_cast<double>(memory->value());
        }
        if (value) w_.sample(*value, r_.tickTime(t));
      });
    }
  }

  void lastTerminatedReasons() {
    struct Item {
      const RecordedContainer* c;
      StringId reason;
    };
    std::vector<Keyed<Item>> order;
    for (const RecordedContainer& c : r_.containers()) {
      if (c.sidecar) continue;
      std::vector<StringId> reasons;
      for (const StatusChange& change : c.status) {
        if (change.lastTerminatedReason) reasons.push_back(*change.lastTerminatedReason);
      }
      std::ranges::sort(reasons);
      reasons.erase(std::unique(reasons.begin(), reasons.end()), reasons.end());
      const RecordedPod& pod = podOf(c);
      for (StringId reason : reasons) {
        order.push_back({series::labelSet({{"container", s(c.name)},
                                           {"namespace", s(pod.ns)},
                                           {"pod", s(pod.name)},
                                           {"reason", s(reason)},
                                           {"uid", pod.uid}}),
                         Item{&c, reason}});
      }
    }
    sortByLabels(order);
    w_.family(series::kLastTerminatedReason);
    for (const auto& [labels, item] : order) {
      w_.series(labels);
      forChanges(*item.c, item.c->status, [&](TickId t, const StatusChange& change) {
        if (change.lastTerminatedReason == item.reason) w_.sample(1, r_.tickTime(t));
      });
    }
  }

  void restarts() {
    std::vector<Keyed<const RecordedContainer*>> order;
    for (const RecordedContainer& c : r_.containers()) {
      if (!c.sidecar && !c.status.empty()) order.push_back({ksmContainerLabels(c), &c});
    }
    sortByLabels(order);
    w_.family(series::kRestarts);
    for (const auto& [labels, c] : order) {
      w_.series(labels);
      forChanges(*c, c->status, [&](TickId t, const StatusChange& change) {
        w_.sample(change.restarts, r_.tickTime(t));
      });
    }
  }

  void podOwners() {
    std::vector<Keyed<const RecordedPod*>> order;
    for (const RecordedPod& pod : r_.pods()) {
      if (!pod.owner) continue;
      order.push_back(
          {series::ownerLabels("pod", s(pod.ns), s(pod.name), pod.uid, s(pod.owner->kind),
                               s(pod.owner->name), pod.owner->controller),
           &pod});
    }
    sortByLabels(order);
    w_.family(series::kPodOwner);
    for (const auto& [labels, pod] : order) {
      w_.series(labels);
      forTicks(pod->firstTick, pod->lastTick, [&](TickId t) { w_.sample(1, r_.tickTime(t)); });
    }
  }

  // kube_replicaset_owner or kube_job_owner: each recorded parent of kind `kind`, over the
  // ticks of the pods it owns.
  void parentOwners(const series::Family& f, std::string_view kind, std::string_view label) {
    std::map<ParentKey, std::pair<TickId, TickId>> spans;
    for (const RecordedPod& pod : r_.pods()) {
      if (!pod.owner || s(pod.owner->kind) != kind) continue;
      const ParentKey key{pod.ns, pod.owner->kind, pod.owner->name};
      auto [it, inserted] = spans.try_emplace(key, pod.firstTick, pod.lastTick);
      it->second.first = std::min(it->second.first, pod.firstTick);
      it->second.second = std::max(it->second.second, pod.lastTick);
    }
    std::vector<Keyed<std::pair<TickId, TickId>>> order;
    for (const auto& [key, owner] : r_.parents()) {
      const auto span = spans.find(key);
      if (span == spans.end()) continue;
      const auto& [ns, parentKind, name] = key;
      order.push_back({series::ownerLabels(label, s(ns), s(name), "", s(owner.kind), s(owner.name),
                                           owner.controller),
                       span->second});
    }
    sortByLabels(order);
    w_.family(f);
    for (const auto& [labels, span] : order) {
      w_.series(labels);
      forTicks(span.first, span.second, [&](TickId t) { w_.sample(1, r_.tickTime(t)); });
    }
  }
  void requests() {
    if (r_.requests().empty()) return;
    w_.family(series::kHttpRequests);
    for (const auto& [labels, samples] : r_.requests()) {
      w_.series(labels);
      for (const RequestSample& x : samples) {
        if (x.tick >= r_.firstTick()) w_.sample(x.total, r_.tickTime(x.tick));
      }
    }
  }
  void jobOwners() { parentOwners(series::kJobOwner, "Job", "job_name"); }
  void replicaSetOwners() { parentOwners(series::kReplicaSetOwner, "ReplicaSet", "replicaset"); }

  std::vector<Keyed<const RecordedNode*>> nodeOrder(bool withInstance) const {
    std::vector<Keyed<const RecordedNode*>> order;
    for (const RecordedNode& node : r_.nodes()) {
      if (node.samples.empty()) continue;
      const std::string instance = std::string(s(node.name)) + ":9100";
      order.push_back({withInstance
                           ? series::labelSet({{"instance", instance}, {"node", s(node.name)}})
                           : series::labelSet({{"node", s(node.name)}}),
                       &node});
    }
    sortByLabels(order);
    return order;
  }

  void nodeCapacity() {
    std::map<std::string_view, const RecordedNode*> recorded;
    for (const RecordedNode& node : r_.nodes()) {
      if (!node.samples.empty()) recorded.emplace(s(node.name), &node);
    }
    std::vector<Keyed<std::pair<const RecordedNode*, double>>> order;
    state_.nodes.forEach([&](const api::Node& node) {
      const auto it = recorded.find(node.metadata.name);
      if (it == recorded.end()) return;
      api::ResourceList capacity = node.status.capacity;
      if (!capacity.cpu) capacity.cpu = node.status.allocatable.cpu;
      if (!capacity.memory) capacity.memory = node.status.allocatable.memory;
      capacity.forEach([&](std::string_view resource, const Quantity& q) {
        order.push_back({series::labelSet({{"node", node.metadata.name},
                                           {"resource", resource},
                                           {"unit", series::unitOf(resource)}}),
                         {it->second, series::valueOf(q)}});
      });
    });
    sortByLabels(order);
    w_.family(series::kNodeCapacity);
    for (const auto& [labels, item] : order) {
      w_.series(labels);
      for (const NodeSample& x : item.first->samples) w_.sample(item.second, r_.tickTime(x.tick));
    }
  }

  void nodes() {
    const auto plain = nodeOrder(false);
    w_.family(series::kNodeCpuUsage);
    for (const auto& [labels, node] : plain) {
      w_.series(labels);
      double value = node->cpuSecondsBase;
      for (const NodeSample& x : node->samples) {
        value += x.cpuSeconds;
        w_.sample(value, r_.tickTime(x.tick));
      }
    }
    w_.family(series::kNodeLoad1);
    for (const auto& [labels, node] : nodeOrder(true)) {
      w_.series(labels);
      for (const NodeSample& x : node->samples) w_.sample(x.load1, r_.tickTime(x.tick));
    }
    w_.family(series::kNodeMemoryWorkingSet);
    for (const auto& [labels, node] : plain) {
      w_.series(labels);
      for (const NodeSample& x : node->samples) w_.sample(x.memoryBytes, r_.tickTime(x.tick));
    }
  }

  Writer w_;
  const Recorder& r_;
  const ClusterState& state_;
};

}  // namespace

Result<void> writeOpenMetrics(std::ostream& out, const Recorder& recorder,
                              const ClusterState& state) {
  Dump(out, recorder, state).run();
  out.flush();
  if (!out) return fail(ErrorCode::kInternal, "writing the OpenMetrics text failed");
  return {};
}

}  // namespace attune::sim
