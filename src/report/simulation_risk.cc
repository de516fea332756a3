// The risk block of the simulation report in text: a run's lines and the comparison's rows, each
// read against the run without an operator (`none`) when the report has one.
#include <fmt/core.h>

#include <cmath>
#include <string>
#include <vector>

#include "report/simulation_values.h"

namespace attune::report {
namespace {

constexpr const char* kNoOperator = "none";

// How a figure is shown and compared with the baseline.
enum class Kind {
  kShare,   // a percentage of samples; the change in percentage points
  kCount,   // a whole number; the change as a signed count
  kAmount,  // a sum (core-s, hours, cost); the change in percent of the baseline
};

struct RiskMetric {
  const char* label;
  Kind kind;
  int decimals;  // of an amount
  double (*value)(const RiskSummary&);
};

const RiskMetric kRisk[] = {
    {"container-samples", Kind::kCount, 0,
     [](const RiskSummary& s) { return static_cast<double>(s.samples); }},
    {"samples CPU > request", Kind::kShare, 0,
     [](const RiskSummary& s) { return s.cpuAboveRequestPct; }},
    {"CPU short (core-s)", Kind::kAmount, 1,
     [](const RiskSummary& s) { return s.cpuShortCoreSeconds; }},
    {"CPU > request (core-h)", Kind::kAmount, 2,
     [](const RiskSummary& s) { return s.cpuAboveRequestCoreHours; }},
    {"samples memory > request", Kind::kShare, 0,
     [](const RiskSummary& s) { return s.memoryAboveRequestPct; }},
    {"samples memory at limit", Kind::kShare, 0,
     [](const RiskSummary& s) { return s.memoryAtLimitPct; }},
    {"OOM kills", Kind::kCount, 0,
     [](const RiskSummary& s) { return static_cast<double>(s.oomKills); }},
    {"kubelet evictions", Kind::kCount, 0,
     [](const RiskSummary& s) { return static_cast<double>(s.kubeletEvictions); }},
    {"evictions (all)", Kind::kCount, 0,
     [](const RiskSummary& s) { return static_cast<double>(s.evictions); }},
    {"PSI waiting (core-s)", Kind::kAmount, 1,
     [](const RiskSummary& s) { return s.psiWaitingCoreSeconds; }},
    {"pending (pod-h)", Kind::kAmount, 2, [](const RiskSummary& s) { return s.pendingPodHours; }},
    {"most pods pending", Kind::kCount, 0,
     [](const RiskSummary& s) { return static_cast<double>(s.pendingPodsMax); }},
    {"node-hours", Kind::kAmount, 2, [](const RiskSummary& s) { return s.nodeHours; }},
    {"node cost", Kind::kAmount, 2, [](const RiskSummary& s) { return s.nodeCost; }},
    {"CPU requests (core-h)", Kind::kAmount, 2,
     [](const RiskSummary& s) { return s.cpuRequestCoreHours; }},
    {"memory requests (GiB-h)", Kind::kAmount, 2,
     [](const RiskSummary& s) { return s.memoryRequestGibHours; }},
};

std::string valueText(const RiskMetric& m, double v) {
  switch (m.kind) {
    case Kind::kShare:
      return fmt::format("{}%", fixedText(v, 2));
    case Kind::kCount:
      return count(static_cast<std::int64_t>(std::llround(v)));
    case Kind::kAmount:
      break;
  }
  return fixedText(v, m.decimals);
}

// "+1.25 pp", "+3", "-12.0%"; "±0" when equal; for an amount over a zero baseline, the change
// in its unit.
std::string changeText(const RiskMetric& m, double v, double base) {
  const double d = v - base;
  const auto sign = [](double x) { return x > 0 ? "+" : ""; };
  switch (m.kind) {
    case Kind::kShare:
      return std::fabs(d) < 0.005 ? "±0 pp" : fmt::format("{}{} pp", sign(d), fixedText(d, 2));
    case Kind::kCount:
      return d == 0 ? "±0" : fmt::format("{}{}", sign(d), std::llround(d));
    case Kind::kAmount:
      break;
  }
  if (base == 0) {
    return d == 0 ? "±0" : fmt::format("{}{}", sign(d), fixedText(d, m.decimals));
  }
  const double pct = 100 * d / base;
  return std::fabs(pct) < 0.05 ? "±0%" : fmt::format("{}{}%", sign(pct), fixedText(pct, 1));
}

}  // namespace

const SimulationRun* baselineRun(const SimulationReport& r) {
  for (const SimulationRun& run : r.runs) {
    if (run.strategy == kNoOperator) return &run;
  }
  return nullptr;
}

void addRiskRows(const SimulationReport& r, std::vector<MetricRow>& rows) {
  const SimulationRun* base = baselineRun(r);
  for (const RiskMetric& m : kRisk) {
    MetricRow row{.label = std::string("risk: ") + m.label};
    for (const SimulationRun& run : r.runs) {
      const double v = m.value(run.risk);
      std::string cell = valueText(m, v);
      if (base != nullptr && &run != base) {
        cell += " (" + changeText(m, v, m.value(base->risk)) + ")";
      }
      row.values.push_back(std::move(cell));
    }
    rows.push_back(std::move(row));
  }
}

std::vector<std::vector<std::string>> riskLines(const SimulationRun& run,
                                                const SimulationRun* base) {
  const RiskSummary& s = run.risk;
  const bool vs = base != nullptr && base != &run;
  // A figure, with its change against the baseline when there is one.
  const auto text = [&](std::size_t i) {
    const RiskMetric& m = kRisk[i];
    std::string out = valueText(m, m.value(s));
    if (vs) out += " (" + changeText(m, m.value(s), m.value(base->risk)) + ")";
    return out;
  };
  std::vector<std::vector<std::string>> out = {
      {"  risk cpu", fmt::format("{} samples, {} above request, short {} core-s, above request "
                                 "{} core-h, PSI waiting {} core-s",
                                 text(0), text(1), text(2), text(3), text(9))},
      {"  risk memory",
       fmt::format("{} above request, {} at limit, OOM kills {}, evictions {} (kubelet {})",
                   text(4), text(5), text(6), text(8), text(7))},
      {"  risk pending", fmt::format("{} pod-h, at most {} pods", text(10), text(11))},
      {"  cost", fmt::format("{} node-h, {}, requests {} core-h and {} GiB-h", text(12), text(13),
                             text(14), text(15))},
  };
  if (vs) out.push_back({"", "(in brackets: the change against none)"});
  return out;
}

}  // namespace attune::report
