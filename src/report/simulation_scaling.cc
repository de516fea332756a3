// The scaling summary in the renderers: the comparison rows and the lines of a run's block.
#include <fmt/core.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "report/simulation_values.h"

namespace attune::report {
namespace {

// "shop/Deployment/api after 1h-1h20m"
std::string recoveryName(const RateChangeRecovery& r) {
  return fmt::format("{} after {}-{}", r.workload, secondsText(r.fromSeconds),
                     secondsText(r.toSeconds));
}

bool anyScaling(const SimulationReport& r) {
  for (const SimulationRun& run : r.runs) {
    if (run.scaling) return true;
  }
  return false;
}

// One row of `label` with, per run, `cell` of the element `find` gives (or "-").
template <typename T>
void addRow(const SimulationReport& r, std::string label,
            const std::function<const T*(const ScalingSummary&)>& find,
            const std::function<std::string(const T&)>& cell, std::vector<MetricRow>& rows) {
  MetricRow row{.label = std::move(label)};
  for (const SimulationRun& run : r.runs) {
    const T* found = run.scaling ? find(*run.scaling) : nullptr;
    row.values.push_back(found != nullptr ? cell(*found) : "-");
  }
  rows.push_back(std::move(row));
}

template <typename T>
const T* byKey(const std::vector<T>& items, const std::string& key,
               const std::function<std::string(const T&)>& keyOf) {
  for (const T& item : items) {
    if (keyOf(item) == key) return &item;
  }
  return nullptr;
}

}  // namespace

std::string recoveryText(const std::optional<double>& seconds) {
  return seconds ? secondsText(*seconds) : "not recovered";
}

void addScalingRows(const SimulationReport& r, std::vector<MetricRow>& rows) {
  if (!anyScaling(r)) return;
  using Summary = ScalingSummary;
  const std::function<const Summary*(const Summary&)> self = [](const Summary& s) { return &s; };
  addRow<Summary>(
      r, "pod-hours", self, [](const Summary& s) { return fixedText(s.podHours, 2); }, rows);
  // Per workload that scales: the HPAs' targets and the workloads with a rate change.
  std::set<std::string> scaling;
  std::set<std::string> hpas;
  std::set<std::string> recoveries;
  for (const SimulationRun& run : r.runs) {
    if (!run.scaling) continue;
    for (const HpaReplicaSummary& h : run.scaling->hpas) {
      scaling.insert(h.target);
      hpas.insert(h.ns + "/" + h.name);
    }
    for (const RateChangeRecovery& c : run.scaling->recoveries) {
      scaling.insert(c.workload);
      recoveries.insert(recoveryName(c));
    }
  }
  const std::function<std::string(const WorkloadPodHours&)> workloadOf =
      [](const WorkloadPodHours& w) { return w.workload; };
  for (const std::string& w : scaling) {
    addRow<WorkloadPodHours>(
        r, "  " + w,
        [&](const Summary& s) { return byKey<WorkloadPodHours>(s.workloads, w, workloadOf); },
        [](const WorkloadPodHours& p) { return fixedText(p.podHours, 2); }, rows);
  }
  addRow<Summary>(
      r, "CPU short (core-s)", self,
      [](const Summary& s) { return fixedText(s.cpuShortCoreSeconds, 1); }, rows);
  const std::function<std::string(const HpaReplicaSummary&)> hpaOf =
      [](const HpaReplicaSummary& h) { return h.ns + "/" + h.name; };
  for (const std::string& name : hpas) {
    const std::function<const HpaReplicaSummary*(const Summary&)> find = [&](const Summary& s) {
      return byKey<HpaReplicaSummary>(s.hpas, name, hpaOf);
    };
    using Hpa = HpaReplicaSummary;
    addRow<Hpa>(
        r, "HPA " + name + " replicas min", find, [](const Hpa& h) { return count(h.min); }, rows);
    addRow<Hpa>(
        r, "  max", find, [](const Hpa& h) { return count(h.max); }, rows);
    addRow<Hpa>(
        r, "  final", find, [](const Hpa& h) { return count(h.final); }, rows);
    addRow<Hpa>(
        r, "  mean", find, [](const Hpa& h) { return fixedText(h.mean, 2); }, rows);
    addRow<Hpa>(
        r, "  minReplicas at the end", find, [](const Hpa& h) { return count(h.finalMinReplicas); },
        rows);
  }
  const std::function<std::string(const RateChangeRecovery&)> recoveryOf = recoveryName;
  for (const std::string& name : recoveries) {
    using Rec = RateChangeRecovery;
    const std::function<const Rec*(const Summary&)> find = [&](const Summary& s) {
      return byKey<Rec>(s.recoveries, name, recoveryOf);
    };
    addRow<Rec>(
        r, "time to recover " + name, find,
        [](const Rec& c) { return recoveryText(c.timeToRecoverSeconds); }, rows);
    addRow<Rec>(
        r, "  ready replicas before", find, [](const Rec& c) { return count(c.baselineReplicas); },
        rows);
    addRow<Rec>(
        r, "  fewest ready replicas", find, [](const Rec& c) { return count(c.minReplicas); },
        rows);
    addRow<Rec>(
        r, "  CPU short during recovery (core-s)", find,
        [](const Rec& c) { return fixedText(c.cpuShortCoreSeconds, 1); }, rows);
  }
}

std::vector<std::vector<std::string>> scalingLines(const ScalingSummary& s) {
  std::vector<std::vector<std::string>> out;
  out.push_back(
      {"  scaling", fmt::format("{} pod-hours, CPU short {} core-s", fixedText(s.podHours, 2),
                                fixedText(s.cpuShortCoreSeconds, 1))});
  for (const HpaReplicaSummary& h : s.hpas) {
    out.push_back(
        {"  hpa " + h.ns + "/" + h.name,
         fmt::format("{}: replicas min {}, max {}, final {}, mean {}; minReplicas {}", h.target,
                     h.min, h.max, h.final, fixedText(h.mean, 2), h.finalMinReplicas)});
  }
  for (const RateChangeRecovery& c : s.recoveries) {
    out.push_back(
        {"  recovery",
         fmt::format("{}: time to recover {}, ready {} before, fewest {}, CPU short "
                     "during recovery {} core-s",
                     recoveryName(c), recoveryText(c.timeToRecoverSeconds), c.baselineReplicas,
                     c.minReplicas, fixedText(c.cpuShortCoreSeconds, 1))});
  }
  return out;
}

}  // namespace attune::report
