// The scaling summary in the simulation report: the lines of a run's block, the comparison rows
// (two runs of one strategy, without and with the HPA guard), the JSON, the HTML; and nothing of
// it when no run has one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "report/simulation_report.h"
#include "simulation_testing.h"

namespace attune::report {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

ScalingSummary scaling(std::int32_t min, std::optional<double> timeToRecover) {
  return {.podHours = 12.5,
          .cpuShortCoreSeconds = 40.5,
          .workloads = {{.workload = "shop/Deployment/api", .podHours = 10},
                        {.workload = "shop/Deployment/web", .podHours = 2.5}},
          .hpas = {{.ns = "shop",
                    .name = "api",
                    .target = "shop/Deployment/api",
                    .min = min,
                    .max = 6,
                    .final = 6,
                    .mean = 5.5,
                    .finalMinReplicas = min}},
          .recoveries = {{.workload = "shop/Deployment/api",
                          .fromSeconds = 3600,
                          .toSeconds = 4800,
                          .baselineReplicas = 6,
                          .minReplicas = min,
                          .timeToRecoverSeconds = timeToRecover,
                          .cpuShortCoreSeconds = 30}}};
}

// The sample report's two runs as one strategy without and with the guard.
SimulationReport compared() {
  SimulationReport r = testing::sampleReport();
  r.runs[1].strategy = r.runs[0].strategy;
  r.runs[0].hpaGuard = "off";
  r.runs[1].hpaGuard = "on";
  r.runs[0].scaling = scaling(2, 225);
  r.runs[1].scaling = scaling(5, std::nullopt);
  return r;
}

TEST(SimulationScalingTest, TableComparesTheRunsSideBySide) {
  const std::string t = renderSimulationTable(compared());
  EXPECT_TRUE(has(t, "attune, HPA guard off (mode Auto)")) << t;
  const std::string c = t.substr(t.find("COMPARISON"));
  EXPECT_TRUE(has(c, "attune (guard off)  attune (guard on)")) << c;
  EXPECT_TRUE(has(c, "pod-hours  ")) << c;
  EXPECT_TRUE(has(c, "  shop/Deployment/api  ")) << c;
  EXPECT_TRUE(has(c, "HPA shop/api replicas min  ")) << c;
  EXPECT_TRUE(has(c, "time to recover shop/Deployment/api after 1h-1h20m")) << c;
  const std::size_t line = c.find("time to recover shop/Deployment/api");
  const std::string row = c.substr(line, c.find('\n', line) - line);
  EXPECT_TRUE(row.ends_with("3m45s      not recovered")) << row;
  EXPECT_TRUE(has(c, "CPU short during recovery (core-s)")) << c;
  // The run's own block.
  EXPECT_TRUE(has(t, "12.50 pod-hours, CPU short 40.5 core-s")) << t;
  EXPECT_TRUE(has(t, "replicas min 2, max 6, final 6, mean 5.50; minReplicas 2")) << t;
  EXPECT_TRUE(has(t, "time to recover not recovered, ready 6 before, fewest 5")) << t;
}

TEST(SimulationScalingTest, JsonCarriesTheGuardAndTheSummary) {
  const auto j = nlohmann::ordered_json::parse(renderSimulationJson(compared()));
  const auto& off = j["runs"][0];
  EXPECT_EQ(off["hpa_guard"], "off");
  EXPECT_EQ(off["scaling"]["pod_hours"], 12.5);
  EXPECT_EQ(off["scaling"]["workloads"][1]["workload"], "shop/Deployment/web");
  EXPECT_EQ(off["scaling"]["hpas"][0]["replicas_min"], 2);
  EXPECT_EQ(off["scaling"]["hpas"][0]["replicas_mean"], 5.5);
  const auto& recovery = off["scaling"]["recoveries"][0];
  EXPECT_EQ(recovery["time_to_recover_s"], 225.0);
  EXPECT_EQ(recovery["recovered"], true);
  EXPECT_EQ(recovery["fewest_ready_replicas"], 2);
  const auto& on = j["runs"][1]["scaling"]["recoveries"][0];
  EXPECT_TRUE(on["time_to_recover_s"].is_null());
  EXPECT_EQ(on["recovered"], false);
}

TEST(SimulationScalingTest, HtmlComparisonHasTheRows) {
  const std::string h = renderSimulationHtml(compared());
  EXPECT_TRUE(has(h, "<th scope=\"col\">attune (guard on)</th>")) << h;
  EXPECT_TRUE(has(h, "time to recover shop/Deployment/api after 1h-1h20m")) << h;
  EXPECT_TRUE(has(h, "<td>not recovered</td>")) << h;
}

TEST(SimulationScalingTest, NothingWithoutASummary) {
  const SimulationReport r = testing::sampleReport();
  EXPECT_FALSE(has(renderSimulationTable(r), "pod-hours"));
  EXPECT_FALSE(has(renderSimulationJson(r), "scaling"));
  EXPECT_FALSE(has(renderSimulationJson(r), "hpa_guard"));
  EXPECT_FALSE(has(renderSimulationHtml(r), "time to recover"));
}

}  // namespace
}  // namespace attune::report
