// The backtest headline: savings against the run without an operator and the risk figures of
// both, on hand-computed values (simulation_testing.h's runs).
#include "report/simulation_headline.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "report/simulation_report.h"
#include "simulation_testing.h"

namespace attune::report {
namespace {

// "none" (no operator: requests as created, 10 node-hours costing 2.50, one eviction) and
// "attune" (simulation_testing.h's run: 6.5 node-hours costing 1.75, requests 3 → 1.5 core-h and
// 2 → 1.75 GiB-h, one OOM kill, one revert).
SimulationReport baselineReport() {
  SimulationReport r = testing::sampleReport();
  r.runs.pop_back();
  SimulationRun none = testing::run("none");
  none.mode = "none";
  none.cpu.requestCoreHoursAfter = none.cpu.requestCoreHoursBefore;
  none.cpu.savingsPct = 0;
  none.cpu.throttledPct = 1;
  none.cpu.psiWaitingCoreSeconds = 10;
  none.memory.requestGibHoursAfter = none.memory.requestGibHoursBefore;
  none.memory.savingsPct = 0;
  none.memory.oomKills = 0;
  none.resizes = {};
  none.restarts = 0;
  none.evictions = 1;
  none.nodes.nodeHours = 10;
  none.nodes.cost = 2.5;
  r.runs.insert(r.runs.begin(), none);
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(SimulationHeadlineTest, SavingsAreAgainstTheBaseline) {
  const SimulationReport r = baselineReport();
  const Savings s = savingsAgainst(r.runs[0], r.runs[1]);
  EXPECT_DOUBLE_EQ(s.nodeHours, 3.5);
  EXPECT_DOUBLE_EQ(s.nodeHoursPct, 35);
  EXPECT_DOUBLE_EQ(s.cost, 0.75);
  EXPECT_DOUBLE_EQ(s.costPct, 30);
  EXPECT_DOUBLE_EQ(s.cpuCoreHours, 1.5);
  EXPECT_DOUBLE_EQ(s.cpuPct, 50);
  EXPECT_DOUBLE_EQ(s.memoryGibHours, 0.25);
  EXPECT_DOUBLE_EQ(s.memoryPct, 12.5);
  // Against itself nothing is saved; a baseline without cost gives 0%, not a division by zero.
  SimulationRun free = r.runs[0];
  free.nodes.cost = 0;
  EXPECT_DOUBLE_EQ(savingsAgainst(free, free).costPct, 0);
  EXPECT_DOUBLE_EQ(savingsAgainst(r.runs[0], r.runs[0]).nodeHours, 0);
}

TEST(SimulationHeadlineTest, NeedsTheBaselineAndAnotherRun) {
  EXPECT_FALSE(headlineOf(testing::sampleReport()).has_value());  // attune and krr
  SimulationReport onlyNone = baselineReport();
  onlyNone.runs.pop_back();
  EXPECT_FALSE(headlineOf(onlyNone).has_value());
  EXPECT_EQ(renderHeadlineText(onlyNone), "");
  SimulationReport r = baselineReport();
  r.runs.push_back(testing::run("krr"));
  const auto h = headlineOf(r);
  ASSERT_TRUE(h.has_value());
  EXPECT_EQ(h->baseline, 0u);
  EXPECT_EQ(h->compared, (std::vector<std::size_t>{1, 2}));
  ASSERT_EQ(h->savings.size(), 2u);
  EXPECT_DOUBLE_EQ(h->savings[1].nodeHours, 3.5);
}

TEST(SimulationHeadlineTest, RiskFiguresInAFixedOrder) {
  SimulationRun run = testing::run("attune");
  run.risk.cpuAboveRequestPct = 12.5;
  run.risk.cpuShortCoreSeconds = 48.25;
  run.risk.memoryAboveRequestPct = 3;
  run.risk.memoryAtLimitPct = 0.25;
  run.risk.pendingPodHours = 1.5;
  std::vector<std::string> labels;
  std::vector<std::string> texts;
  for (const RiskFigure& f : riskFigures(run)) {
    labels.push_back(f.label);
    texts.push_back(f.text);
  }
  EXPECT_EQ(labels,
            (std::vector<std::string>{
                "samples CPU > request", "CPU short (core-s)", "samples memory > request",
                "samples memory at limit", "OOM kills", "evictions", "restarts", "resizes reverted",
                "CPU throttled", "CPU PSI waiting (core-s)", "pending (pod-h)"}));
  EXPECT_EQ(texts, (std::vector<std::string>{"12.5%", "48.2", "3.0%", "0.2%", "1", "0", "1", "1",
                                             "1.2%", "12.5", "1.50"}));
  EXPECT_DOUBLE_EQ(riskFigures(run)[1].value, 48.25);
}

TEST(SimulationHeadlineTest, TheTextEndsTheTableReport) {
  const SimulationReport r = baselineReport();
  const std::string text = renderHeadlineText(r);
  const std::vector<std::string> l = lines(text);
  ASSERT_EQ(l.size(), 14u) << text;
  EXPECT_EQ(l[0], "HEADLINE: attune against none (the same cluster without an operator)");
  EXPECT_EQ(l[1],
            "  attune saved 3.50 node-hours (35.0%), node cost 0.75 (30.0%); requests: CPU 1.50 "
            "core-h (50.0%), memory 0.25 GiB-h (12.5%)");
  EXPECT_EQ(words(l[2]), (std::vector<std::string>{"risk", "none", "attune"}));
  EXPECT_EQ(words(l[3]),
            (std::vector<std::string>{"samples", "CPU", ">", "request", "0.0%", "0.0%"}));
  EXPECT_EQ(words(l[7]), (std::vector<std::string>{"OOM", "kills", "0", "1"}));
  EXPECT_EQ(words(l[8]), (std::vector<std::string>{"evictions", "1", "0"}));
  EXPECT_EQ(words(l[11]), (std::vector<std::string>{"CPU", "throttled", "1.0%", "1.2%"}));
  EXPECT_EQ(words(l[12]),
            (std::vector<std::string>{"CPU", "PSI", "waiting", "(core-s)", "10.0", "12.5"}));
  // Numbers are right-aligned under their run.
  EXPECT_EQ(l[7].size(), l[12].size()) << text;
  const std::string table = renderSimulationTable(r);
  EXPECT_TRUE(table.ends_with("\n\n" + text)) << table;
  EXPECT_EQ(renderSimulationTable(testing::sampleReport()).find("HEADLINE"), std::string::npos);
}

}  // namespace
}  // namespace attune::report
