// renderSimulationJson: the summary document, built with nlohmann's ordered_json so keys keep
// the order they are written in.
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "report/simulation_report.h"
#include "report/simulation_values.h"

namespace attune::report {
namespace {

using Json = nlohmann::ordered_json;

// `v` rounded to `digits` decimals; null when not finite.
Json number(double v, int digits) {
  if (!std::isfinite(v)) return nullptr;
  const double scale = std::pow(10.0, digits);
  const double r = std::round(v * scale) / scale;
  return r == 0 ? 0.0 : r;  // no -0.0
}

Json byReason(const std::map<std::string, std::int64_t>& m) {
  Json out = Json::object();
  for (const auto& [reason, n] : m) out[reason] = n;
  return out;
}

Json workload(const WorkloadTimeline& w) {
  Json counts = Json::object();
  for (const auto& [kind, n] : eventCounts(w)) counts[kind] = n;
  return {{"namespace", w.ns},
          {"kind", w.kind},
          {"name", w.name},
          {"cpu_savings_pct", number(w.cpuSavingsPct, 2)},
          {"memory_savings_pct", number(w.memorySavingsPct, 2)},
          {"events", static_cast<std::int64_t>(w.events.size())},
          {"event_counts", counts}};
}

Json recovery(const RateChangeRecovery& c) {
  return {{"workload", c.workload},
          {"from_s", number(c.fromSeconds, 3)},
          {"to_s", number(c.toSeconds, 3)},
          {"ready_replicas_before", c.baselineReplicas},
          {"fewest_ready_replicas", c.minReplicas},
          {"time_to_recover_s",
           c.timeToRecoverSeconds ? number(*c.timeToRecoverSeconds, 3) : Json(nullptr)},
          {"recovered", c.timeToRecoverSeconds.has_value()},
          {"cpu_short_core_seconds", number(c.cpuShortCoreSeconds, 3)}};
}

Json scaling(const ScalingSummary& s) {
  Json workloads = Json::array();
  for (const WorkloadPodHours& w : s.workloads) {
    workloads.push_back({{"workload", w.workload}, {"pod_hours", number(w.podHours, 3)}});
  }
  Json hpas = Json::array();
  for (const HpaReplicaSummary& h : s.hpas) {
    hpas.push_back({{"namespace", h.ns},
                    {"name", h.name},
                    {"target", h.target},
                    {"replicas_min", h.min},
                    {"replicas_max", h.max},
                    {"replicas_final", h.final},
                    {"replicas_mean", number(h.mean, 3)},
                    {"min_replicas_final", h.finalMinReplicas}});
  }
  Json recoveries = Json::array();
  for (const RateChangeRecovery& c : s.recoveries) recoveries.push_back(recovery(c));
  return {{"pod_hours", number(s.podHours, 3)},
          {"cpu_short_core_seconds", number(s.cpuShortCoreSeconds, 3)},
          {"workloads", workloads},
          {"hpas", hpas},
          {"recoveries", recoveries}};
}

Json risk(const RiskSummary& s) {
  return {{"samples", s.samples},
          {"cpu_above_request_pct", number(s.cpuAboveRequestPct, 3)},
          {"cpu_short_core_seconds", number(s.cpuShortCoreSeconds, 3)},
          {"cpu_above_request_core_hours", number(s.cpuAboveRequestCoreHours, 3)},
          {"memory_above_request_pct", number(s.memoryAboveRequestPct, 3)},
          {"memory_at_limit_pct", number(s.memoryAtLimitPct, 3)},
          {"oom_kills", s.oomKills},
          {"kubelet_evictions", s.kubeletEvictions},
          {"evictions", s.evictions},
          {"psi_waiting_core_seconds", number(s.psiWaitingCoreSeconds, 3)},
          {"pending_pod_hours", number(s.pendingPodHours, 3)},
          {"pending_pods_max", s.pendingPodsMax},
          {"node_hours", number(s.nodeHours, 3)},
          {"node_cost", number(s.nodeCost, 3)},
          {"cpu_request_core_hours", number(s.cpuRequestCoreHours, 3)},
          {"memory_request_gib_hours", number(s.memoryRequestGibHours, 3)}};
}

Json run(const SimulationRun& s) {
  Json workloads = Json::array();
  for (const WorkloadTimeline& w : s.workloads) workloads.push_back(workload(w));
  Json out = {
      {"strategy", s.strategy},
      {"mode", s.mode},
      {"duration_s", number(s.durationSeconds, 3)},
      {"pods", s.pods},
      {"containers", s.containers},
      {"cpu",
       {{"request_core_hours_before", number(s.cpu.requestCoreHoursBefore, 3)},
        {"request_core_hours_after", number(s.cpu.requestCoreHoursAfter, 3)},
        {"used_core_hours", number(s.cpu.usedCoreHours, 3)},
        {"savings_pct", number(s.cpu.savingsPct, 2)},
        {"throttled_pct", number(s.cpu.throttledPct, 2)},
        {"psi_waiting_core_seconds", number(s.cpu.psiWaitingCoreSeconds, 3)}}},
      {"memory",
       {{"request_gib_hours_before", number(s.memory.requestGibHoursBefore, 3)},
        {"request_gib_hours_after", number(s.memory.requestGibHoursAfter, 3)},
        {"used_gib_hours", number(s.memory.usedGibHours, 3)},
        {"savings_pct", number(s.memory.savingsPct, 2)},
        {"oom_kills", s.memory.oomKills}}},
      {"resizes",
       {{"applied", s.resizes.applied},
        {"failed", s.resizes.failed},
        {"skipped_by_reason", byReason(s.resizes.skippedByReason)},
        {"reverted_by_reason", byReason(s.resizes.revertedByReason)}}},
      {"restarts", s.restarts},
      {"evictions", s.evictions},
      {"admission", {{"webhook", s.admissionWebhook}, {"pods_sized", s.podsSizedAtAdmission}}},
      {"nodes",
       {{"autoscaled", s.nodes.autoscaled},
        {"node_hours", number(s.nodes.nodeHours, 3)},
        {"cost", number(s.nodes.cost, 3)},
        {"min", s.nodes.min},
        {"max", s.nodes.max},
        {"final", s.nodes.final},
        {"added", s.nodes.added},
        {"removed", s.nodes.removed}}},
      {"risk", risk(s.risk)},
      {"workloads", workloads}};
  if (!s.hpaGuard.empty()) out["hpa_guard"] = s.hpaGuard;
  if (s.scaling) out["scaling"] = scaling(*s.scaling);
  if (const auto& n = s.nodeOptimisationSummary) {
    out["node_optimisation"] = {
        {"enabled", s.nodeOptimisation == "on"},
        {"node_hours", number(n->nodeHours, 3)},
        {"cpu_above_request_core_hours", number(n->cpuAboveRequestCoreHours, 3)},
        {"evictions", n->evictions},
        {"pods_sized_at_admission", n->admissionSized},
        {"pods_unchanged_at_admission", n->admissionUnchanged}};
  }
  return out;
}

}  // namespace

std::string renderSimulationJson(const SimulationReport& r) {
  Json runs = Json::array();
  for (const SimulationRun& s : r.runs) runs.push_back(run(s));
  const Json doc = {{"scenario", r.scenario},
                    {"seed", r.seed},
                    {"start", formatRfc3339(r.start)},
                    {"duration_s", number(std::chrono::duration<double>(r.duration).count(), 3)},
                    {"runs", runs}};
  return doc.dump(2) + "\n";
}

}  // namespace attune::report
