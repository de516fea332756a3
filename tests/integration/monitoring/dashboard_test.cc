// The Grafana dashboard (deploy/components/monitoring/dashboards/attune.json): every panel has
// a unique id, a position and at least one query; every variable it uses is defined; and every
// query, with Grafana's variables substituted, is valid PromQL to the real promtool (each becomes
// a recording rule of a file that `promtool check rules` checks). Skipped without promtool.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using nlohmann::json;

json readDashboard() {
  std::ifstream in(testing::sourceDir() / "deploy/components/monitoring/dashboards/attune.json");
  EXPECT_TRUE(in) << "cannot read the dashboard";
  return json::parse(in);
}

// The queries of every panel, in order.
std::vector<std::string> queries(const json& dashboard) {
  std::vector<std::string> out;
  for (const json& panel : dashboard.at("panels")) {
    if (panel.value("type", "") == "row") continue;
    for (const json& target : panel.at("targets")) out.push_back(target.at("expr"));
  }
  return out;
}

TEST(Dashboard, PanelsHaveIdsPositionsAndQueries) {
  const json dashboard = readDashboard();
  EXPECT_EQ(dashboard.value("uid", ""), "attune-operator");
  std::set<int> ids;
  int panels = 0;
  for (const json& panel : dashboard.at("panels")) {
    EXPECT_TRUE(ids.insert(panel.at("id").get<int>()).second) << "duplicate id " << panel["id"];
    EXPECT_TRUE(panel.contains("gridPos")) << panel.value("title", "");
    if (panel.value("type", "") == "row") continue;
    ++panels;
    EXPECT_FALSE(panel.value("title", "").empty());
    ASSERT_TRUE(panel.contains("targets")) << panel.value("title", "");
    EXPECT_FALSE(panel.at("targets").empty()) << panel.value("title", "");
  }
  EXPECT_GE(panels, 12);
  // Every $variable a query or data source uses is defined (or is one of Grafana's own).
  std::set<std::string> defined{"__rate_interval", "__interval", "__range", "__all"};
  for (const json& v : dashboard.at("templating").at("list")) defined.insert(v.at("name"));
  const std::regex variable(R"(\$\{?([A-Za-z_][A-Za-z0-9_]*))");
  const std::string text = dashboard.dump();
  for (std::sregex_iterator it(text.begin(), text.end(), variable), end; it != end; ++it) {
    EXPECT_TRUE(defined.contains((*it)[1])) << "undefined variable $" << (*it)[1];
  }
}

TEST(Dashboard, EveryQueryIsValidPromQl) {
  if (testing::runCommand("command -v promtool").exitCode != 0) {
    GTEST_SKIP() << "promtool is not installed (bash scripts/setup.sh installs prometheus)";
  }
  const json dashboard = readDashboard();
  std::string rules = "groups:\n  - name: dashboard\n    rules:\n";
  int n = 0;
  for (std::string expr : queries(dashboard)) {
    expr = std::regex_replace(expr, std::regex(R"(\$__rate_interval)"), "5m");
    expr = std::regex_replace(expr, std::regex(R"(\$namespace)"), ".*");
    ASSERT_EQ(expr.find('$'), std::string::npos) << expr;
    rules += "      - record: dashboard:query_" + std::to_string(++n) + "\n";
    rules += "        expr: " + json(expr).dump() + "\n";
  }
  testing::TempDir dir;
  const auto file = dir.path() / "dashboard.rules.yaml";
  std::ofstream(file) << rules;
  const auto checked = testing::runCommand("promtool check rules " + file.string());
  EXPECT_EQ(checked.exitCode, 0) << checked.out << checked.err << rules;
  EXPECT_NE(checked.out.find("SUCCESS: " + std::to_string(n) + " rules found"), std::string::npos)
      << checked.out;
}

}  // namespace
}  // namespace attune
