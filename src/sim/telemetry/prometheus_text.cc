#include "sim/telemetry/prometheus_text.h"

#include <algorithm>
#include <vector>

#include "metrics/exposition/text_format.h"
#include "sim/telemetry/series_names.h"

namespace attune::sim {
namespace {

// Sample lines per family, rendered in family-name order with sorted lines.
class Families {
 public:
  void add(const series::Family& f, const std::string& labels, double value) {
    auto& [family, lines] = families_[f.name];
    family = &f;
    lines.push_back(f.sampleName() + labels + ' ' + metrics::formatSampleValue(value) + '\n');
  }

  std::string render() {
    std::string out;
    for (auto& [name, entry] : families_) {
      auto& [family, lines] = entry;
      std::ranges::sort(lines);
      metrics::appendFamilyHeader(out, family->sampleName(), family->help, family->type);
      for (const std::string& line : lines) out += line;
    }
    return out;
  }

 private:
  std::map<std::string_view, std::pair<const series::Family*, std::vector<std::string>>> families_;
};

void addOwners(Families& out, const series::Family& f, std::string_view objectLabel,
               const api::ObjectMeta& meta, std::string_view uid) {
  if (meta.ownerReferences.empty()) {
    out.add(f, series::ownerLabels(objectLabel, meta.namespace_, meta.name, uid, "", "", false), 1);
  }
  for (const api::OwnerReference& ref : meta.ownerReferences) {
    out.add(f,
            series::ownerLabels(objectLabel, meta.namespace_, meta.name, uid, ref.kind, ref.name,
                                ref.controller),
            1);
  }
}

void addPod(Families& out, const api::Pod& pod) {
  const api::ObjectMeta& meta = pod.metadata;
  addOwners(out, series::kPodOwner, "pod", meta, meta.uid);
  for (const api::ContainerStatus& s : pod.status.containerStatuses) {
    const std::string labels = series::labelSet({{"container", s.name},
                                                 {"namespace", meta.namespace_},
                                                 {"pod", meta.name},
                                                 {"uid", meta.uid}});
    out.add(series::kRestarts, labels, s.restartCount);
    if (const auto& terminated = s.lastState.terminated) {
      out.add(series::kLastTerminatedReason,
              series::labelSet({{"container", s.name},
                                {"namespace", meta.namespace_},
                                {"pod", meta.name},
                                {"reason", terminated->reason},
                                {"uid", meta.uid}}),
              1);
    }
  }
  for (const api::Container& c : pod.spec.containers) {
    const auto add = [&](const series::Family& f, std::string_view resource,
                         const std::optional<Quantity>& q) {
      if (!q) return;
      out.add(f,
              series::labelSet({{"container", c.name},
                                {"namespace", meta.namespace_},
                                {"node", pod.spec.nodeName},
                                {"pod", meta.name},
                                {"resource", resource},
                                {"uid", meta.uid},
                                {"unit", series::unitOf(resource)}}),
              series::valueOf(*q));
    };
    add(series::kResourceRequests, "cpu", c.resources.requests.cpu);
    add(series::kResourceRequests, "memory", c.resources.requests.memory);
    add(series::kResourceLimits, "cpu", c.resources.limits.cpu);
    add(series::kResourceLimits, "memory", c.resources.limits.memory);
  }
}

void addNode(Families& out, const api::Node& node) {
  api::ResourceList capacity = node.status.capacity;
  if (!capacity.cpu) capacity.cpu = node.status.allocatable.cpu;
  if (!capacity.memory) capacity.memory = node.status.allocatable.memory;
  capacity.forEach([&](std::string_view resource, const Quantity& q) {
    out.add(series::kNodeCapacity,
            series::labelSet({{"node", node.metadata.name},
                              {"resource", resource},
                              {"unit", series::unitOf(resource)}}),
            series::valueOf(q));
  });
}

}  // namespace

std::string renderPrometheusText(const ClusterState& state,
                                 const std::map<std::string, PodRuntime, std::less<>>& pods,
                                 const std::map<std::string, NodeRuntime, std::less<>>& nodes,
                                 const std::vector<WorkloadRequests>& requests) {
  Families out;
  for (const WorkloadRequests& w : requests) {
    out.add(series::kHttpRequests, series::requestLabels(w.namespace_, w.kindLabel, w.name),
            w.total);
  }
  for (const auto& [uid, pod] : pods) {
    for (const ContainerRuntime& c : pod.containers) {
      if (!c.running) continue;
      const std::string labels =
          series::cadvisorLabels(pod.namespace_, pod.name, c.name, pod.node, pod.uid);
      out.add(series::kCpuUsage, labels, c.cpuUsageSecondsTotal);
      out.add(series::kCfsPeriods, labels, static_cast<double>(c.cfsPeriodsTotal));
      out.add(series::kCfsThrottledPeriods, labels,
              static_cast<double>(c.cfsThrottledPeriodsTotal));
      out.add(series::kPressureCpuWaiting, labels, c.psiCpuWaitingSecondsTotal);
      out.add(series::kMemoryWorkingSet, labels, static_cast<double>(c.memoryWorkingSet.value()));
    }
  }
  state.pods.forEach([&](const api::Pod& pod) { addPod(out, pod); });
  state.replicaSets.forEach([&](const api::ReplicaSet& rs) {
    addOwners(out, series::kReplicaSetOwner, "replicaset", rs.metadata, "");
  });
  state.jobs.forEach([&](const api::Job& job) {
    addOwners(out, series::kJobOwner, "job_name", job.metadata, "");
  });
  state.nodes.forEach([&](const api::Node& node) { addNode(out, node); });
  for (const auto& [name, node] : nodes) {
    const std::string labels = series::labelSet({{"node", name}});
    out.add(series::kNodeCpuUsage, labels, node.cpuSecondsTotal);
    out.add(series::kNodeLoad1, series::labelSet({{"instance", name + ":9100"}, {"node", name}}),
            node.load1);
    out.add(series::kNodeMemoryWorkingSet, labels,
            static_cast<double>(node.memoryWorkingSet.value()));
  }
  return out.render();
}

}  // namespace attune::sim
