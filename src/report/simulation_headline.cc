#include "report/simulation_headline.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "report/simulation_values.h"
#include "report/text_columns.h"

namespace attune::report {
namespace {

double pctOf(double saved, double base) { return base > 0 ? 100.0 * saved / base : 0.0; }

RiskFigure figure(std::string label, double value, std::string text) {
  return {.label = std::move(label), .value = value, .text = std::move(text)};
}

RiskFigure countFigure(std::string label, std::int64_t n) {
  return figure(std::move(label), static_cast<double>(n), count(n));
}

}  // namespace

std::vector<RiskFigure> riskFigures(const SimulationRun& run) {
  const RiskSummary& risk = run.risk;
  std::vector<RiskFigure> out;
  // Per container-sample (the risk summary), then the events, then CPU contention.
  out.push_back(
      figure("samples CPU > request", risk.cpuAboveRequestPct, pctText(risk.cpuAboveRequestPct)));
  out.push_back(figure("CPU short (core-s)", risk.cpuShortCoreSeconds,
                       fixedText(risk.cpuShortCoreSeconds, 1)));
  out.push_back(figure("samples memory > request", risk.memoryAboveRequestPct,
                       pctText(risk.memoryAboveRequestPct)));
  out.push_back(
      figure("samples memory at limit", risk.memoryAtLimitPct, pctText(risk.memoryAtLimitPct)));
  out.push_back(countFigure("OOM kills", run.memory.oomKills));
  out.push_back(countFigure("evictions", run.evictions));
  out.push_back(countFigure("restarts", run.restarts));
  out.push_back(countFigure("resizes reverted", total(run.resizes.revertedByReason)));
  out.push_back(figure("CPU throttled", run.cpu.throttledPct, pctText(run.cpu.throttledPct)));
  out.push_back(figure("CPU PSI waiting (core-s)", run.cpu.psiWaitingCoreSeconds,
                       fixedText(run.cpu.psiWaitingCoreSeconds, 1)));
  out.push_back(
      figure("pending (pod-h)", risk.pendingPodHours, fixedText(risk.pendingPodHours, 2)));
  return out;
}

Savings savingsAgainst(const SimulationRun& baseline, const SimulationRun& run) {
  Savings s;
  s.nodeHours = baseline.nodes.nodeHours - run.nodes.nodeHours;
  s.nodeHoursPct = pctOf(s.nodeHours, baseline.nodes.nodeHours);
  s.cost = baseline.nodes.cost - run.nodes.cost;
  s.costPct = pctOf(s.cost, baseline.nodes.cost);
  s.cpuCoreHours = baseline.cpu.requestCoreHoursAfter - run.cpu.requestCoreHoursAfter;
  s.cpuPct = pctOf(s.cpuCoreHours, baseline.cpu.requestCoreHoursAfter);
  s.memoryGibHours = baseline.memory.requestGibHoursAfter - run.memory.requestGibHoursAfter;
  s.memoryPct = pctOf(s.memoryGibHours, baseline.memory.requestGibHoursAfter);
  return s;
}

std::optional<Headline> headlineOf(const SimulationReport& r) {
  const auto base = std::find_if(r.runs.begin(), r.runs.end(), [](const SimulationRun& run) {
    return run.strategy == kBaselineStrategy;
  });
  if (base == r.runs.end()) return std::nullopt;
  Headline h;
  h.baseline = static_cast<std::size_t>(base - r.runs.begin());
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    if (i == h.baseline || r.runs[i].strategy == kBaselineStrategy) continue;
    h.compared.push_back(i);
    h.savings.push_back(savingsAgainst(*base, r.runs[i]));
  }
  if (h.compared.empty()) return std::nullopt;
  return h;
}

RiskTable riskTableOf(const SimulationReport& r, const Headline& h) {
  RiskTable out;
  out.columns = {h.baseline};
  out.columns.insert(out.columns.end(), h.compared.begin(), h.compared.end());
  for (std::size_t i : out.columns) {
    out.figures.push_back(riskFigures(r.runs[i]));
    for (const RiskFigure& f : out.figures.back()) {
      if (std::find(out.labels.begin(), out.labels.end(), f.label) == out.labels.end()) {
        out.labels.push_back(f.label);
      }
    }
  }
  return out;
}

std::string renderHeadlineText(const SimulationReport& r) {
  const std::optional<Headline> h = headlineOf(r);
  if (!h) return {};
  const std::vector<std::string> labels = runLabels(r);
  const std::string& baseLabel = labels[h->baseline];
  std::string names;
  for (std::size_t i : h->compared) names += (names.empty() ? "" : ", ") + labels[i];
  std::string out = fmt::format("HEADLINE: {} against {} (the same cluster without an operator)\n",
                                names, baseLabel);
  for (std::size_t k = 0; k < h->compared.size(); ++k) {
    const Savings& s = h->savings[k];
    out += fmt::format(
        "  {} saved {} node-hours ({}), node cost {} ({}); requests: CPU {} core-h ({}), memory "
        "{} GiB-h ({})\n",
        labels[h->compared[k]], fixedText(s.nodeHours, 2), pctText(s.nodeHoursPct),
        fixedText(s.cost, 2), pctText(s.costPct), fixedText(s.cpuCoreHours, 2), pctText(s.cpuPct),
        fixedText(s.memoryGibHours, 2), pctText(s.memoryPct));
  }
  // The risk figures: one row per figure any run has, one column per run, the baseline first.
  const RiskTable table = riskTableOf(r, *h);
  const std::vector<std::size_t>& columns = table.columns;
  const std::vector<std::vector<RiskFigure>>& figures = table.figures;
  const std::vector<std::string>& order = table.labels;
  std::vector<TextRow> rows;
  TextRow head = {"  risk"};
  for (std::size_t i : columns) head.push_back(labels[i]);
  rows.push_back(std::move(head));
  for (const std::string& label : order) {
    TextRow row = {"    " + label};
    for (const auto& fs : figures) {
      const auto it =
          std::find_if(fs.begin(), fs.end(), [&](const RiskFigure& f) { return f.label == label; });
      row.push_back(it == fs.end() ? std::string("-") : it->text);
    }
    rows.push_back(std::move(row));
  }
  constexpr ColumnAlign kAlign[] = {ColumnAlign::kLeft, ColumnAlign::kRight};
  return out + alignedColumns(rows, kAlign);
}

}  // namespace attune::report
