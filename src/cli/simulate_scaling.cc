#include "cli/simulate_scaling.h"

#include <algorithm>
#include <chrono>

namespace attune::cli {
namespace {

// The scale target's spec.replicas; nullopt when the target is not found.
std::optional<std::int32_t> targetReplicas(const sim::ClusterState& state,
                                           const api::HorizontalPodAutoscaler& hpa) {
  const std::string& ns = hpa.metadata.namespace_;
  const api::ScaleTargetRef& ref = hpa.spec.scaleTargetRef;
  const api::WorkloadSpec* spec = nullptr;
  if (ref.kind == "Deployment") {
    if (const auto* d = state.deployments.find(ns, ref.name)) spec = &d->spec;
  } else if (ref.kind == "StatefulSet") {
    if (const auto* s = state.statefulSets.find(ns, ref.name)) spec = &s->spec;
  } else if (ref.kind == "ReplicaSet") {
    if (const auto* r = state.replicaSets.find(ns, ref.name)) spec = &r->spec;
  }
  if (spec == nullptr) return std::nullopt;
  return spec->replicas.value_or(1);
}

std::string nameOf(const api::WorkloadRef& w) { return w.ns + "/" + w.kind + "/" + w.name; }

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

bool hasScaling(const sim::Scenario& scenario) {
  if (!scenario.hpas.empty()) return true;
  return std::ranges::any_of(scenario.workloads, [](const sim::WorkloadScenario& w) {
    return std::ranges::any_of(
        w.containers, [](const sim::ContainerScenario& c) { return !c.model.rateChanges.empty(); });
  });
}

ScalingMeter::ScalingMeter(const sim::Scenario& scenario) : start_(scenario.start) {
  for (const sim::WorkloadScenario& w : scenario.workloads) {
    const sim::ContainerScenario* first = nullptr;
    for (const sim::ContainerScenario& c : w.containers) {
      if (c.model.kind == "service" && (first == nullptr || c.name < first->name)) first = &c;
    }
    if (first == nullptr) continue;
    const api::WorkloadRef ref{w.namespace_, std::string(api::kindName(w.kind)), w.name};
    for (const sim::RateChange& change : first->model.rateChanges) {
      changes_.push_back({ref, change.from, change.to});
      tick_[ref];
    }
  }
}

void ScalingMeter::addPod(const api::WorkloadRef& workload, const sim::PodRuntime& pod,
                          double seconds) {
  if (pod.terminal()) return;
  podSeconds_[workload] += seconds;
  auto tracked = tick_.find(workload);
  if (tracked == tick_.end()) return;
  if (pod.ready) ++tracked->second.readyReplicas;
  for (const sim::ContainerRuntime& c : pod.containers) {
    tracked->second.cpuShortCoreSeconds +=
        std::max(0.0, c.cpuDemandCores - c.cpuUsageCores) * seconds;
  }
}

void ScalingMeter::endTick(const sim::ClusterState& state, Time now, Duration dt) {
  for (auto& [workload, sample] : tick_) {
    sample.at = now;
    samples_[workload].push_back(sample);
    sample = {};
  }
  for (const api::HorizontalPodAutoscaler& hpa : state.hpas.list({})) {
    if (auto replicas = targetReplicas(state, hpa)) {
      hpas_[{hpa.metadata.namespace_, hpa.metadata.name}].add(*replicas, dt);
    }
  }
}

report::ScalingSummary ScalingMeter::finish(const sim::ClusterState& state,
                                            double cpuShortCoreSeconds) const {
  report::ScalingSummary out;
  out.cpuShortCoreSeconds = cpuShortCoreSeconds;
  for (const auto& [workload, podSeconds] : podSeconds_) {
    out.podHours += podSeconds / 3600;
    out.workloads.push_back({.workload = nameOf(workload), .podHours = podSeconds / 3600});
  }
  for (const auto& [key, track] : hpas_) {
    const api::HorizontalPodAutoscaler* hpa = state.hpas.find(key.first, key.second);
    if (hpa == nullptr) continue;
    const sim::ReplicaStats stats = track.stats();
    const api::ScaleTargetRef& ref = hpa->spec.scaleTargetRef;
    out.hpas.push_back({.ns = key.first,
                        .name = key.second,
                        .target = key.first + "/" + ref.kind + "/" + ref.name,
                        .min = stats.min,
                        .max = stats.max,
                        .final = stats.final,
                        .mean = stats.mean,
                        .finalMinReplicas = hpa->spec.minReplicas.value_or(1)});
  }
  for (const Change& change : changes_) {
    const auto found = samples_.find(change.workload);
    const sim::Recovery r = sim::recoveryAfter(
        found == samples_.end() ? std::vector<sim::ScalingSample>{} : found->second,
        start_ + change.from, start_ + change.to);
    out.recoveries.push_back(
        {.workload = nameOf(change.workload),
         .fromSeconds = seconds(change.from),
         .toSeconds = seconds(change.to),
         .baselineReplicas = r.baselineReplicas,
         .minReplicas = r.minReplicas,
         .timeToRecoverSeconds =
             r.timeToRecover ? std::optional<double>(seconds(*r.timeToRecover)) : std::nullopt,
         .cpuShortCoreSeconds = r.cpuShortCoreSeconds});
  }
  return out;
}

}  // namespace attune::cli
