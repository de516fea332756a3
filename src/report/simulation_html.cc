// renderSimulationHtml: one self-contained page (inline CSS and SVG, no scripts, no external
// resources).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "report/simulation_chart.h"
#include "report/simulation_headline.h"
#include "report/simulation_report.h"
#include "report/simulation_values.h"

namespace attune::report {
namespace {

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1000px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
h3 { font-size: 15px; margin-bottom: 4px; word-break: break-all; }
table.comparison { border-collapse: collapse; }
table.comparison th, table.comparison td { padding: 2px 10px; border-bottom: 1px solid #eee; }
table.comparison td { text-align: right; font-variant-numeric: tabular-nums; }
table.comparison th[scope=row] { text-align: left; font-weight: normal; }
table.comparison th.sub { padding-left: 28px; color: #555; }
svg.chart { display: block; max-width: 100%; height: auto; margin: 6px 0; }
svg.chart text { font: 11px system-ui, sans-serif; fill: #444; }
svg.chart text.title { font-weight: bold; fill: #222; }
svg.chart line.grid { stroke: #eee; } svg.chart line.axis { stroke: #888; }
.legend span { display: inline-block; margin-right: 12px; }
.swatch { display: inline-block; width: 14px; height: 4px; vertical-align: middle;
  margin-right: 4px; }
.swatch.dashed { background: none !important; border-top: 2px dashed #d95f02; height: 0; }
ol.events { font-size: 13px; padding-left: 24px; } ol.events time { color: #555; }
.none { color: #777; font-style: italic; }
section.headline { background: #f5f8fb; border: 1px solid #d6e2ec; padding: 4px 16px 12px; }
section.headline p.lead { font-size: 16px; }
table.risk { border-collapse: collapse; margin: 8px 0; }
table.risk th, table.risk td { padding: 2px 12px; border-bottom: 1px solid #e4e4e4; }
table.risk td { text-align: right; font-variant-numeric: tabular-nums; }
table.risk th[scope=row] { text-align: left; font-weight: normal; }
td.worse { color: #b2182b; font-weight: bold; } td.better { color: #1a9850; font-weight: bold; }
.tradeoffs { display: flex; flex-wrap: wrap; gap: 12px; }
.tradeoffs svg.chart { max-width: 460px; }
svg.chart text.axis-title { font-size: 12px; fill: #222; }
)";

std::string swatch(std::string_view color, const char* label, bool dashed = false) {
  return fmt::format(R"(<span><i class="swatch{}" style="background:{}"></i>{}</span>)",
                     dashed ? " dashed" : "", color, label);
}

std::string legend() {
  std::string out = R"(<p class="legend">)";
  out +=
      swatch("#2c7fb8", "usage") + swatch("#222222", "request") + swatch("#d95f02", "limit", true);
  for (const char* kind : {"Resized", "Reverted", "ResizeSkipped", "ResizeFailed", "OOMKilled",
                           "Evicted", "Restarted"}) {
    out += swatch(eventColor(kind), kind);
  }
  return out + "</p>\n";
}

std::string comparisonTable(const SimulationReport& r) {
  std::string out = "<table class=\"comparison\">\n<thead><tr><th scope=\"col\">metric</th>";
  for (const std::string& label : runLabels(r)) {
    out += "<th scope=\"col\">" + escapeHtml(label) + "</th>";
  }
  out += "</tr></thead>\n<tbody>\n";
  for (const MetricRow& m : comparisonRows(r)) {
    const bool sub = m.label.starts_with("  ");
    out += fmt::format(R"(<tr><th scope="row"{}>{}</th>)", sub ? R"( class="sub")" : "",
                       escapeHtml(sub ? m.label.substr(2) : m.label));
    for (const std::string& v : m.values) out += "<td>" + escapeHtml(v) + "</td>";
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table>\n";
}

// The report's window when it has one, widened to every sample and event of the workload.
TimeRange rangeOf(const SimulationReport& r, const WorkloadTimeline& w) {
  std::optional<TimeRange> range;
  const auto widen = [&](Time t) {
    if (!range) {
      range = TimeRange{t, t};
    } else {
      range->from = std::min(range->from, t);
      range->to = std::max(range->to, t);
    }
  };
  if (r.duration > Duration::zero()) {
    widen(r.start);
    widen(r.start + r.duration);
  }
  for (const UsagePoint& p : w.cpu) widen(p.time);
  for (const UsagePoint& p : w.memory) widen(p.time);
  for (const TimelineEvent& e : w.events) widen(e.time);
  return range.value_or(TimeRange{r.start, r.start});
}

std::string eventList(const WorkloadTimeline& w) {
  if (w.events.empty()) return "<p class=\"none\">No safety events.</p>\n";
  std::vector<const TimelineEvent*> sorted;
  for (const TimelineEvent& e : w.events) sorted.push_back(&e);
  std::stable_sort(
      sorted.begin(), sorted.end(),
      [](const TimelineEvent* a, const TimelineEvent* b) { return a->time < b->time; });
  // Safety events (reverts, failures, OOM kills, evictions) are all listed; routine ones
  // (resizes, skips, restarts) up to kListedRoutineEvents per kind, then counted.
  constexpr int kListedRoutineEvents = 50;
  const auto routine = [](std::string_view kind) {
    return kind == "Resized" || kind == "ResizeSkipped" || kind == "Restarted";
  };
  std::map<std::string, int, std::less<>> listed;
  std::map<std::string, int, std::less<>> unlisted;
  std::string out = "<ol class=\"events\">\n";
  for (const TimelineEvent* e : sorted) {
    if (routine(e->kind) && ++listed[e->kind] > kListedRoutineEvents) {
      ++unlisted[e->kind];
      continue;
    }
    const std::string at = formatRfc3339(e->time);
    out += fmt::format(
        R"(<li><i class="swatch" style="background:{}"></i><time datetime="{}">{}</time> )"
        R"(<b>{}</b> {}/{}{}</li>)",
        eventColor(e->kind), at, at, escapeHtml(e->kind), escapeHtml(e->pod),
        escapeHtml(e->container), e->detail.empty() ? "" : ": " + escapeHtml(e->detail));
    out += "\n";
  }
  out += "</ol>\n";
  for (const auto& [kind, count] : unlisted) {
    out += fmt::format("<p class=\"none\">… and {} more {} events (the first {} are listed).</p>\n",
                       count, escapeHtml(kind), kListedRoutineEvents);
  }
  return out;
}

std::string chartOrNote(const std::vector<UsagePoint>& points, const WorkloadTimeline& w,
                        ChartResource resource, TimeRange range) {
  if (points.empty()) {
    return fmt::format("<p class=\"none\">No {} samples.</p>\n",
                       resource == ChartResource::kCpu ? "CPU" : "memory");
  }
  return renderUsageChart(points, w.events, resource, range) + "\n";
}

std::string workloadSection(const SimulationReport& r, const WorkloadTimeline& w) {
  const TimeRange range = rangeOf(r, w);
  std::string out = "<section class=\"workload\">\n<h3>" + escapeHtml(workloadName(w)) + "</h3>\n";
  out += fmt::format(
      "<p class=\"savings\">CPU savings <b>{}</b> · memory savings <b>{}</b> · {} event{}</p>\n",
      pctText(w.cpuSavingsPct), pctText(w.memorySavingsPct), w.events.size(),
      w.events.size() == 1 ? "" : "s");
  out += chartOrNote(w.cpu, w, ChartResource::kCpu, range);
  out += chartOrNote(w.memory, w, ChartResource::kMemory, range);
  return out + eventList(w) + "</section>\n";
}

// A safety event: the monitor reverted a resize, a resize failed, a container was OOM-killed or
// a pod evicted.
bool safetyEvent(const TimelineEvent& e) {
  return e.kind == "Reverted" || e.kind == "ResizeFailed" || e.kind == "OOMKilled" ||
         e.kind == "Evicted";
}

// The share of the run's requests a workload saved: its CPU core-hours over the run's, plus its
// memory GiB-hours over the run's.
double impact(const SimulationRun& run, const WorkloadTimeline& w) {
  const auto share = [](double saved, double total) { return total > 0 ? saved / total : 0.0; };
  return share(w.cpuRequestCoreHoursBefore - w.cpuRequestCoreHoursAfter,
               run.cpu.requestCoreHoursBefore) +
         share(w.memoryRequestGibHoursBefore - w.memoryRequestGibHoursAfter,
               run.memory.requestGibHoursBefore);
}

// The run's workloads: those with a safety event first, then by impact (largest first), then by
// name.
std::vector<const WorkloadTimeline*> byImpact(const SimulationRun& run) {
  struct Entry {
    const WorkloadTimeline* w;
    bool safety;
    double impact;
  };
  std::vector<Entry> entries;
  for (const WorkloadTimeline& w : run.workloads) {
    entries.push_back(
        {&w, std::any_of(w.events.begin(), w.events.end(), safetyEvent), impact(run, w)});
  }
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
    if (a.safety != b.safety) return a.safety;
    return a.impact > b.impact;
  });
  std::vector<const WorkloadTimeline*> out;
  for (const Entry& e : entries) out.push_back(e.w);
  return out;
}

// The cluster over time: nodes; CPU and memory allocatable, requested and used.
std::string clusterSection(const SimulationReport& r, const SimulationRun& s) {
  if (s.cluster.empty()) return "";
  TimeRange range{s.cluster.front().time, s.cluster.back().time};
  if (r.duration > Duration::zero()) {
    range.from = std::min(range.from, r.start);
    range.to = std::max(range.to, r.start + r.duration);
  }
  constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
  ChartSeries nodes{
      .name = "nodes", .color = "#222222", .step = true, .dashed = false, .points = {}};
  ChartSeries cpuAllocatable{
      .name = "allocatable", .color = "#d95f02", .step = true, .dashed = true, .points = {}};
  ChartSeries cpuRequest{
      .name = "request", .color = "#222222", .step = true, .dashed = false, .points = {}};
  ChartSeries cpuUsage{
      .name = "usage", .color = "#2c7fb8", .step = false, .dashed = false, .points = {}};
  ChartSeries memoryAllocatable = cpuAllocatable, memoryRequest = cpuRequest,
              memoryUsage = cpuUsage;
  for (const ClusterPoint& p : s.cluster) {
    nodes.points.emplace_back(p.time, static_cast<double>(p.nodes));
    cpuAllocatable.points.emplace_back(p.time, p.cpuAllocatable);
    cpuRequest.points.emplace_back(p.time, p.cpuRequest);
    cpuUsage.points.emplace_back(p.time, p.cpuUsage);
    memoryAllocatable.points.emplace_back(p.time, p.memoryAllocatable / kGiB);
    memoryRequest.points.emplace_back(p.time, p.memoryRequest / kGiB);
    memoryUsage.points.emplace_back(p.time, p.memoryUsage / kGiB);
  }
  std::string out = "<section class=\"cluster\">\n<h3>Cluster: nodes, requests and usage</h3>\n";
  out += R"(<p class="legend">)" + swatch("#222222", "nodes / request") +
         swatch("#2c7fb8", "usage") + swatch("#d95f02", "allocatable", true) + "</p>\n";
  out += renderLineChart("Nodes", "count", {nodes}, range) + "\n";
  out +=
      renderLineChart("Cluster CPU", "cores", {cpuAllocatable, cpuRequest, cpuUsage}, range) + "\n";
  out += renderLineChart("Cluster memory", "GiB", {memoryAllocatable, memoryRequest, memoryUsage},
                         range) +
         "\n";
  return out + "</section>\n";
}

std::string runSection(const SimulationReport& r, const SimulationRun& s,
                       const std::string& label) {
  std::string out = fmt::format("<section class=\"run\">\n<h2>{} <small>mode {}</small></h2>\n",
                                escapeHtml(label), escapeHtml(s.mode));
  out += fmt::format(
      "<p>{} simulated · {} pods · {} containers · {} workload{} · CPU savings {} · memory "
      "savings {} · {} resizes applied, {} reverted, {} OOM kills</p>\n",
      secondsText(s.durationSeconds), s.pods, s.containers, s.workloads.size(),
      s.workloads.size() == 1 ? "" : "s", pctText(s.cpu.savingsPct), pctText(s.memory.savingsPct),
      s.resizes.applied, total(s.resizes.revertedByReason), s.memory.oomKills);
  if (const auto& n = s.nodeOptimisationSummary) {
    out += fmt::format(
        "<p>node optimisation {} · {} node-hours · CPU above request {} core-h · {} evicted by "
        "the node optimiser · {} pods sized at admission</p>\n",
        escapeHtml(s.nodeOptimisation), fixedText(n->nodeHours, 2),
        fixedText(n->cpuAboveRequestCoreHours, 2), n->evictions, n->admissionSized);
  }
  out += clusterSection(r, s);
  if (s.workloads.empty()) out += "<p class=\"none\">No workloads.</p>\n";
  if (!s.workloads.empty()) {
    out +=
        "<h3 class=\"workloads\">Workloads, by impact: every workload with a safety event "
        "first, then the largest savings</h3>\n";
  }
  for (const WorkloadTimeline* w : byImpact(s)) out += workloadSection(r, *w);
  return out + "</section>\n";
}

// The sum of the run's risk figures with these labels (0 for a label it lacks).
double riskSum(const SimulationRun& run, const std::vector<std::string_view>& labels) {
  double sum = 0;
  for (const RiskFigure& f : riskFigures(run)) {
    if (std::find(labels.begin(), labels.end(), f.label) != labels.end()) sum += f.value;
  }
  return sum;
}

// One point per run: x what it saved (node-hours when the autoscaler ran and a run's differ from
// the baseline's, else the mean of its CPU and memory request savings), y the risk it added; the
// run without an operator at (0, 0).
std::string tradeoffCharts(const SimulationReport& r, const Headline& h) {
  const SimulationRun& base = r.runs[h.baseline];
  // Node-hours when the autoscaler made them differ; otherwise they say nothing.
  const bool nodes =
      base.nodes.autoscaled && std::any_of(h.savings.begin(), h.savings.end(),
                                           [](const Savings& s) { return s.nodeHours != 0; });
  const std::string xLabel = nodes ? "node-hours saved against none (%)"
                                   : "requests saved against none (%, CPU and memory)";
  struct Axis {
    const char* title;
    const char* yLabel;
    std::vector<std::string_view> figures;
  };
  const Axis axes[] = {
      {"Savings and disruptions", "added OOM kills + evictions", {"OOM kills", "evictions"}},
      {"Savings and CPU short", "added samples CPU > request (pp)", {"samples CPU > request"}},
  };
  const std::vector<std::string> labels = runLabels(r);
  std::string out = "<div class=\"tradeoffs\">\n";
  for (const Axis& axis : axes) {
    std::vector<TradeoffPoint> points = {
        {.label = labels[h.baseline], .x = 0, .y = 0, .baseline = true}};
    const double baseRisk = riskSum(base, axis.figures);
    for (std::size_t k = 0; k < h.compared.size(); ++k) {
      const Savings& s = h.savings[k];
      const SimulationRun& run = r.runs[h.compared[k]];
      points.push_back({.label = labels[h.compared[k]],
                        .x = nodes ? s.nodeHoursPct : (s.cpuPct + s.memoryPct) / 2,
                        .y = riskSum(run, axis.figures) - baseRisk,
                        .baseline = false});
    }
    out += renderTradeoffChart(axis.title, xLabel, axis.yLabel, points) + "\n";
  }
  return out + "</div>\n";
}

// The headline: per compared run what it saved against the run without an operator, then the
// risk figures of every run side by side (a figure worse than the baseline's in red, better in
// green), then the savings-vs-risk charts.
std::string headlineSection(const SimulationReport& r) {
  std::string out = "<section class=\"headline\">\n<h2>Headline</h2>\n";
  const std::optional<Headline> h = headlineOf(r);
  if (!h) {
    return out +
           "<p class=\"none\">No run without an operator to compare against: add the strategy "
           "<code>none</code> (<code>--strategy none,attune</code>).</p>\n</section>\n";
  }
  const std::vector<std::string> labels = runLabels(r);
  const std::string& base = labels[h->baseline];
  for (std::size_t k = 0; k < h->compared.size(); ++k) {
    const Savings& s = h->savings[k];
    out += fmt::format(
        "<p class=\"lead\"><b>{}</b> against <b>{}</b> (the same cluster without an operator): "
        "<b>{} node-hours</b> saved ({}), node cost <b>{}</b> saved ({}); requests: CPU <b>{} "
        "core-h</b> ({}), memory <b>{} GiB-h</b> ({}) less.</p>\n",
        escapeHtml(labels[h->compared[k]]), escapeHtml(base), fixedText(s.nodeHours, 2),
        pctText(s.nodeHoursPct), fixedText(s.cost, 2), pctText(s.costPct),
        fixedText(s.cpuCoreHours, 2), pctText(s.cpuPct), fixedText(s.memoryGibHours, 2),
        pctText(s.memoryPct));
  }
  const RiskTable table = riskTableOf(r, *h);
  const std::vector<std::size_t>& columns = table.columns;
  const std::vector<std::vector<RiskFigure>>& figures = table.figures;
  const std::vector<std::string>& order = table.labels;
  out += "<table class=\"risk\">\n<thead><tr><th scope=\"col\">risk</th>";
  for (std::size_t i : columns) out += "<th scope=\"col\">" + escapeHtml(labels[i]) + "</th>";
  out += "</tr></thead>\n<tbody>\n";
  const auto find = [](const std::vector<RiskFigure>& fs, const std::string& label) {
    const auto it =
        std::find_if(fs.begin(), fs.end(), [&](const RiskFigure& f) { return f.label == label; });
    return it == fs.end() ? nullptr : &*it;
  };
  for (const std::string& label : order) {
    out += "<tr><th scope=\"row\">" + escapeHtml(label) + "</th>";
    const RiskFigure* baseFigure = find(figures.front(), label);
    for (std::size_t c = 0; c < figures.size(); ++c) {
      const RiskFigure* f = find(figures[c], label);
      std::string cls;
      // Coloured only where the difference shows in the printed figures.
      if (c > 0 && f != nullptr && baseFigure != nullptr && f->text != baseFigure->text) {
        if (f->value > baseFigure->value) cls = R"( class="worse")";
        if (f->value < baseFigure->value) cls = R"( class="better")";
      }
      out += fmt::format("<td{}>{}</td>", cls, f == nullptr ? "-" : escapeHtml(f->text));
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table>\n";
  return out + tradeoffCharts(r, *h) + "</section>\n";
}

}  // namespace

std::string renderSimulationHtml(const SimulationReport& r) {
  const std::string title = "Attune simulation: " + r.scenario;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>" + escapeHtml(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n";
  out += "<body>\n<h1>" + escapeHtml(title) + "</h1>\n";
  out += fmt::format(
      "<p class=\"params\">seed {} · start <time datetime=\"{}\">{}</time> · duration {} · {} "
      "run{}</p>\n",
      r.seed, formatRfc3339(r.start), formatRfc3339(r.start),
      secondsText(std::chrono::duration<double>(r.duration).count()), r.runs.size(),
      r.runs.size() == 1 ? "" : "s");
  if (r.runs.empty()) return out + "<p class=\"none\">No runs.</p>\n</body>\n</html>\n";
  out += headlineSection(r);
  out += "<h2>Comparison</h2>\n" + comparisonTable(r) + legend();
  const std::vector<std::string> labels = runLabels(r);
  for (std::size_t i = 0; i < r.runs.size(); ++i) out += runSection(r, r.runs[i], labels[i]);
  return out + "</body>\n</html>\n";
}

}  // namespace attune::report
