// The risk block of the simulation report: JSON keys and values, a run's text lines, the
// comparison rows, and the changes against the run without an operator (`none`).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/simulation_report.h"
#include "simulation_testing.h"

namespace attune::report {
namespace {

using nlohmann::ordered_json;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

RiskSummary baselineRisk() {
  return {.samples = 1000,
          .cpuAboveRequestPct = 2.5,
          .cpuShortCoreSeconds = 10,
          .cpuAboveRequestCoreHours = 0.5,
          .memoryAboveRequestPct = 1,
          .memoryAtLimitPct = 0,
          .oomKills = 0,
          .kubeletEvictions = 0,
          .evictions = 1,
          .psiWaitingCoreSeconds = 10,
          .pendingPodHours = 0,
          .pendingPodsMax = 0,
          .nodeHours = 200,
          .nodeCost = 50,
          .cpuRequestCoreHours = 800,
          .memoryRequestGibHours = 3200};
}

RiskSummary operatedRisk() {
  return {.samples = 998,
          .cpuAboveRequestPct = 7.75,
          .cpuShortCoreSeconds = 25,
          .cpuAboveRequestCoreHours = 2.25,
          .memoryAboveRequestPct = 3.125,
          .memoryAtLimitPct = 0.5,
          .oomKills = 3,
          .kubeletEvictions = 2,
          .evictions = 5,
          .psiWaitingCoreSeconds = 25,
          .pendingPodHours = 1.5,
          .pendingPodsMax = 4,
          .nodeHours = 150,
          .nodeCost = 37.5,
          .cpuRequestCoreHours = 400,
          .memoryRequestGibHours = 3200};
}

// none (the baseline) and attune.
SimulationReport withBaseline() {
  SimulationReport r{
      .scenario = "demo", .seed = 42, .start = testing::at(0), .duration = std::chrono::hours(2)};
  SimulationRun none = testing::run("none");
  none.mode = "none";
  none.risk = baselineRisk();
  SimulationRun attune = testing::run("attune");
  attune.risk = operatedRisk();
  r.runs = {none, attune};
  return r;
}

// The cells of the comparison row labelled exactly `label` (cells split on two spaces or more).
std::vector<std::string> cells(const std::string& text, const std::string& label) {
  std::istringstream lines(text.substr(text.find("\nCOMPARISON\n")));
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with(label + "  ")) continue;
    std::vector<std::string> out;
    std::size_t i = label.size();
    while (i < line.size()) {
      const std::size_t start = line.find_first_not_of(' ', i);
      if (start == std::string::npos) break;
      std::size_t end = line.find("  ", start);
      if (end == std::string::npos) end = line.size();
      out.push_back(line.substr(start, end - start));
      i = end;
    }
    return out;
  }
  return {};
}

TEST(SimulationRiskTest, JsonHasTheRiskBlockInEveryRunInAFixedOrder) {
  const auto j = ordered_json::parse(renderSimulationJson(withBaseline()));
  const auto& risk = j["runs"][1]["risk"];
  std::vector<std::string> keys;
  for (const auto& [k, v] : risk.items()) keys.push_back(k);
  EXPECT_EQ(keys,
            (std::vector<std::string>{"samples", "cpu_above_request_pct", "cpu_short_core_seconds",
                                      "cpu_above_request_core_hours", "memory_above_request_pct",
                                      "memory_at_limit_pct", "oom_kills", "kubelet_evictions",
                                      "evictions", "psi_waiting_core_seconds", "pending_pod_hours",
                                      "pending_pods_max", "node_hours", "node_cost",
                                      "cpu_request_core_hours", "memory_request_gib_hours"}));
  EXPECT_EQ(risk["samples"], 998);
  EXPECT_EQ(risk["cpu_above_request_pct"], 7.75);
  EXPECT_EQ(risk["cpu_short_core_seconds"], 25.0);
  EXPECT_EQ(risk["cpu_above_request_core_hours"], 2.25);
  EXPECT_EQ(risk["memory_above_request_pct"], 3.125);
  EXPECT_EQ(risk["memory_at_limit_pct"], 0.5);
  EXPECT_EQ(risk["oom_kills"], 3);
  EXPECT_EQ(risk["kubelet_evictions"], 2);
  EXPECT_EQ(risk["evictions"], 5);
  EXPECT_EQ(risk["psi_waiting_core_seconds"], 25.0);
  EXPECT_EQ(risk["pending_pod_hours"], 1.5);
  EXPECT_EQ(risk["pending_pods_max"], 4);
  EXPECT_EQ(risk["node_hours"], 150.0);
  EXPECT_EQ(risk["node_cost"], 37.5);
  EXPECT_EQ(risk["cpu_request_core_hours"], 400.0);
  EXPECT_EQ(risk["memory_request_gib_hours"], 3200.0);
  // Present, all zero, in a run that filled nothing.
  const auto plain = ordered_json::parse(renderSimulationJson(testing::sampleReport()));
  EXPECT_EQ(plain["runs"][0]["risk"]["samples"], 0);
}

TEST(SimulationRiskTest, ComparisonRowsReadEveryRunAgainstNone) {
  const std::string t = renderSimulationTable(withBaseline());
  // Shares: percentage points; counts: signed; amounts: percent of the baseline.
  EXPECT_EQ(cells(t, "risk: samples CPU > request"),
            (std::vector<std::string>{"2.50%", "7.75% (+5.25 pp)"}));
  EXPECT_EQ(cells(t, "risk: CPU short (core-s)"),
            (std::vector<std::string>{"10.0", "25.0 (+150.0%)"}));
  EXPECT_EQ(cells(t, "risk: CPU > request (core-h)"),
            (std::vector<std::string>{"0.50", "2.25 (+350.0%)"}));
  EXPECT_EQ(cells(t, "risk: samples memory > request"),
            (std::vector<std::string>{"1.00%", "3.12% (+2.12 pp)"}));
  EXPECT_EQ(cells(t, "risk: samples memory at limit"),
            (std::vector<std::string>{"0.00%", "0.50% (+0.50 pp)"}));
  EXPECT_EQ(cells(t, "risk: OOM kills"), (std::vector<std::string>{"0", "3 (+3)"}));
  EXPECT_EQ(cells(t, "risk: kubelet evictions"), (std::vector<std::string>{"0", "2 (+2)"}));
  EXPECT_EQ(cells(t, "risk: evictions (all)"), (std::vector<std::string>{"1", "5 (+4)"}));
  EXPECT_EQ(cells(t, "risk: container-samples"), (std::vector<std::string>{"1000", "998 (-2)"}));
  // An amount over a zero baseline changes by its own unit.
  EXPECT_EQ(cells(t, "risk: pending (pod-h)"), (std::vector<std::string>{"0.00", "1.50 (+1.50)"}));
  EXPECT_EQ(cells(t, "risk: most pods pending"), (std::vector<std::string>{"0", "4 (+4)"}));
  EXPECT_EQ(cells(t, "risk: node-hours"), (std::vector<std::string>{"200.00", "150.00 (-25.0%)"}));
  EXPECT_EQ(cells(t, "risk: node cost"), (std::vector<std::string>{"50.00", "37.50 (-25.0%)"}));
  EXPECT_EQ(cells(t, "risk: CPU requests (core-h)"),
            (std::vector<std::string>{"800.00", "400.00 (-50.0%)"}));
  EXPECT_EQ(cells(t, "risk: memory requests (GiB-h)"),
            (std::vector<std::string>{"3200.00", "3200.00 (±0%)"}));
}

TEST(SimulationRiskTest, WithoutNoneTheRowsCarryNoChange) {
  SimulationReport r = testing::sampleReport();
  r.runs[0].risk = operatedRisk();
  const std::string t = renderSimulationTable(r);
  EXPECT_EQ(cells(t, "risk: samples CPU > request"), (std::vector<std::string>{"7.75%", "0.00%"}));
  EXPECT_FALSE(has(t, "change against none")) << t;
}

TEST(SimulationRiskTest, EachRunBlockHasItsRiskLines) {
  const std::string t = renderSimulationTable(withBaseline());
  for (const char* part :
       {"risk cpu      1000 samples, 2.50% above request, short 10.0 core-s, above request 0.50 "
        "core-h, PSI waiting 10.0 core-s",
        "risk cpu      998 (-2) samples, 7.75% (+5.25 pp) above request, short 25.0 (+150.0%) "
        "core-s",
        "risk memory   3.12% (+2.12 pp) above request, 0.50% (+0.50 pp) at limit, OOM kills 3 "
        "(+3), evictions 5 (+4) (kubelet 2 (+2))",
        "risk pending  1.50 (+1.50) pod-h, at most 4 (+4) pods",
        "cost          150.00 (-25.0%) node-h, 37.50 (-25.0%), requests 400.00 (-50.0%) core-h "
        "and 3200.00 (±0%) GiB-h",
        "(in brackets: the change against none)"}) {
    EXPECT_TRUE(has(t, part)) << part << "\n" << t;
  }
}

TEST(SimulationRiskTest, HtmlComparisonTableHasTheRiskRows) {
  const std::string h = renderSimulationHtml(withBaseline());
  EXPECT_TRUE(has(h, "<tr><th scope=\"row\">risk: OOM kills</th><td>0</td><td>3 (+3)</td></tr>"))
      << h;
  EXPECT_TRUE(has(h,
                  "<tr><th scope=\"row\">risk: samples CPU &gt; request</th><td>2.50%</td>"
                  "<td>7.75% (+5.25 pp)</td></tr>"))
      << h;
}

}  // namespace
}  // namespace attune::report
