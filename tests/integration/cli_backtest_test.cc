// Runs `attune backtest` as a user would, and its old name `attune simulate`: the same command,
// the same output.
#include <gtest/gtest.h>

#include <string>

#include "support/command.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using testing::CommandRun;

CommandRun runAttune(const std::string& args) {
  return testing::runCommand(std::string(ATTUNE_BINARY) + " " + args);
}

TEST(CliBacktestTest, TheOldNameSimulateGivesTheSameReport) {
  const std::string args =
      (testing::sourceDir() / "examples/scenarios/oom-leak.yaml").string() + " --days 0.25 -q";
  CommandRun backtest = runAttune("backtest " + args);
  ASSERT_EQ(backtest.exitCode, 0) << backtest.out << backtest.err;
  EXPECT_FALSE(backtest.out.empty());
  CommandRun simulate = runAttune("simulate " + args);
  ASSERT_EQ(simulate.exitCode, 0) << simulate.out << simulate.err;
  EXPECT_EQ(backtest.out, simulate.out);
}

TEST(CliBacktestTest, HelpNamesTheCommandAndItsOldName) {
  CommandRun top = runAttune("--help");
  ASSERT_EQ(top.exitCode, 0);
  EXPECT_NE(top.out.find("backtest"), std::string::npos) << top.out;
  CommandRun help = runAttune("backtest --help");
  ASSERT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("--strategy"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("`attune simulate` is its old name"), std::string::npos) << help.out;
  // Usage errors name the command.
  CommandRun both = runAttune("backtest x.yaml --trace y.csv");
  EXPECT_EQ(both.exitCode, 2);
  EXPECT_NE(both.err.find("attune backtest: give a SCENARIO or --trace, not both"),
            std::string::npos)
      << both.err;
}

TEST(CliBacktestTest, HpaGuardCompareReportsBothRunsSideBySide) {
  const std::string scenario =
      (testing::sourceDir() / "examples/scenarios/upstream-outage.yaml").string();
  CommandRun run = runAttune("simulate " + scenario + " --hpa-guard compare -q");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("adaptive (guard off)  adaptive (guard on)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("HPA shop/api replicas min"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("time to recover shop/Deployment/api after 1h-1h20m"), std::string::npos)
      << run.out;
  CommandRun bad = runAttune("backtest " + scenario + " --hpa-guard sometimes");
  EXPECT_NE(bad.exitCode, 0);
  CommandRun interval =
      runAttune("backtest " + scenario + " --hpa-guard on --hpa-guard-interval 0s");
  EXPECT_EQ(interval.exitCode, 2);
  EXPECT_NE(interval.err.find("--hpa-guard-interval: not a positive duration"), std::string::npos)
      << interval.err;
}

TEST(CliBacktestTest, NodeOptimisationCompareReportsBothRunsSideBySide) {
  const std::string scenario = (testing::sourceDir() / "examples/scenarios/demo.yaml").string();
  CommandRun run = runAttune("backtest " + scenario + " --days 0.1 --node-optimisation compare -q");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("adaptive (node opt off)  adaptive (node opt on)"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("evictions by the node optimiser"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("adaptive, node optimisation on (mode"), std::string::npos) << run.out;
  CommandRun bad = runAttune("backtest " + scenario + " --node-optimisation sometimes");
  EXPECT_NE(bad.exitCode, 0);
}

TEST(CliBacktestTest, StrategyNoneIsTheBaselineColumn) {
  const std::string scenario = (testing::sourceDir() / "examples/scenarios/demo.yaml").string();
  CommandRun run = runAttune("backtest " + scenario + " --days 0.1 --strategy none,attune -q");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("none (mode none):"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("METRIC"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("0 applied, 0 failed, 0 skipped, 0 reverted"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(", autoscaler added "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nnode-hours "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nHEADLINE: attune against none"), std::string::npos) << run.out;
  CommandRun bad = runAttune("backtest " + scenario + " --days 0.1 --strategy nothing -q");
  EXPECT_NE(bad.exitCode, 0);
}

// The README's main command: the built-in demo, none and the default strategy side by side, and
// the headline last (a shortened run: the figures are the week's in docs/simulate-report.md).
TEST(CliBacktestTest, TheBuiltInDemoEndsWithTheHeadline) {
  CommandRun run = runAttune("backtest --days 0.05 -q");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("Simulation demo (seed 42)"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(", 2 runs\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("none (mode none):"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nadaptive (mode Auto+Canary+Observe+OneShot+Recommend):"),
            std::string::npos)
      << run.out;
  const auto headline = run.out.find(
      "\nHEADLINE: adaptive against none (the same cluster without "
      "an operator)\n  adaptive saved ");
  ASSERT_NE(headline, std::string::npos) << run.out;
  EXPECT_GT(headline, run.out.find("\nCOMPARISON\n"));
  for (const char* part : {" node-hours (", "), node cost ", "; requests: CPU ", " GiB-h (",
                           "\n  risk ", "\n    OOM kills ", "\n    evictions ",
                           "\n    CPU throttled ", "\n    CPU PSI waiting (core-s) "}) {
    EXPECT_NE(run.out.find(part, headline), std::string::npos) << part << "\n" << run.out;
  }
  // An explicit list replaces the default: one run, no baseline, no headline.
  CommandRun one = runAttune("backtest --days 0.05 --strategy attune -q");
  ASSERT_EQ(one.exitCode, 0) << one.out << one.err;
  EXPECT_EQ(one.out.find("HEADLINE"), std::string::npos) << one.out;
}

}  // namespace
}  // namespace attune
