#include "report/simulation_values.h"

#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>

namespace attune::report {
namespace {

using Cell = std::string (*)(const SimulationRun&);

struct Metric {
  const char* label;
  Cell cell;
};

// The fixed metrics, in display order.
constexpr Metric kHead[] = {
    {"mode", [](const SimulationRun& s) { return s.mode; }},
    {"duration", [](const SimulationRun& s) { return secondsText(s.durationSeconds); }},
    {"pods", [](const SimulationRun& s) { return count(s.pods); }},
    {"containers", [](const SimulationRun& s) { return count(s.containers); }},
    {"CPU requests before (core-h)",
     [](const SimulationRun& s) { return fixedText(s.cpu.requestCoreHoursBefore, 2); }},
    {"CPU requests after (core-h)",
     [](const SimulationRun& s) { return fixedText(s.cpu.requestCoreHoursAfter, 2); }},
    {"CPU used (core-h)", [](const SimulationRun& s) { return fixedText(s.cpu.usedCoreHours, 2); }},
    {"CPU savings", [](const SimulationRun& s) { return pctText(s.cpu.savingsPct); }},
    {"CPU throttled", [](const SimulationRun& s) { return pctText(s.cpu.throttledPct); }},
    {"CPU PSI waiting (core-s)",
     [](const SimulationRun& s) { return fixedText(s.cpu.psiWaitingCoreSeconds, 1); }},
    {"memory requests before (GiB-h)",
     [](const SimulationRun& s) { return fixedText(s.memory.requestGibHoursBefore, 2); }},
    {"memory requests after (GiB-h)",
     [](const SimulationRun& s) { return fixedText(s.memory.requestGibHoursAfter, 2); }},
    {"memory used (GiB-h)",
     [](const SimulationRun& s) { return fixedText(s.memory.usedGibHours, 2); }},
    {"memory savings", [](const SimulationRun& s) { return pctText(s.memory.savingsPct); }},
    {"OOM kills", [](const SimulationRun& s) { return count(s.memory.oomKills); }},
    {"resizes applied", [](const SimulationRun& s) { return count(s.resizes.applied); }},
    {"resizes failed", [](const SimulationRun& s) { return count(s.resizes.failed); }},
};

constexpr Metric kTail[] = {
    {"restarts", [](const SimulationRun& s) { return count(s.restarts); }},
    {"evictions", [](const SimulationRun& s) { return count(s.evictions); }},
    {"node-hours", [](const SimulationRun& s) { return fixedText(s.nodes.nodeHours, 2); }},
    {"node cost", [](const SimulationRun& s) { return fixedText(s.nodes.cost, 2); }},
    {"nodes at the end", [](const SimulationRun& s) { return count(s.nodes.final); }},
};

// A total row followed by one row per reason (union over the runs).
void addByReason(const SimulationReport& r, const std::string& what,
                 std::map<std::string, std::int64_t> ResizeSummary::*byReason,
                 std::vector<MetricRow>& rows) {
  std::set<std::string> reasons;
  MetricRow totalRow{.label = "resizes " + what};
  for (const SimulationRun& run : r.runs) {
    for (const auto& [reason, n] : run.resizes.*byReason) reasons.insert(reason);
    totalRow.values.push_back(count(total(run.resizes.*byReason)));
  }
  rows.push_back(std::move(totalRow));
  for (const std::string& reason : reasons) {
    MetricRow row{.label = "  " + what + ": " + reason};
    for (const SimulationRun& run : r.runs) {
      const auto& m = run.resizes.*byReason;
      const auto it = m.find(reason);
      row.values.push_back(count(it == m.end() ? 0 : it->second));
    }
    rows.push_back(std::move(row));
  }
}

}  // namespace

std::vector<std::string> runLabels(const SimulationReport& r) {
  std::map<std::string, int> uses;
  for (const SimulationRun& run : r.runs) ++uses[run.strategy];
  std::vector<std::string> out;
  for (const SimulationRun& run : r.runs) {
    if (!run.hpaGuard.empty() || !run.nodeOptimisation.empty()) {
      std::string variant = run.hpaGuard.empty() ? "" : "guard " + run.hpaGuard;
      if (!run.nodeOptimisation.empty()) {
        variant += (variant.empty() ? "" : ", ") + std::string("node opt ") + run.nodeOptimisation;
      }
      out.push_back(run.strategy + " (" + variant + ")");
    } else {
      out.push_back(uses[run.strategy] > 1 ? run.strategy + " (" + run.mode + ")" : run.strategy);
    }
  }
  return out;
}

std::vector<MetricRow> comparisonRows(const SimulationReport& r) {
  std::vector<MetricRow> rows;
  const auto add = [&](const Metric& m) {
    MetricRow row{.label = m.label};
    for (const SimulationRun& run : r.runs) row.values.push_back(m.cell(run));
    rows.push_back(std::move(row));
  };
  for (const Metric& m : kHead) add(m);
  addByReason(r, "skipped", &ResizeSummary::skippedByReason, rows);
  addByReason(r, "reverted", &ResizeSummary::revertedByReason, rows);
  for (const Metric& m : kTail) add(m);
  addRiskRows(r, rows);
  addScalingRows(r, rows);
  addNodeOptimisationRows(r, rows);
  return rows;
}

void addNodeOptimisationRows(const SimulationReport& r, std::vector<MetricRow>& rows) {
  using Summary = NodeOptimisationSummary;
  using Cell = std::string (*)(const Summary&);
  const bool any = std::any_of(r.runs.begin(), r.runs.end(), [](const SimulationRun& run) {
    return run.nodeOptimisationSummary.has_value();
  });
  if (!any) return;
  const std::pair<const char*, Cell> metrics[] = {
      {"node-hours", [](const Summary& s) { return fixedText(s.nodeHours, 2); }},
      {"CPU above request (core-h)",
       [](const Summary& s) { return fixedText(s.cpuAboveRequestCoreHours, 2); }},
      {"evictions by the node optimiser", [](const Summary& s) { return count(s.evictions); }},
      {"pods sized at admission", [](const Summary& s) { return count(s.admissionSized); }},
  };
  for (const auto& [label, cell] : metrics) {
    MetricRow row{.label = label};
    for (const SimulationRun& run : r.runs) {
      row.values.push_back(run.nodeOptimisationSummary ? cell(*run.nodeOptimisationSummary)
                                                       : std::string("-"));
    }
    rows.push_back(std::move(row));
  }
}

std::vector<std::string> nodeOptimisationLine(const SimulationRun& run) {
  const NodeOptimisationSummary& s = run.nodeOptimisationSummary.value();
  return {"  node optimisation",
          fmt::format("{}: {} node-hours, CPU above request {} core-h, {} evicted, {} pods sized "
                      "at admission ({} already sized)",
                      run.nodeOptimisation.empty() ? "-" : run.nodeOptimisation,
                      fixedText(s.nodeHours, 2), fixedText(s.cpuAboveRequestCoreHours, 2),
                      s.evictions, s.admissionSized, s.admissionUnchanged)};
}

std::string count(std::int64_t n) { return std::to_string(n); }

std::string secondsText(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  const auto whole = static_cast<std::int64_t>(std::llround(seconds));
  constexpr std::int64_t kDay = 86400;
  if (whole > 0 && whole % kDay == 0) return fmt::format("{}d", whole / kDay);
  return formatDuration(std::chrono::seconds(whole));
}

std::string fixedText(double v, int decimals) {
  if (!std::isfinite(v)) return "-";
  if (v == 0) v = 0;  // no "-0.00"
  std::string s = fmt::format("{:.{}f}", v, decimals);
  if (s.find_first_not_of("-0.") == std::string::npos) s.erase(0, s.front() == '-' ? 1 : 0);
  return s;
}

std::string pctText(double v) { return std::isfinite(v) ? fixedText(v, 1) + "%" : "-"; }

std::string workloadName(const WorkloadTimeline& w) { return w.ns + "/" + w.kind + "/" + w.name; }

std::map<std::string, std::int64_t> eventCounts(const WorkloadTimeline& w) {
  std::map<std::string, std::int64_t> out;
  for (const TimelineEvent& e : w.events) ++out[e.kind];
  return out;
}

std::int64_t total(const std::map<std::string, std::int64_t>& byReason) {
  std::int64_t n = 0;
  for (const auto& [reason, count] : byReason) n += count;
  return n;
}

}  // namespace attune::report
