// renderTable: aligned columns, one row per (workload, container), one column pair per strategy.
#include <fmt/core.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "core/time.h"
#include "report/recommend_render.h"
#include "report/render_values.h"
#include "report/text_columns.h"

namespace attune::report {
namespace {

using Row = TextRow;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string pair(const std::string& request, const std::string& limit) {
  return request + "/" + limit;
}

std::string withChange(std::string text, const std::optional<double>& change) {
  const std::string pct = percentText(change);
  return pct.empty() ? text : text + " (" + pct + ")";
}

Row header(const RecommendReport& r) {
  Row row = {"WORKLOAD", "CONTAINER", "PODS", "CPU NOW", "MEMORY NOW"};
  for (const std::string& s : r.strategies) {
    row.push_back(upper(s) + " CPU");
    row.push_back(upper(s) + " MEMORY");
  }
  return row;
}

Row containerRow(const WorkloadReport& w, const ContainerReport& c) {
  const api::ResourceValues& cur = c.current;
  Row row = {w.ns + "/" + w.kind + "/" + w.name, c.name, std::to_string(w.replicas),
             pair(cpuText(cur.cpuRequest), cpuText(cur.cpuLimit)),
             pair(shortMemoryText(cur.memoryRequest), shortMemoryText(cur.memoryLimit))};
  for (const StrategyResult& s : c.results) {
    const recommend::Recommendation& rec = s.recommendation;
    if (!rec.enoughData) {
      row.push_back(notEnoughDataText(rec));
      row.push_back("-");
      continue;
    }
    const api::ResourceValues& v = rec.resources;
    row.push_back(
        withChange(pair(cpuText(v.cpuRequest), cpuText(v.cpuLimit)), cpuRequestChange(cur, v)));
    row.push_back(withChange(pair(shortMemoryText(v.memoryRequest), shortMemoryText(v.memoryLimit)),
                             memoryRequestChange(cur, v)));
  }
  return row;
}

std::string totalsTable(const RecommendReport& r) {
  std::vector<Row> rows = {{"STRATEGY", "CPU NOW", "CPU RECOMMENDED", "CPU SAVED", "MEMORY NOW",
                            "MEMORY RECOMMENDED", "MEMORY SAVED", "NO RECOMMENDATION"}};
  for (const StrategyTotals& t : totals(r)) {
    rows.push_back({t.strategy, fmt::format("{:.3f} cores", t.cpuCoresNow),
                    fmt::format("{:.3f} cores", t.cpuCoresRecommended),
                    fmt::format("{:.1f}%", savedPercent(t.cpuCoresNow, t.cpuCoresRecommended)),
                    fmt::format("{:.3f} GiB", t.memoryGiBNow),
                    fmt::format("{:.3f} GiB", t.memoryGiBRecommended),
                    fmt::format("{:.1f}%", savedPercent(t.memoryGiBNow, t.memoryGiBRecommended)),
                    fmt::format("{} of {}", t.containersWithoutRecommendation, t.containers)});
  }
  return alignedColumns(rows, {});
}

}  // namespace

std::string renderTable(const RecommendReport& r) {
  std::string out =
      fmt::format("Recommendations at {} over {} (step {}) from {}\n", formatRfc3339(r.at),
                  formatDuration(r.history), formatDuration(r.step), r.source);
  out += "Cells are request/limit (change of the request); - = not set.\n\n";
  std::vector<Row> rows = {header(r)};
  for (const WorkloadReport& w : r.workloads) {
    for (const ContainerReport& c : w.containers) rows.push_back(containerRow(w, c));
  }
  if (rows.size() == 1) {
    out += "No workloads found.\n";
  } else {
    out += alignedColumns(rows, {});
  }
  out += fmt::format("\nTOTALS ({})\n", kTotalsNote);
  return out + totalsTable(r);
}

}  // namespace attune::report
