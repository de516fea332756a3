#include "sim/engine/simulation.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>

#include "sim/engine/scenario_builder.h"

namespace attune::sim {
namespace {

// The metrics API's view of the pods (metrics-server over the kubelets' summaries): per running
// pod, its running containers' CPU usage and working set over the last tick.
PodUsageByName podUsage(const Kubelet& kubelet, Time now, Duration tick) {
  PodUsageByName out;
  for (const auto& [uid, pod] : kubelet.pods()) {
    if (pod.terminal()) continue;
    PodUsageSample sample{now - tick, tick, {}};
    for (const ContainerRuntime& c : pod.containers) {
      if (!c.running) continue;
      sample.containers.push_back(
          {c.name, Millicores(static_cast<std::int64_t>(std::llround(c.cpuUsageCores * 1000))),
           c.memoryWorkingSet});
    }
    if (!sample.containers.empty()) out.emplace(podUsageKey(pod.namespace_, pod.name), sample);
  }
  return out;
}

std::map<std::string, double, std::less<>> pricesOf(const Scenario& scenario) {
  std::map<std::string, double, std::less<>> out;
  for (const NodePool& pool : scenario.nodePools) out.emplace(pool.name, pool.pricePerHour);
  return out;
}

}  // namespace

Simulation::Simulation(const Scenario& scenario, const SimulationOptions& options)
    : scenario_(scenario),
      clock_(scenario.start),
      state_(clock_),
      cluster_(state_),
      controlPlane_(HpaControllerOptions{}, clusterAutoscalerFor(scenario)),
      models_(Random(scenario.seed), scenario.start),
      kubelet_(kubeletOptionsFor(scenario),
               [this](const api::Pod& pod, const api::Container& container) {
                 return models_.modelFor(state_, pod, container);
               }),
      recorder_(RecorderOptions{options.retention.value_or(scenario.duration + scenario.tick)}),
      metrics_(recorder_, state_),
      accounting_(pricesOf(scenario)) {}

Result<std::unique_ptr<Simulation>> Simulation::create(const Scenario& scenario,
                                                       SimulationOptions options) {
  std::unique_ptr<Simulation> sim(new Simulation(scenario, options));
  if (scenario.kubernetesVersion) sim->state_.setKubernetesVersion(*scenario.kubernetesVersion);
  if (auto ok = buildCluster(sim->scenario_, sim->state_, sim->models_); !ok) {
    return std::unexpected(ok.error());
  }
  return sim;
}

Result<void> Simulation::step() {
  const Duration tick = scenario_.tick;
  clock_.advance(tick);
  const Time now = clock_.now();
  cronJobs_.tick(state_, now);
  // The control plane's controllers are level-based and decide from the state alone (`now` only
  // stamps what they write), so a run that wrote nothing, on a state that has not changed
  // since, would write nothing again: it is skipped. Any write (kubelet status, a resize, a
  // callback's API call) makes the next tick run it.
  const std::string before = state_.pods.resourceVersion();
  if (controlPlaneWrote_ || before != afterControlPlane_ || controlPlane_.hpaSyncDue(state_, now)) {
    controlPlane_.tick(state_, now, [&] { return podUsage(kubelet_, now, tick); });
    afterControlPlane_ = state_.pods.resourceVersion();
    controlPlaneWrote_ = afterControlPlane_ != before;
  }
  // The cluster autoscaler's timers (unneeded time, provisioning) run on every tick; what it
  // writes (nodes, evictions) makes the next tick run the control plane.
  if (controlPlane_.autoscale(state_, now)) controlPlaneWrote_ = true;
  models_.refreshEndpoints(state_);
  if (auto ok = kubelet_.tick(state_, now, tick); !ok) return ok;
  controlPlane_.syncDisruptionBudgets(state_, now);
  models_.countRequests(now, tick);
  recorder_.record(now, state_, kubelet_.pods(), kubelet_.nodes());
  if (!models_.services().empty()) recorder_.recordRequests(requests());
  accounting_.record(state_, kubelet_, now, tick);
  return {};
}

Result<void> Simulation::runUntil(Time t) {
  while (clock_.now() + scenario_.tick <= t) {
    if (auto ok = step(); !ok) return ok;
  }
  return {};
}

Result<void> Simulation::runFor(Duration d) { return runUntil(clock_.now() + d); }

Result<void> Simulation::run() { return runUntil(end()); }

std::vector<WorkloadRequests> Simulation::requests() const {
  std::vector<WorkloadRequests> out;
  for (const auto& [key, service] : models_.services()) {
    const auto& [kind, ns, name] = key;
    std::string label(api::kindName(kind));
    std::ranges::transform(label, label.begin(), [](unsigned char c) { return std::tolower(c); });
    out.push_back({ns, std::move(label), name, service.requestsTotal});
  }
  return out;
}

RunTotals Simulation::totals() const {
  RunAccounting copy = accounting_;
  copy.finish(state_, kubelet_);
  RunTotals totals = copy.totals();
  if (const ClusterAutoscaler* autoscaler = controlPlane_.autoscaler()) {
    totals.nodesAdded = autoscaler->counters().nodesAdded;
    totals.nodesRemoved = autoscaler->counters().nodesRemoved;
    totals.autoscalerEvictions = autoscaler->counters().podsEvicted;
  }
  return totals;
}

}  // namespace attune::sim
