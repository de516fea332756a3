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

}  // namespace
}  // namespace attune
