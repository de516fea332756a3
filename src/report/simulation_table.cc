// renderSimulationTable: a header, one summary block per run, and the side-by-side comparison.
#include <fmt/core.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/simulation_headline.h"
#include "report/simulation_report.h"
#include "report/simulation_values.h"
#include "report/text_columns.h"

namespace attune::report {
namespace {

using Row = TextRow;

// The comparison: metric names left, one right-aligned column of numbers per run.
constexpr ColumnAlign kComparisonAlign[] = {ColumnAlign::kLeft, ColumnAlign::kRight};

// "cooldown 2, limitrange 1"; empty for no reasons.
std::string reasons(const std::map<std::string, std::int64_t>& byReason) {
  std::string out;
  for (const auto& [reason, n] : byReason) {
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", reason, n);
  }
  return out;
}

std::string countWithReasons(std::int64_t n, const char* what,
                             const std::map<std::string, std::int64_t>& byReason) {
  const std::string detail = reasons(byReason);
  return fmt::format("{} {}{}", n, what, detail.empty() ? "" : " (" + detail + ")");
}

std::string summary(const SimulationRun& s, const SimulationRun* base) {
  std::string out =
      fmt::format("{}{}{} (mode {}): {} simulated, {} pods, {} containers, {} workload{}\n",
                  s.strategy, s.hpaGuard.empty() ? "" : ", HPA guard " + s.hpaGuard,
                  s.nodeOptimisation.empty() ? "" : ", node optimisation " + s.nodeOptimisation,
                  s.mode, secondsText(s.durationSeconds), s.pods, s.containers, s.workloads.size(),
                  s.workloads.size() == 1 ? "" : "s");
  std::vector<Row> rows = {
      {"  cpu", fmt::format("requests {} -> {} core-h (savings {}), used {} core-h, throttled {}, "
                            "PSI waiting {} core-s",
                            fixedText(s.cpu.requestCoreHoursBefore, 2),
                            fixedText(s.cpu.requestCoreHoursAfter, 2), pctText(s.cpu.savingsPct),
                            fixedText(s.cpu.usedCoreHours, 2), pctText(s.cpu.throttledPct),
                            fixedText(s.cpu.psiWaitingCoreSeconds, 1))},
      {"  memory",
       fmt::format("requests {} -> {} GiB-h (savings {}), used {} GiB-h, OOM kills {}",
                   fixedText(s.memory.requestGibHoursBefore, 2),
                   fixedText(s.memory.requestGibHoursAfter, 2), pctText(s.memory.savingsPct),
                   fixedText(s.memory.usedGibHours, 2), s.memory.oomKills)},
      {"  resizes",
       fmt::format(
           "{} applied, {} failed, {}, {}", s.resizes.applied, s.resizes.failed,
           countWithReasons(total(s.resizes.skippedByReason), "skipped", s.resizes.skippedByReason),
           countWithReasons(total(s.resizes.revertedByReason), "reverted",
                            s.resizes.revertedByReason))},
      {"  pods", fmt::format("restarts {}, evictions {}{}", s.restarts, s.evictions,
                             s.admissionWebhook
                                 ? fmt::format(", {} sized at admission", s.podsSizedAtAdmission)
                                 : std::string())},
      {"  nodes", fmt::format("{} node-h, cost {}, {} to {} nodes ({} at the end){}",
                              fixedText(s.nodes.nodeHours, 2), fixedText(s.nodes.cost, 2),
                              s.nodes.min, s.nodes.max, s.nodes.final,
                              s.nodes.autoscaled ? fmt::format(", autoscaler added {}, removed {}",
                                                               s.nodes.added, s.nodes.removed)
                                                 : std::string(", fixed count"))},
  };
  for (Row& line : riskLines(s, base)) rows.push_back(std::move(line));
  if (s.scaling) {
    for (Row& line : scalingLines(*s.scaling)) rows.push_back(std::move(line));
  }
  if (s.nodeOptimisationSummary) rows.push_back(nodeOptimisationLine(s));
  return out + alignedColumns(rows, {});
}

std::string comparison(const SimulationReport& r) {
  Row head = {"METRIC"};
  for (const std::string& label : runLabels(r)) head.push_back(label);
  std::vector<Row> rows = {head};
  for (MetricRow& m : comparisonRows(r)) {
    Row row = {m.label};
    row.insert(row.end(), m.values.begin(), m.values.end());
    rows.push_back(std::move(row));
  }
  return alignedColumns(rows, kComparisonAlign);
}

}  // namespace

std::string renderSimulationTable(const SimulationReport& r) {
  std::string out = fmt::format("Simulation {} (seed {}) from {} for {}, {} run{}\n", r.scenario,
                                r.seed, formatRfc3339(r.start),
                                secondsText(std::chrono::duration<double>(r.duration).count()),
                                r.runs.size(), r.runs.size() == 1 ? "" : "s");
  if (r.runs.empty()) return out + "\nNo runs.\n";
  for (const SimulationRun& run : r.runs) out += "\n" + summary(run, baselineRun(r));
  if (r.runs.size() > 1) out += "\nCOMPARISON\n" + comparison(r);
  // Last, what a reader looks for first: the savings against the run without an operator.
  if (const std::string headline = renderHeadlineText(r); !headline.empty()) {
    out += "\n" + headline;
  }
  return out;
}

}  // namespace attune::report
