// The headline of a backtest (internal to src/report/): what each strategy saved against the run
// without an operator (strategy "none", same scenario and seed) — node-hours, node cost, CPU and
// memory requests — and the risk figures of every run side by side. Pure; the text and HTML
// renderers read it (docs/simulate-report.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/simulation_report.h"

namespace attune::report {

// The strategy name of the run without an operator (cli::kNoOperator).
inline constexpr std::string_view kBaselineStrategy = "none";

// One risk figure of a run: higher is worse.
struct RiskFigure {
  std::string label;  // "OOM kills", "CPU throttled", ... (unit included where there is one)
  double value = 0;
  std::string text;  // the value as printed
};

// Every risk figure of a run, in a fixed order: the per-sample shares and CPU short of its risk
// summary, OOM kills, evictions, restarts, reverts, CPU throttling, PSI waiting and pending
// pod-hours. The one place a new figure is added: the text headline, the HTML headline and the
// savings-vs-risk charts all read this list.
std::vector<RiskFigure> riskFigures(const SimulationRun& run);

// What `run` saved against `baseline` (positive = less than without the operator).
struct Savings {
  double nodeHours = 0, nodeHoursPct = 0;
  double cost = 0, costPct = 0;
  double cpuCoreHours = 0, cpuPct = 0;       // requests, core-hours
  double memoryGibHours = 0, memoryPct = 0;  // requests, GiB-hours
};
Savings savingsAgainst(const SimulationRun& baseline, const SimulationRun& run);

// The headline of a report: present when it has a run of strategy "none" and at least one other.
struct Headline {
  std::size_t baseline = 0;           // index of the "none" run in SimulationReport::runs
  std::vector<std::size_t> compared;  // every other run, in report order
  std::vector<Savings> savings;       // one per compared run
};
std::optional<Headline> headlineOf(const SimulationReport& r);

// The headline's risk table: the runs as columns (the baseline first, then the compared runs),
// each column's figures, and every label any of them has, in the order first seen.
struct RiskTable {
  std::vector<std::size_t> columns;              // indexes into SimulationReport::runs
  std::vector<std::vector<RiskFigure>> figures;  // one list per column
  std::vector<std::string> labels;
};
RiskTable riskTableOf(const SimulationReport& r, const Headline& h);

// The text headline that ends renderSimulationTable (empty without a headline):
//
//   HEADLINE: attune against none (the same cluster without an operator)
//     attune saved 586.67 node-hours (21.8%), cost 111.47 (21.8%); requests CPU ...
//   RISK                   none  attune
//     OOM kills             136      12
std::string renderHeadlineText(const SimulationReport& r);

}  // namespace attune::report
