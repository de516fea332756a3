// Values shared by the simulation report renderers (internal to src/report/): the metric rows of
// the comparison, run labels and number formatting. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "report/simulation_report.h"

namespace attune::report {

// One metric of the comparison: its label (unit included) and one cell per run.
struct MetricRow {
  std::string label;
  std::vector<std::string> values;
};

// The column heading of each run: its strategy, "strategy (guard on|off)" when the HPA guard was
// asked about, "strategy (node opt on|off)" when node optimisation was ("strategy (guard on, node
// opt off)" when both were), or "strategy (mode)" when two runs share a strategy.
std::vector<std::string> runLabels(const SimulationReport& r);
// Every metric of every run, in a fixed order; skip and revert reasons get a row each (the
// union over the runs, sorted), a run without that reason shows 0.
std::vector<MetricRow> comparisonRows(const SimulationReport& r);

// The scaling summary's rows (pod-hours, CPU short, per HPA and per rate change), appended by
// comparisonRows when a run has one; a run without the item shows "-".
void addScalingRows(const SimulationReport& r, std::vector<MetricRow>& rows);
// The node optimisation summary's rows (node-hours, CPU above request, evictions by the node
// optimiser, pods sized at admission), appended by comparisonRows when a run has one; a run
// without it shows "-".
void addNodeOptimisationRows(const SimulationReport& r, std::vector<MetricRow>& rows);
// The run without an operator (strategy `none`) when the report has one: the baseline the risk
// figures of the other runs are read against.
const SimulationRun* baselineRun(const SimulationReport& r);
// The risk summary's rows (samples, CPU and memory shares, CPU short, evictions, PSI, pending
// pods, cost), appended by comparisonRows for every run; with a baseline, every other run's
// cells carry their change against it in brackets ("+1.25 pp", "+3", "-12.0%").
void addRiskRows(const SimulationReport& r, std::vector<MetricRow>& rows);
// The lines (label, text) of a run's risk summary in its text block, with the changes against
// `base` when it is set and is another run.
std::vector<std::vector<std::string>> riskLines(const SimulationRun& run,
                                                const SimulationRun* base);
// The line (label, text) of a run's node optimisation summary in its text block.
std::vector<std::string> nodeOptimisationLine(const SimulationRun& run);
// The lines (label, text) of a run's scaling summary in its text block.
std::vector<std::vector<std::string>> scalingLines(const ScalingSummary& s);
// A time to recover: "3m15s", or "not recovered".
std::string recoveryText(const std::optional<double>& seconds);
// The count as text.
std::string count(std::int64_t n);

// "7d" for whole days, else a Go duration ("36h", "1m30s"); whole seconds.
std::string secondsText(double seconds);
// `v` with `decimals` fixed decimals; "-" when not finite.
std::string fixedText(double v, int decimals);
// "33.3%"; "-" when not finite.
std::string pctText(double v);
// "ns/Kind/name".
std::string workloadName(const WorkloadTimeline& w);
// Number of events per kind.
std::map<std::string, std::int64_t> eventCounts(const WorkloadTimeline& w);
// Sum of the values of a per-reason map.
std::int64_t total(const std::map<std::string, std::int64_t>& byReason);

}  // namespace attune::report
