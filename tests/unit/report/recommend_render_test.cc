#include "report/recommend_render.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report_testing.h"

namespace attune::report {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(RecommendRenderTest, TableHasColumnGroupsRowsAndTotals) {
  const std::string t = renderTable(testing::sampleReport());
  for (const char* part :
       {"WORKLOAD", "CPU NOW", "MEMORY NOW", "ATTUNE CPU", "ATTUNE MEMORY", "KRR CPU", "KRR MEMORY",
        "shop/Deployment/web", "100m/500m", "128Mi/256Mi", "150m/500m (+50%)", "96Mi/256Mi (-25%)",
        "not enough data: 12 of 48 data points", "10m/-", "32Mi/-",
        "TOTALS (requests x replicas; containers without a recommendation count at their "
        "current requests on both sides)",
        "over 24h (step 5m) from trace small.csv"}) {
    EXPECT_TRUE(has(t, part)) << part << "\n" << t;
  }
  // Totals: attune 0.200 → 0.320 cores (-60%); krr 1 of 2 without recommendation.
  EXPECT_TRUE(has(t, "0.200 cores  0.320 cores      -60.0%")) << t;
  EXPECT_TRUE(has(t, "1 of 2")) << t;
}

TEST(RecommendRenderTest, TableRowForNotEnoughDataHasNoNumbers) {
  const std::string t = renderTable(testing::sampleReport());
  std::istringstream lines(t);
  std::string line;
  while (std::getline(lines, line)) {
    if (!has(line, "shop/Deployment/web") || !has(line, " app ")) continue;
    const auto pos = line.find("not enough data");
    ASSERT_NE(pos, std::string::npos);
    EXPECT_EQ(line.substr(pos), "not enough data: 12 of 48 data points  -");
  }
}

TEST(RecommendRenderTest, TableWithoutWorkloadsSaysSo) {
  RecommendReport r{.strategies = {"attune"}};
  const std::string t = renderTable(r);
  EXPECT_TRUE(has(t, "No workloads found.")) << t;
  EXPECT_TRUE(has(t, "TOTALS")) << t;
}

TEST(RecommendRenderTest, JsonDocument) {
  const auto j = nlohmann::json::parse(renderJson(testing::sampleReport()));
  EXPECT_EQ(j["kind"], "RecommendationReport");
  EXPECT_EQ(j["at"], "2024-05-01T00:00:00Z");
  EXPECT_EQ(j["history"], "24h");
  EXPECT_EQ(j["strategies"], nlohmann::json({"attune", "krr"}));
  const auto& app = j["workloads"][0]["containers"][0];
  EXPECT_EQ(j["workloads"][0]["replicas"], 2);
  EXPECT_EQ(app["name"], "app");
  EXPECT_EQ(app["dataPoints"], 288);
  EXPECT_EQ(app["current"]["cpuRequest"], "100m");
  EXPECT_EQ(app["current"]["memoryLimitBytes"], 256 << 20);
  const auto& attune = app["recommendations"][0];
  EXPECT_EQ(attune["strategy"], "attune");
  EXPECT_EQ(attune["enoughData"], true);
  EXPECT_EQ(attune["recommended"]["cpuRequestMillicores"], 150);
  EXPECT_EQ(attune["recommended"]["memoryRequest"], "96Mi");
  EXPECT_EQ(attune["cpuRequestChangePercent"], 50.0);
  EXPECT_EQ(attune["explanation"][1]["what"], "cpu: × (1 + 20%)");
  EXPECT_EQ(attune["explanation"][1]["value"], "150m");
  const auto& krr = app["recommendations"][1];
  EXPECT_EQ(krr["enoughData"], false);
  EXPECT_EQ(krr["reason"], "12 of 48 data points");
  EXPECT_TRUE(krr["recommended"].is_null());
  const auto& sidecar = j["workloads"][0]["containers"][1];
  EXPECT_TRUE(sidecar["current"]["cpuRequest"].is_null());
  EXPECT_TRUE(sidecar["recommendations"][0]["cpuRequestChangePercent"].is_null());
  EXPECT_EQ(j["totals"][0]["cpuCoresNow"], 0.2);
  EXPECT_EQ(j["totals"][1]["containersWithoutRecommendation"], 1);
  EXPECT_TRUE(has(j["totalsNote"].get<std::string>(), "current requests on both sides"));
}

TEST(RecommendRenderTest, YamlCarriesTheSameDocument) {
  const YAML::Node y = YAML::Load(renderYaml(testing::sampleReport()));
  EXPECT_EQ(y["kind"].as<std::string>(), "RecommendationReport");
  const YAML::Node app = y["workloads"][0]["containers"][0];
  EXPECT_EQ(app["current"]["cpuRequest"].as<std::string>(), "100m");
  EXPECT_EQ(app["recommendations"][0]["recommended"]["cpuRequestMillicores"].as<int>(), 150);
  EXPECT_EQ(app["recommendations"][0]["explanation"][0]["value"].as<std::string>(), "125m");
  EXPECT_TRUE(app["recommendations"][1]["recommended"].IsNull());
  EXPECT_EQ(app["recommendations"][1]["reason"].as<std::string>(), "12 of 48 data points");
  EXPECT_DOUBLE_EQ(y["totals"][0]["cpuCoresNow"].as<double>(), 0.2);
}

TEST(RecommendRenderTest, CsvHasOneRowPerContainerAndStrategy) {
  const std::string csv = renderCsv(testing::sampleReport());
  std::istringstream lines(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(lines, line);) rows.push_back(line);
  ASSERT_EQ(rows.size(), 1u + 2 * 2);
  EXPECT_TRUE(rows[0].starts_with("namespace,kind,workload,container,replicas,data_points,"));
  EXPECT_EQ(rows[1],
            "shop,Deployment,web,app,2,288,attune,100,500,134217728,268435456,150,500,100663296,"
            "268435456,50.0,-25.0,true,");
  EXPECT_EQ(rows[2],
            "shop,Deployment,web,app,2,288,krr,100,500,134217728,268435456,,,,,,,false,"
            "12 of 48 data points");
  EXPECT_EQ(rows[3], "shop,Deployment,web,sidecar,2,288,attune,,,,,10,,33554432,,,,true,");
}

}  // namespace
}  // namespace attune::report
