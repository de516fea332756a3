#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/simulation_report.h"
#include "simulation_testing.h"

namespace attune::report {
namespace {

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The whitespace-separated words of the first line starting with `prefix`; empty if none.
std::vector<std::string> wordsOfLine(const std::string& text, const std::string& prefix) {
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (!line.starts_with(prefix)) continue;
    std::istringstream in(line.substr(prefix.size()));
    std::vector<std::string> words;
    for (std::string w; in >> w;) words.push_back(w);
    return words;
  }
  return {};
}

TEST(SimulationTableTest, HeaderAndOneSummaryBlockPerRun) {
  const std::string t = renderSimulationTable(testing::sampleReport());
  for (const char* part :
       {"Simulation demo (seed 42) from 2024-05-01T00:00:00Z for 2h, 2 runs",
        "attune (mode Auto): 2h simulated, 3 pods, 6 containers, 1 workload",
        "krr (mode Auto): 2h simulated",
        "requests 3.00 -> 1.50 core-h (savings 50.0%), used 0.75 core-h, throttled 1.2%, PSI "
        "waiting 12.5 core-s",
        "requests 2.00 -> 1.75 GiB-h (savings 12.5%), used 1.12 GiB-h, OOM kills 1",
        "4 applied, 1 failed, 2 skipped (cooldown 2), 1 reverted (oomkill 1)",
        "0 skipped, 3 reverted (throttle 3)", "restarts 1, evictions 0",
        "6.50 node-h, cost 1.75, 2 to 5 nodes (3 at the end), autoscaler added 4, removed 3"}) {
    EXPECT_TRUE(has(t, part)) << part << "\n" << t;
  }
}

TEST(SimulationTableTest, SeveralRunsAreComparedSideBySide) {
  const std::string t = renderSimulationTable(testing::sampleReport());
  ASSERT_TRUE(has(t, "\nCOMPARISON\n")) << t;
  const std::string comparison = t.substr(t.find("\nCOMPARISON\n"));
  EXPECT_EQ(wordsOfLine(comparison, "METRIC"), (std::vector<std::string>{"attune", "krr"}));
  EXPECT_EQ(wordsOfLine(comparison, "CPU savings"), (std::vector<std::string>{"50.0%", "20.0%"}));
  EXPECT_EQ(wordsOfLine(comparison, "memory savings"),
            (std::vector<std::string>{"12.5%", "12.5%"}));
  EXPECT_EQ(wordsOfLine(comparison, "CPU requests before (core-h)"),
            (std::vector<std::string>{"3.00", "3.00"}));
  EXPECT_EQ(wordsOfLine(comparison, "OOM kills"), (std::vector<std::string>{"1", "1"}));
  EXPECT_EQ(wordsOfLine(comparison, "node-hours"), (std::vector<std::string>{"6.50", "6.50"}));
  EXPECT_EQ(wordsOfLine(comparison, "node cost"), (std::vector<std::string>{"1.75", "1.75"}));
  // Reasons are the union over the runs; a run without one shows 0.
  EXPECT_EQ(wordsOfLine(comparison, "resizes skipped"), (std::vector<std::string>{"2", "0"}));
  EXPECT_EQ(wordsOfLine(comparison, "  skipped: cooldown"), (std::vector<std::string>{"2", "0"}));
  EXPECT_EQ(wordsOfLine(comparison, "  reverted: oomkill"), (std::vector<std::string>{"1", "0"}));
  EXPECT_EQ(wordsOfLine(comparison, "  reverted: throttle"), (std::vector<std::string>{"0", "3"}));
  EXPECT_EQ(wordsOfLine(comparison, "evictions"), (std::vector<std::string>{"0", "0"}));
}

TEST(SimulationTableTest, NumbersAreRightAligned) {
  SimulationReport r = testing::sampleReport();
  r.runs[1].cpu.requestCoreHoursBefore = 12345.5;
  const std::string t = renderSimulationTable(r);
  EXPECT_TRUE(has(t, "CPU requests before (core-h)      3.00  12345.50\n")) << t;
}

TEST(SimulationTableTest, OneRunHasNoComparison) {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  const std::string t = renderSimulationTable(r);
  EXPECT_TRUE(has(t, "attune (mode Auto)")) << t;
  EXPECT_FALSE(has(t, "COMPARISON")) << t;
}

TEST(SimulationTableTest, RunsOfOneStrategyAreLabelledByMode) {
  SimulationReport r = testing::sampleReport();
  r.runs[1].strategy = "attune";
  r.runs[1].mode = "OneShot";
  const std::string t = renderSimulationTable(r);
  EXPECT_EQ(wordsOfLine(t.substr(t.find("COMPARISON")), "METRIC"),
            (std::vector<std::string>{"attune", "(Auto)", "attune", "(OneShot)"}));
}

TEST(SimulationTableTest, NoRunsSaysSo) {
  const std::string t = renderSimulationTable({.scenario = "demo"});
  EXPECT_TRUE(has(t, "No runs.")) << t;
}

TEST(SimulationTableTest, NonFiniteValuesShowAsDash) {
  SimulationReport r = testing::sampleReport();
  r.runs[0].cpu.savingsPct = std::numeric_limits<double>::quiet_NaN();
  const std::string t = renderSimulationTable(r);
  EXPECT_EQ(wordsOfLine(t.substr(t.find("COMPARISON")), "CPU savings"),
            (std::vector<std::string>{"-", "20.0%"}));
}

}  // namespace
}  // namespace attune::report
