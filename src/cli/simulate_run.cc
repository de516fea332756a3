#include "cli/simulate_run.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "api/policy/policy_defaults.h"
#include "cli/simulate_admission.h"
#include "cli/simulate_scaling.h"
#include "controller/admission_sizing.h"
#include "controller/controller.h"
#include "controller/event_recorder.h"
#include "controller/hpa_guard.h"
#include "controller/operator_metrics.h"
#include "controller/slo_queries.h"
#include "core/quantity.h"
#include "metrics/exposition/registry.h"
#include "metrics/trace/trace_source.h"
#include "recommend/strategy.h"
#include "rollout/node_optimisation.h"
#include "sim/cluster/pod_snapshot.h"
#include "sim/engine/scenario_builder.h"
#include "sim/engine/simulation.h"
#include "sim/telemetry/sim_scalar_query.h"
#include "webhook/pod_sizing.h"

namespace attune::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double cores(const std::optional<Quantity>& q) { return q ? toCores(q->toMillicores()) : 0.0; }
double bytes(const std::optional<Quantity>& q) {
  return q ? static_cast<double>(q->toBytes().value()) : 0.0;
}

// A pod's requests and limits summed over its regular containers, and each one's CPU request.
struct PodResources {
  double cpuRequest = 0, cpuLimit = 0, memoryRequest = 0, memoryLimit = 0;
  bool hasCpuLimit = false, hasMemoryLimit = false;
  std::vector<std::pair<std::string, double>> containerCpuRequests;  // (name, cores)
};

PodResources resourcesOf(const api::Pod& pod) {
  PodResources r;
  for (const api::Container& c : pod.spec.containers) {
    r.containerCpuRequests.emplace_back(c.name, cores(c.resources.requests.cpu));
    r.cpuRequest += cores(c.resources.requests.cpu);
    r.memoryRequest += bytes(c.resources.requests.memory);
    r.cpuLimit += cores(c.resources.limits.cpu);
    r.memoryLimit += bytes(c.resources.limits.memory);
    r.hasCpuLimit = r.hasCpuLimit || c.resources.limits.cpu.has_value();
    r.hasMemoryLimit = r.hasMemoryLimit || c.resources.limits.memory.has_value();
  }
  return r;
}

// Integrals over time of one workload (or the whole cluster).
struct Integrals {
  double cpuBefore = 0, cpuAfter = 0, cpuUsed = 0;           // core-seconds
  double memoryBefore = 0, memoryAfter = 0, memoryUsed = 0;  // byte-seconds
};

double savingsPct(double before, double after) {
  return before <= 0 ? 0.0 : 100.0 * (before - after) / before;
}

// Everything one run measures tick by tick.
class RunMeter {
 public:
  // With `scaling`, the run's scaling summary is measured too.
  RunMeter(const sim::Simulation& sim, Duration timelineStep, bool scaling)
      : sim_(sim), timelineStep_(timelineStep) {
    if (scaling) scaling_.emplace(sim.scenario());
  }

  // CPU a container used beyond its request, in cores (0 when within it).
  static double cpuAboveRequest(const PodResources& r, const sim::ContainerRuntime& c) {
    for (const auto& [name, request] : r.containerCpuRequests) {
      if (name == c.name) return std::max(0.0, c.cpuUsageCores - request);
    }
    return 0;
  }

  void afterTick(Duration dt) {
    const sim::ClusterState& state = sim_.state();
    const double seconds = std::chrono::duration<double>(dt).count();
    const Time now = sim_.state().clock().now();
    const bool sample = !lastSample_ || now - *lastSample_ >= timelineStep_;
    if (sample) lastSample_ = now;
    std::map<api::WorkloadRef, report::UsagePoint> cpu;
    std::map<api::WorkloadRef, report::UsagePoint> memory;
    nodeSeconds_ += static_cast<double>(state.nodes.size()) * seconds;
    for (const auto& [uid, runtime] : sim_.kubelet().pods()) {
      // The pod's workload and resources, read again only when the pod changed.
      auto known = pods_.find(uid);
      if (known == pods_.end() || known->second.resourceVersion != runtime.resourceVersion) {
        const api::Pod* pod = state.pods.find(runtime.namespace_, runtime.name);
        if (pod == nullptr) continue;
        PodView view{
            runtime.resourceVersion, ownerOf(*pod), resourcesOf(*pod), {}, nullptr, nullptr};
        view.original = known == pods_.end() ? originalOf(*pod, view) : known->second.original;
        view.integrals = &byWorkload_[view.workload];
        view.seen = &seen_[uid];
        known = pods_.insert_or_assign(uid, std::move(view)).first;
      }
      const api::WorkloadRef& workload = known->second.workload;
      if (scaling_) scaling_->addPod(workload, runtime, seconds);
      const PodResources& current = known->second.current;
      const PodResources& original = known->second.original;
      double cpuUsed = 0;
      double memoryUsed = 0;
      for (const sim::ContainerRuntime& c : runtime.containers) {
        if (c.sidecar) continue;
        cpuUsed += c.cpuUsageCores;
        cpuAboveRequestCoreSeconds_ += cpuAboveRequest(current, c) * seconds;
        memoryUsed += static_cast<double>(c.memoryWorkingSet.value());
        // OOM kills and restarts, for the timeline.
        auto& seen = seenOf(*known->second.seen, c.name);
        const std::uint64_t exits =
            c.restarts ? static_cast<std::uint64_t>(c.restarts->exits()) : 0;
        if (c.oomKillsTotal > seen.first) {
          events_[workload].push_back(
              {.time = now,
               .kind = "OOMKilled",
               .pod = runtime.name,
               .container = c.name,
               .detail = fmt::format("working set {}", formatMemory(c.memoryAtLastOomKill))});
        } else if (exits > seen.second) {
          events_[workload].push_back({.time = now,
                                       .kind = "Restarted",
                                       .pod = runtime.name,
                                       .container = c.name,
                                       .detail = {}});
        }
        seen = {c.oomKillsTotal, exits};
      }
      for (Integrals* in : {&total_, known->second.integrals}) {
        in->cpuBefore += original.cpuRequest * seconds;
        in->cpuAfter += current.cpuRequest * seconds;
        in->cpuUsed += cpuUsed * seconds;
        in->memoryBefore += original.memoryRequest * seconds;
        in->memoryAfter += current.memoryRequest * seconds;
        in->memoryUsed += memoryUsed * seconds;
      }
      if (sample) {
        auto& c = cpu[workload];
        c.time = now;
        c.usage += cpuUsed;
        c.request += current.cpuRequest;
        if (current.hasCpuLimit) c.limit = c.limit.value_or(0) + current.cpuLimit;
        auto& m = memory[workload];
        m.time = now;
        m.usage += memoryUsed;
        m.request += current.memoryRequest;
        if (current.hasMemoryLimit) m.limit = m.limit.value_or(0) + current.memoryLimit;
      }
    }
    if (scaling_) scaling_->endTick(state, now, dt);
    if (sample) recordCluster(state, now, cpu, memory);
    for (auto& [w, p] : cpu) timelines_[w].cpu.push_back(p);
    for (auto& [w, p] : memory) timelines_[w].memory.push_back(p);
    // Evictions (kubelet and API) since the last tick.
    const auto& evictions = state.evictions();
    for (; evictionsSeen_ < evictions.size(); ++evictionsSeen_) {
      const auto& e = evictions[evictionsSeen_];
      events_[ownerOf(e.pod)].push_back({.time = e.at,
                                         .kind = "Evicted",
                                         .pod = e.pod.metadata.name,
                                         .container = {},
                                         .detail = {}});
    }
  }

  void onAction(const controller::ActionRecord& a) {
    using Kind = controller::ActionRecord::Kind;
    switch (a.kind) {
      case Kind::kResized:
        ++resizes_.applied;
        break;
      case Kind::kResizeFailed:
        ++resizes_.failed;
        break;
      case Kind::kResizeSkipped:
        ++resizes_.skippedByReason[a.reason];
        break;
      case Kind::kReverted:
        ++resizes_.revertedByReason[a.reason];
        break;
      case Kind::kEvicted:
        if (a.reason == rollout::kNodeMemoryCause || a.reason == rollout::kNodeCpuCause) {
          ++nodeOptimiserEvictions_;
        }
        break;  // on the timeline
      case Kind::kStartupBoost:
      case Kind::kStartupBoostEnded:
        break;  // on the timeline
      case Kind::kSafe:
      case Kind::kViolationKept:
        return;  // not on the timeline: the absence of a revert says it
    }
    events_[a.workload].push_back(
        {.time = a.time,
         .kind = std::string(controller::toString(a.kind)),
         .pod = a.pod,
         .container = a.container,
         .detail = a.reason.empty() ? a.detail : a.reason + ": " + a.detail});
  }

  // `nodeOptimisation`: "on" or "off" to fill the node optimisation summary (with what the
  // in-process admission webhook did, `admission`), empty for none. `webhook`: the webhook ran.
  report::SimulationRun finish(std::string strategy, std::string mode, std::string hpaGuard,
                               std::string nodeOptimisation, bool webhook,
                               const AdmissionCounts& admission) {
    const sim::RunTotals totals = sim_.totals();
    report::SimulationRun run;
    run.strategy = std::move(strategy);
    run.mode = std::move(mode);
    run.hpaGuard = std::move(hpaGuard);
    run.admissionWebhook = webhook;
    run.podsSizedAtAdmission = admission.sized;
    if (!nodeOptimisation.empty()) {
      run.nodeOptimisationSummary = report::NodeOptimisationSummary{
          .nodeHours = nodeSeconds_ / 3600,
          .cpuAboveRequestCoreHours = cpuAboveRequestCoreSeconds_ / 3600,
          .evictions = nodeOptimiserEvictions_,
          .admissionSized = admission.sized,
          .admissionUnchanged = admission.unchanged};
    }
    run.nodeOptimisation = std::move(nodeOptimisation);
    if (scaling_) {
      run.scaling =
          scaling_->finish(sim_.state(), totals.cpuDemandCoreSeconds - totals.cpuUsedCoreSeconds);
    }
    run.durationSeconds = std::chrono::duration<double>(totals.simulated).count();
    run.pods = totals.pods;
    run.containers = totals.containers;
    run.cpu = {.requestCoreHoursBefore = total_.cpuBefore / 3600,
               .requestCoreHoursAfter = total_.cpuAfter / 3600,
               .usedCoreHours = total_.cpuUsed / 3600,
               .savingsPct = savingsPct(total_.cpuBefore, total_.cpuAfter),
               .throttledPct = totals.throttledPercent(),
               .psiWaitingCoreSeconds = totals.psiWaitingSeconds};
    run.memory = {.requestGibHoursBefore = total_.memoryBefore / 3600 / kGiB,
                  .requestGibHoursAfter = total_.memoryAfter / 3600 / kGiB,
                  .usedGibHours = total_.memoryUsed / 3600 / kGiB,
                  .savingsPct = savingsPct(total_.memoryBefore, total_.memoryAfter),
                  .oomKills = static_cast<std::int64_t>(totals.oomKills)};
    run.resizes = resizes_;
    run.cluster = std::move(cluster_);
    run.restarts = static_cast<std::int64_t>(totals.restarts);
    run.evictions = static_cast<std::int64_t>(totals.evictions);
    run.nodes = {.autoscaled = sim_.autoscaler() != nullptr,
                 .nodeHours = totals.nodeHours(),
                 .cost = totals.nodeCost,
                 .min = totals.nodesMin,
                 .max = totals.nodesMax,
                 .final = totals.nodes,
                 .added = totals.nodesAdded,
                 .removed = totals.nodesRemoved};
    const sim::RiskTotals& risk = totals.risk;
    run.risk = {.samples = risk.samples,
                .cpuAboveRequestPct = risk.sharePct(risk.cpuAboveRequestSamples),
                .cpuShortCoreSeconds = risk.cpuShortCoreSeconds,
                .cpuAboveRequestCoreHours = risk.cpuAboveRequestCoreSeconds / 3600,
                .memoryAboveRequestPct = risk.sharePct(risk.memoryAboveRequestSamples),
                .memoryAtLimitPct = risk.sharePct(risk.memoryAtLimitSamples),
                .oomKills = static_cast<std::int64_t>(totals.oomKills),
                .kubeletEvictions = static_cast<std::int64_t>(totals.kubeletEvictions),
                .evictions = static_cast<std::int64_t>(totals.evictions),
                .psiWaitingCoreSeconds = totals.psiWaitingSeconds,
                .pendingPodHours = risk.pendingPodSeconds / 3600,
                .pendingPodsMax = risk.pendingPodsMax,
                .nodeHours = totals.nodeHours(),
                .nodeCost = totals.nodeCost,
                .cpuRequestCoreHours = totals.cpuRequestedCoreSeconds / 3600,
                .memoryRequestGibHours = totals.memoryRequestedByteSeconds / 3600 / kGiB};
    std::set<api::WorkloadRef> workloads;
    for (const auto& [w, t] : timelines_) workloads.insert(w);
    for (const auto& [w, e] : events_) workloads.insert(w);
    for (const api::WorkloadRef& w : workloads) {
      report::WorkloadTimeline t = std::move(timelines_[w]);
      t.ns = w.ns;
      t.kind = w.kind;
      t.name = w.name;
      const Integrals& in = byWorkload_[w];
      t.cpuSavingsPct = savingsPct(in.cpuBefore, in.cpuAfter);
      t.memorySavingsPct = savingsPct(in.memoryBefore, in.memoryAfter);
      t.cpuRequestCoreHoursBefore = in.cpuBefore / 3600;
      t.cpuRequestCoreHoursAfter = in.cpuAfter / 3600;
      t.memoryRequestGibHoursBefore = in.memoryBefore / 3600 / kGiB;
      t.memoryRequestGibHoursAfter = in.memoryAfter / 3600 / kGiB;
      t.events = std::move(events_[w]);
      std::stable_sort(t.events.begin(), t.events.end(),
                       [](const auto& a, const auto& b) { return a.time < b.time; });
      run.workloads.push_back(std::move(t));
    }
    return run;
  }

 private:
  // The cluster-wide point of a sample: the nodes and their allocatable, and the sum of this
  // sample's workload points.
  void recordCluster(const sim::ClusterState& state, Time now,
                     const std::map<api::WorkloadRef, report::UsagePoint>& cpu,
                     const std::map<api::WorkloadRef, report::UsagePoint>& memory) {
    report::ClusterPoint p{.time = now, .nodes = static_cast<std::int64_t>(state.nodes.size())};
    state.nodes.forEach([&](const api::Node& n) {
      p.cpuAllocatable += cores(n.status.allocatable.cpu);
      p.memoryAllocatable += bytes(n.status.allocatable.memory);
    });
    for (const auto& [w, point] : cpu) {
      p.cpuRequest += point.request;
      p.cpuUsage += point.usage;
    }
    for (const auto& [w, point] : memory) {
      p.memoryRequest += point.request;
      p.memoryUsage += point.usage;
    }
    cluster_.push_back(p);
  }

  // The pod's top-level workload through the simulated API server's stores.
  api::WorkloadRef ownerOf(const api::Pod& pod) const {
    const std::string& ns = pod.metadata.namespace_;
    const api::OwnerReference* ref = pod.metadata.controllerRef();
    if (ref == nullptr) return {ns, "Pod", pod.metadata.name};
    const sim::ClusterState& state = sim_.state();
    if (ref->kind == "ReplicaSet") {
      if (const api::ReplicaSet* rs = state.replicaSets.find(ns, ref->name)) {
        if (const api::OwnerReference* up = rs->metadata.controllerRef()) {
          return {ns, up->kind, up->name};
        }
      }
    } else if (ref->kind == "Job") {
      if (const api::Job* job = state.jobs.find(ns, ref->name)) {
        if (const api::OwnerReference* up = job->metadata.controllerRef()) {
          return {ns, up->kind, up->name};
        }
      }
    }
    return {ns, ref->kind, ref->name};
  }

  struct PodView;
  // What a pod newly seen asks for without Attune: what it was created with, except for a pod
  // the admission webhook sized, whose request before Attune is its workload's as the pods
  // created without sizing asked (the savings are counted against the workload's template,
  // whichever way its pods got their size).
  PodResources originalOf(const api::Pod& pod, const PodView& view) {
    const auto& annotations = pod.metadata.annotations;
    const auto sized = annotations.find(webhook::kAdmissionSizedAnnotation);
    if (sized == annotations.end() || sized->second != webhook::kAdmissionSized) {
      templateOf_.insert_or_assign(view.workload, view.current);
      return view.current;
    }
    const auto it = templateOf_.find(view.workload);
    return it == templateOf_.end() ? view.current : it->second;
  }

  // The (OOM kills, exits) of a pod's container seen so far; (0, 0) at first.
  using SeenCounts = std::map<std::string, std::pair<std::uint64_t, std::uint64_t>, std::less<>>;
  static std::pair<std::uint64_t, std::uint64_t>& seenOf(SeenCounts& pod,
                                                         const std::string& container) {
    auto it = pod.find(container);
    if (it == pod.end()) it = pod.try_emplace(container).first;
    return it->second;
  }

  const sim::Simulation& sim_;
  Duration timelineStep_;
  std::optional<Time> lastSample_;
  struct PodView {
    std::string resourceVersion;
    api::WorkloadRef workload;
    PodResources current;
    PodResources original;  // as first seen: what the pod was created with
    // Its workload's integrals and its containers' counts seen (entries are never erased).
    Integrals* integrals;
    SeenCounts* seen;
  };
  std::map<std::string, PodView, std::less<>> pods_;  // by pod uid
  // Per workload, the resources of its latest pod created without admission sizing.
  std::map<api::WorkloadRef, PodResources> templateOf_;
  // By pod uid, then container name.
  std::map<std::string, SeenCounts, std::less<>> seen_;
  std::size_t evictionsSeen_ = 0;
  double nodeSeconds_ = 0;
  double cpuAboveRequestCoreSeconds_ = 0;
  std::int64_t nodeOptimiserEvictions_ = 0;
  Integrals total_;
  std::map<api::WorkloadRef, Integrals> byWorkload_;
  std::map<api::WorkloadRef, report::WorkloadTimeline> timelines_;
  std::map<api::WorkloadRef, std::vector<report::TimelineEvent>> events_;
  report::ResizeSummary resizes_;
  std::vector<report::ClusterPoint> cluster_;
  std::optional<ScalingMeter> scaling_;
};

std::string modeName(const sim::Scenario& scenario, std::optional<api::UpdateMode> mode) {
  if (mode) return std::string(api::toString(*mode));
  std::set<std::string> modes;
  for (const api::AttunePolicy& p : scenario.policies) {
    modes.insert(
        std::string(api::toString(p.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode))));
  }
  if (modes.empty()) return "none";
  return fmt::format("{}", fmt::join(modes, "+"));
}

// The HPA guard of one run, with what it needs, on the simulation's API and clock.
struct SimulatedHpaGuard {
  SimulatedHpaGuard(sim::Simulation& s, Duration interval)
      : query(s.recorder()),
        events(s.api(), s.clock()),
        metrics(registry),
        guard(s.api(), query, events, metrics, s.clock(),
              {.namespaces = {}, .interval = interval}) {}

  metrics::Registry registry;
  sim::SimScalarQuery query;
  controller::EventRecorder events;
  controller::HpaGuardMetrics metrics;
  controller::HpaGuard guard;
};

// `scenario` with spec.nodeOptimization.enabled set to `enabled` in every policy.
sim::Scenario withNodeOptimisation(sim::Scenario scenario, bool enabled) {
  for (api::AttunePolicy& p : scenario.policies) {
    if (!p.spec.nodeOptimization) p.spec.nodeOptimization.emplace();
    p.spec.nodeOptimization->enabled = enabled;
  }
  return scenario;
}

// Whether the tool `strategy` stands for sizes new pods at admission (kNoOperator: no).
bool sizesAtAdmission(std::string_view strategy) {
  if (strategy == kNoOperator) return false;
  const auto made = recommend::makeStrategy(strategy);
  return made && (*made)->admissionSizing() != recommend::AdmissionSizing::kNone;
}

// One run; `guarded`: with the HPA guard; `nodeOptimised`: every policy with node optimisation
// on (true, with the pod admission webhook in process) or off (false), or as they are (unset).
// `finish`: called with the simulation as it ended, before the run is measured.
Result<report::SimulationRun> runOne(const SimulateRequest& request, const std::string& strategy,
                                     bool guarded, std::optional<bool> nodeOptimised,
                                     const SimulateProgress& progress,
                                     const std::function<void(sim::Simulation&)>& finish) {
  // The webhook's sizing board outlives the simulation whose admission reads it.
  controller::AdmissionSizing admissionSizing;
  AdmissionCounts admitted;
  auto sim = nodeOptimised
                 ? sim::Simulation::create(withNodeOptimisation(request.scenario, *nodeOptimised))
                 : sim::Simulation::create(request.scenario);
  if (!sim) return std::unexpected(sim.error());
  sim::Simulation& s = **sim;
  const bool phase1 = nodeOptimised.value_or(false);
  // CruiseKube's Phase 1: the controller publishes each pass's sizing and every pod the cluster
  // creates from then on is reviewed by the pod admission webhook's decision.
  // The strategies whose tools size new pods at admission (the adaptive strategy's and VPA's
  // webhooks at their recommendation, CruiseKube's Phase 1) run with the webhook in process.
  const bool admission = phase1 || sizesAtAdmission(strategy);
  if (admission) s.state().setPodAdmission(inProcessPodAdmission(admissionSizing, &admitted));
  metrics::Registry registry;
  // SLO guardrails are evaluated over the simulation's own history.
  sim::SimScalarQuery sloQuery(s.recorder());
  controller::SharedSloQuery sloQueries(sloQuery);
  // kNoOperator: the cluster as it would run without Attune, the baseline of a comparison.
  const bool operated = strategy != kNoOperator;
  // The controller reads pods in place, as the operator does from its informer cache.
  sim::InPlacePodsApi api(s.api(), s.state());
  std::optional<controller::Controller> controller;
  if (operated) {
    controller.emplace(
        api, s.metrics(), s.clock(), registry,
        controller::ControllerOptions{.watchNamespaces = {},
                                      .strategyOverride = strategy,
                                      .modeOverride = request.mode,
                                      .observation = {},
                                      .throttleThreshold = 0.5,
                                      .historyLimit = 100,
                                      .durationClock = nullptr,
                                      .resyncPeriod = request.reconcileInterval,
                                      .oomRecovery = false,
                                      .oom = {},
                                      .admissionSizing = admission ? &admissionSizing : nullptr,
                                      .metricsSources = nullptr,
                                      .sloQueries = &sloQueries});
  }
  Duration step = request.timelineStep;
  if (step <= Duration::zero()) {
    step = std::max<Duration>(request.scenario.tick, request.scenario.duration / 1000);
  }
  RunMeter meter(s, step,
                 hasScaling(request.scenario) || request.hpaGuard.has_value() ||
                     request.nodeOptimisation.has_value());
  std::optional<SimulatedHpaGuard> guard;
  if (guarded && operated) guard.emplace(s, request.hpaGuardInterval);
  if (controller) {
    controller->setObserver([&](const controller::ActionRecord& a) { meter.onAction(a); });
  }
  std::string runName = strategy;
  if (request.hpaGuard) runName += guarded ? " (guard on)" : " (guard off)";
  if (nodeOptimised) runName += *nodeOptimised ? " (node opt on)" : " (node opt off)";
  const Time end = s.end();
  const Duration tick = request.scenario.tick;
  std::int64_t lastDay = -1;
  while (s.clock().now() + tick <= end) {
    if (auto ok = s.step(); !ok) return std::unexpected(ok.error());
    meter.afterTick(tick);
    // The controller's work queue on the simulated clock: whatever is due by now (the resync
    // every reconcile interval, requeues, pod changes) is reconciled after each tick.
    if (controller) {
      if (auto ok = controller->reconcileDue(); !ok) return std::unexpected(ok.error());
    }
    // The guard beside it, on the same clock: a pass whenever its interval has gone by.
    if (guard) {
      if (auto pass = guard->guard.runDue(); pass && !*pass) {
        return std::unexpected(pass->error());
      }
    }
    const auto day =
        std::chrono::duration_cast<std::chrono::hours>(s.clock().now() - request.scenario.start)
            .count() /
        24;
    // The day being simulated; the tick that ends the last day still belongs to it.
    const auto days = (request.scenario.duration + std::chrono::hours(23)) / std::chrono::hours(24);
    if (progress && day != lastDay && day < days) {
      lastDay = day;
      progress(fmt::format("{}: day {} of {}", runName, day + 1, days));
    }
  }
  if (finish) finish(s);
  std::string guardLabel;
  if (request.hpaGuard && operated) guardLabel = guarded ? "on" : "off";
  std::string nodeLabel;
  if (nodeOptimised) nodeLabel = *nodeOptimised ? "on" : "off";
  return meter.finish(strategy,
                      operated ? modeName(request.scenario, request.mode) : std::string("none"),
                      std::move(guardLabel), std::move(nodeLabel), admission, admitted);
}

// The hardware threads this process may run on (its CPU affinity: 1 under `taskset -c 0`).
unsigned availableThreads() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) {
    return static_cast<unsigned>(CPU_COUNT(&set));
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

// One run of a backtest: a strategy, with or without the HPA guard, with node optimisation on,
// off or as the policies say.
struct RunSpec {
  std::string strategy;
  bool guarded = false;
  std::optional<bool> nodeOptimised;
};

// Lets runs end in any order but hands their simulations to onFinish in run order.
class InOrder {
 public:
  // Blocks until every run before `index` is done.
  void waitTurn(std::size_t index) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return next_ == index; });
  }
  // Run `index` is done (finished, or failed before finishing).
  void done(std::size_t index) {
    {
      std::lock_guard lock(mutex_);
      done_.insert(index);
      while (done_.contains(next_)) done_.erase(next_++);
    }
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t next_ = 0;
  std::set<std::size_t> done_;
};

// Every run of `runs`, request.jobs at a time (0: one per hardware thread), each result in its
// run's slot; after a failure no further run starts (their slots stay "not run", after the
// failure's). A thread takes the next run not yet taken, so the lowest run not done is always
// running and waiting for it in InOrder cannot deadlock.
std::vector<Result<report::SimulationRun>> runAll(const SimulateRequest& request,
                                                  const std::vector<RunSpec>& runs,
                                                  const SimulateProgress& progress) {
  std::vector<Result<report::SimulationRun>> results(
      runs.size(), std::unexpected(Error{ErrorCode::kInternal, "not run", {}}));
  std::mutex progressMutex;
  SimulateProgress report;
  if (progress) {
    report = [&](const std::string& line) {
      std::lock_guard lock(progressMutex);
      progress(line);
    };
  }
  InOrder order;
  std::atomic<std::size_t> nextRun = 0;
  std::atomic<bool> failed = false;  // no run is started after one failed
  const auto work = [&] {
    for (std::size_t i = nextRun++; i < runs.size() && !failed; i = nextRun++) {
      const RunSpec& spec = runs[i];
      std::function<void(sim::Simulation&)> finish;
      if (request.onFinish) {
        finish = [&](sim::Simulation& s) {
          order.waitTurn(i);
          request.onFinish(spec.strategy, s);
        };
      }
      results[i] = runOne(request, spec.strategy, spec.guarded, spec.nodeOptimised, report, finish);
      if (!results[i]) failed = true;
      order.done(i);
    }
  };
  unsigned jobs = request.jobs == 0 ? availableThreads() : request.jobs;
  jobs =
      std::clamp<unsigned>(jobs, 1, static_cast<unsigned>(std::max<std::size_t>(runs.size(), 1)));
  if (jobs == 1) {
    work();
    return results;
  }
  std::vector<std::jthread> threads;
  for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(work);
  threads.clear();  // joins
  return results;
}

}  // namespace

Result<report::SimulationReport> runSimulate(const SimulateRequest& request,
                                             const SimulateProgress& progress) {
  for (const std::string& name : request.strategies) {
    if (name == kNoOperator) continue;
    if (auto s = recommend::makeStrategy(name); !s) return std::unexpected(s.error());
  }
  report::SimulationReport out{.scenario = request.scenario.name,
                               .seed = request.scenario.seed,
                               .start = request.scenario.start,
                               .duration = request.scenario.duration,
                               .runs = {}};
  std::vector<bool> guards = {request.hpaGuard == HpaGuardMode::kOn};
  if (request.hpaGuard == HpaGuardMode::kCompare) guards = {false, true};
  std::vector<std::optional<bool>> nodes = {std::nullopt};
  if (request.nodeOptimisation) {
    nodes = {*request.nodeOptimisation == NodeOptimisationMode::kOn};
    if (*request.nodeOptimisation == NodeOptimisationMode::kCompare) nodes = {false, true};
  }
  // Every run replays the same traces: they are read once, and shared read-only.
  SimulateRequest shared = request;
  if (auto loaded = sim::loadTraces(shared.scenario); !loaded) {
    return std::unexpected(loaded.error());
  }
  std::vector<RunSpec> runs;
  for (const std::string& strategy : request.strategies) {
    // Without the operator neither the guard nor node optimisation exists: one run.
    if (strategy == kNoOperator) {
      runs.push_back({strategy, false, std::nullopt});
      continue;
    }
    for (const bool guarded : guards) {
      for (const std::optional<bool> nodeOptimised : nodes) {
        runs.push_back({strategy, guarded, nodeOptimised});
      }
    }
  }
  auto results = runAll(shared, runs, progress);
  for (auto& run : results) {
    if (!run) return std::unexpected(run.error());
    out.runs.push_back(std::move(*run));
  }
  return out;
}

Result<sim::Scenario> scenarioFromTrace(const std::filesystem::path& path,
                                        std::optional<api::UpdateMode> mode) {
  auto loaded = metrics::TraceSource::load({path});
  if (!loaded) return std::unexpected(loaded.error());
  // Read once: every run of the backtest replays this copy (TraceWorkloads::loaded).
  const std::shared_ptr<const metrics::TraceSource> trace(std::move(*loaded));
  sim::Scenario s;
  s.name = "trace:" + path.filename().string();
  s.seed = 1;
  const auto span = trace->span();
  s.start = std::chrono::floor<std::chrono::minutes>(span.first);
  s.duration = std::chrono::ceil<std::chrono::minutes>(span.last - s.start);
  s.tick = std::chrono::seconds(60);
  s.traces.push_back({.path = path,
                      .format = {},
                      .namespace_ = {},
                      .limit = std::nullopt,
                      .fieldPath = "trace",
                      .loaded = trace});

  // Nodes: enough identical nodes for every pod's provisioned requests at 70% packing.
  double cpu = 0, memory = 0, maxCpu = 0, maxMemory = 0;
  std::map<std::pair<std::string, std::string>, std::pair<double, double>> pods;
  std::set<std::string> namespaces;
  for (const auto& [id, c] : trace->data().containers()) {
    namespaces.insert(id.ns);
    if (c.resources.empty()) continue;
    const auto& r = c.resources.front().value;
    auto& pod = pods[{id.ns, id.pod}];
    pod.first += r.cpuRequest ? toCores(*r.cpuRequest) : 0;
    pod.second += r.memoryRequest ? static_cast<double>(r.memoryRequest->value()) : 0;
  }
  for (const auto& [key, p] : pods) {
    cpu += p.first;
    memory += p.second;
    maxCpu = std::max(maxCpu, p.first);
    maxMemory = std::max(maxMemory, p.second);
  }
  const double nodeCpu = std::max(64.0, std::ceil(maxCpu * 1.25));
  const double nodeMemoryGi = std::max(256.0, std::ceil(maxMemory * 1.25 / kGiB));
  const auto count = static_cast<std::int32_t>(
      std::max(std::ceil(cpu / 0.7 / nodeCpu), std::ceil(memory / 0.7 / (nodeMemoryGi * kGiB))) +
      1);
  s.nodePools.push_back(
      {.name = "trace",
       .count = count,
       .cpu = Millicores(static_cast<std::int64_t>(nodeCpu * 1000)),
       .memory = Bytes(static_cast<std::int64_t>(nodeMemoryGi) << 30),
       .pods = 110,
       .allocatableCpu = std::nullopt,
       .allocatableMemory = std::nullopt,
       .allocatablePods = std::nullopt,
       .labels = {},
       .taints = {},
       .restartBackoff = std::nullopt,
       .minSize = 1,
       .maxSize = 2 * count,
       .pricePerHour = nodeCpu * kTraceCoreHourPrice + nodeMemoryGi * kTraceGibHourPrice});
  // Lower requests mean fewer, fuller nodes: the pool follows the requests.
  s.clusterAutoscaler = sim::ClusterAutoscalerOptions{};
  for (const std::string& ns : namespaces) {
    api::AttunePolicy p;
    p.metadata.name = "trace-" + ns;
    p.metadata.namespace_ = ns;
    p.spec.targetRef.kind = api::TargetKind::kDeployment;
    p.spec.targetRef.selector = api::LabelSelector{};
    p.spec.updateStrategy.type = mode.value_or(api::UpdateMode::kAuto);
    p.spec.updateStrategy.maxConcurrentResizes = 10;
    // A trace's provisioned memory is what a VM was sized with, usually far above its use; the
    // public default (no memory decreases) would leave it alone, so a backtest allows them and
    // lets the safety monitor catch the decreases that go too far.
    p.spec.memory.allowDecrease = true;
    s.policies.push_back(std::move(p));
  }
  return s;
}

}  // namespace attune::cli
