// `attune policy validate` on policies using updateStrategy.schedule, maxTotalCpuIncrease and
// maxTotalMemoryIncrease: modelled fields, so no "no effect" warning, and mistakes are errors
// naming the field path and line.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using testing::CommandRun;

CommandRun runAttune(const std::string& args) {
  CommandRun run = testing::runCommand(std::string(ATTUNE_BINARY) + " " + args);
  run.out += run.err;
  return run;
}

TEST(CliRolloutLimitsTest, TheScheduledExampleValidatesWithoutNoEffectWarnings) {
  const std::string file =
      (testing::sourceDir() / "examples/policies/scheduled-auto.yaml").string();
  const CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.find("no effect"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("warning"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("timezone: Europe/Berlin"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("maxTotalMemoryIncrease: 4Gi"), std::string::npos) << run.out;
}

TEST(CliRolloutLimitsTest, ABadWindowIsAnErrorWithItsPathAndLine) {
  testing::TempDir dir;
  const auto path = dir.path() / "bad.yaml";
  std::ofstream(path) << R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: bad, namespace: shop}
spec:
  targetRef: {kind: Deployment, name: api}
  updateStrategy:
    schedule:
      windows: [{start: "25:00", end: "05:00"}]
)";
  const CommandRun run = runAttune("policy validate " + path.string());
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find(path.string() + ":8: spec.updateStrategy.schedule.windows[0].start: must "
                                         "be a time of day HH:MM"),
            std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace attune
