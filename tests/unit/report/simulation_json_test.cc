#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "report/simulation_report.h"
#include "simulation_testing.h"

namespace attune::report {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

std::vector<std::string> keys(const ordered_json& j) {
  std::vector<std::string> out;
  for (const auto& [k, v] : j.items()) out.push_back(k);
  return out;
}

TEST(SimulationJsonTest, TopLevelFields) {
  const auto j = ordered_json::parse(renderSimulationJson(testing::sampleReport()));
  EXPECT_EQ(keys(j), (std::vector<std::string>{"scenario", "seed", "start", "duration_s", "runs"}));
  EXPECT_EQ(j["scenario"], "demo");
  EXPECT_EQ(j["seed"], 42);
  EXPECT_EQ(j["start"], "2024-05-01T00:00:00Z");
  EXPECT_EQ(j["duration_s"], 7200);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["strategy"], "attune");
  EXPECT_EQ(j["runs"][1]["strategy"], "krr");
}

TEST(SimulationJsonTest, EveryRunCarriesTheRequiredFields) {
  const auto j = ordered_json::parse(renderSimulationJson(testing::sampleReport()));
  const auto& run = j["runs"][0];
  EXPECT_EQ(keys(run),
            (std::vector<std::string>{"strategy", "mode", "duration_s", "pods", "containers", "cpu",
                                      "memory", "resizes", "restarts", "evictions", "admission",
                                      "nodes", "risk", "workloads"}));
  EXPECT_EQ(run["admission"], (ordered_json{{"webhook", false}, {"pods_sized", 0}}));
  EXPECT_EQ(run["mode"], "Auto");
  EXPECT_EQ(run["duration_s"], 7200);
  EXPECT_EQ(run["pods"], 3);
  EXPECT_EQ(run["containers"], 6);
  EXPECT_EQ(keys(run["cpu"]),
            (std::vector<std::string>{"request_core_hours_before", "request_core_hours_after",
                                      "used_core_hours", "savings_pct", "throttled_pct",
                                      "psi_waiting_core_seconds"}));
  EXPECT_EQ(run["cpu"]["request_core_hours_before"], 3.0);
  EXPECT_EQ(run["cpu"]["request_core_hours_after"], 1.5);
  EXPECT_EQ(run["cpu"]["used_core_hours"], 0.75);
  EXPECT_EQ(run["cpu"]["savings_pct"], 50.0);
  EXPECT_EQ(run["cpu"]["throttled_pct"], 1.25);
  EXPECT_EQ(run["cpu"]["psi_waiting_core_seconds"], 12.5);
  EXPECT_EQ(keys(run["memory"]),
            (std::vector<std::string>{"request_gib_hours_before", "request_gib_hours_after",
                                      "used_gib_hours", "savings_pct", "oom_kills"}));
  EXPECT_EQ(run["memory"]["request_gib_hours_before"], 2.0);
  EXPECT_EQ(run["memory"]["request_gib_hours_after"], 1.75);
  EXPECT_EQ(run["memory"]["used_gib_hours"], 1.125);
  EXPECT_EQ(run["memory"]["savings_pct"], 12.5);
  EXPECT_EQ(run["memory"]["oom_kills"], 1);
  EXPECT_EQ(
      keys(run["resizes"]),
      (std::vector<std::string>{"applied", "failed", "skipped_by_reason", "reverted_by_reason"}));
  EXPECT_EQ(run["resizes"]["applied"], 4);
  EXPECT_EQ(run["resizes"]["failed"], 1);
  EXPECT_EQ(run["resizes"]["skipped_by_reason"], json({{"cooldown", 2}}));
  EXPECT_EQ(run["resizes"]["reverted_by_reason"], json({{"oomkill", 1}}));
  EXPECT_EQ(run["restarts"], 1);
  EXPECT_EQ(run["evictions"], 0);
  EXPECT_EQ(keys(run["nodes"]), (std::vector<std::string>{"autoscaled", "node_hours", "cost", "min",
                                                          "max", "final", "added", "removed"}));
  EXPECT_EQ(run["nodes"]["autoscaled"], true);
  EXPECT_EQ(run["nodes"]["node_hours"], 6.5);
  EXPECT_EQ(run["nodes"]["cost"], 1.75);
  EXPECT_EQ(run["nodes"]["min"], 2);
  EXPECT_EQ(run["nodes"]["max"], 5);
  EXPECT_EQ(run["nodes"]["final"], 3);
  EXPECT_EQ(run["nodes"]["added"], 4);
  EXPECT_EQ(run["nodes"]["removed"], 3);
  // A run without skips still has the (empty) object.
  EXPECT_TRUE(j["runs"][1]["resizes"]["skipped_by_reason"].is_object());
  EXPECT_TRUE(j["runs"][1]["resizes"]["skipped_by_reason"].empty());
  EXPECT_EQ(j["runs"][1]["resizes"]["reverted_by_reason"], json({{"throttle", 3}}));
}

TEST(SimulationJsonTest, WorkloadsCarrySavingsAndEventCountsNotSeries) {
  const auto j = ordered_json::parse(renderSimulationJson(testing::sampleReport()));
  ASSERT_EQ(j["runs"][0]["workloads"].size(), 1u);
  const auto& w = j["runs"][0]["workloads"][0];
  EXPECT_EQ(keys(w), (std::vector<std::string>{"namespace", "kind", "name", "cpu_savings_pct",
                                               "memory_savings_pct", "events", "event_counts"}));
  EXPECT_EQ(w["namespace"], "shop");
  EXPECT_EQ(w["kind"], "Deployment");
  EXPECT_EQ(w["name"], "web");
  EXPECT_EQ(w["cpu_savings_pct"], 50.0);
  EXPECT_EQ(w["memory_savings_pct"], 12.5);
  EXPECT_EQ(w["events"], 3);
  EXPECT_EQ(w["event_counts"], json({{"OOMKilled", 1}, {"Resized", 1}, {"Reverted", 1}}));
}

TEST(SimulationJsonTest, NumbersAreRoundedAndNonFiniteIsNull) {
  SimulationReport r = testing::sampleReport();
  r.runs[0].cpu.usedCoreHours = 1.0 / 3;
  r.runs[0].cpu.savingsPct = 100.0 / 3;
  r.runs[0].memory.savingsPct = std::numeric_limits<double>::infinity();
  r.runs[0].cpu.throttledPct = -0.0001;
  const std::string text = renderSimulationJson(r);
  const auto j = json::parse(text);
  EXPECT_EQ(j["runs"][0]["cpu"]["used_core_hours"], 0.333);
  EXPECT_EQ(j["runs"][0]["cpu"]["savings_pct"], 33.33);
  EXPECT_TRUE(j["runs"][0]["memory"]["savings_pct"].is_null());
  EXPECT_NE(text.find("\"throttled_pct\": 0.0,"), std::string::npos) << text;
  EXPECT_EQ(renderSimulationJson(r), text);
}

TEST(SimulationJsonTest, LargeSeedsSurvive) {
  SimulationReport r = testing::sampleReport();
  r.seed = 18446744073709551615ull;
  const auto j = json::parse(renderSimulationJson(r));
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 18446744073709551615ull);
}

}  // namespace
}  // namespace attune::report
