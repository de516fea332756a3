// renderSimulationHtml: one self-contained page (inline CSS and SVG, no scripts, no external
// resources).
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "report/simulation_chart.h"
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
  if (s.workloads.empty()) out += "<p class=\"none\">No workloads.</p>\n";
  for (const WorkloadTimeline& w : s.workloads) out += workloadSection(r, w);
  return out + "</section>\n";
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
  out += "<h2>Comparison</h2>\n" + comparisonTable(r) + legend();
  const std::vector<std::string> labels = runLabels(r);
  for (std::size_t i = 0; i < r.runs.size(); ++i) out += runSection(r, r.runs[i], labels[i]);
  return out + "</body>\n</html>\n";
}

}  // namespace attune::report
