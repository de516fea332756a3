// Runs the `attune` binary as a user would and checks its output and exit status.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using testing::CommandRun;

// The binary's stdout followed by its stderr.
CommandRun runAttune(const std::string& args) {
  CommandRun run = testing::runCommand(std::string(ATTUNE_BINARY) + " " + args);
  run.out += run.err;
  return run;
}

std::vector<std::filesystem::path> examplePolicies() {
  std::vector<std::filesystem::path> files;
  for (const auto& e :
       std::filesystem::directory_iterator(testing::sourceDir() / "examples/policies")) {
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(CliPolicyValidateTest, AcceptsEveryExampleAndPrintsDefaultedPolicies) {
  auto files = examplePolicies();
  ASSERT_GE(files.size(), 5u) << "one example per mode is expected";
  std::string args = "policy validate";
  for (const auto& f : files) args += " " + f.string();
  CommandRun run = runAttune(args);
  EXPECT_EQ(run.exitCode, 0) << run.out;
  // Defaults appear in the printed policies.
  EXPECT_NE(run.out.find("historyWindow: 168h"), std::string::npos) << run.out;
  for (const char* mode : {"Observe", "Recommend", "OneShot", "Canary", "Auto"}) {
    EXPECT_NE(run.out.find(std::string("type: ") + mode), std::string::npos) << mode;
  }
}

TEST(CliPolicyValidateTest, JsonOutputIsJson) {
  CommandRun run = runAttune("policy validate -o json " + examplePolicies().front().string());
  ASSERT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.front(), '{') << run.out;
  EXPECT_NE(run.out.find("\"apiVersion\": \"attune.io/v1alpha1\""), std::string::npos) << run.out;
}

TEST(CliPolicyValidateTest, ReportsAllThreeMistakesWithPathsAndLines) {
  std::string file = std::string(ATTUNE_TEST_DATA) + "/three_mistakes.yaml";
  CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find(file + ":12: spec.cpu.percentile:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(file + ":14: spec.memory.maxAlowed:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find(file + ":17: spec.updateStrategy.safetyObservationPeriod: must be at "
                                "least 1m, got 30s"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("3 errors"), std::string::npos) << run.out;
}

TEST(CliPolicyValidateTest, MissingFileIsAnErrorNamingIt) {
  CommandRun run = runAttune("policy validate /nonexistent/policy.yaml");
  EXPECT_NE(run.exitCode, 0);
  EXPECT_NE(run.out.find("/nonexistent/policy.yaml"), std::string::npos) << run.out;
}

TEST(CliPolicyValidateTest, ReadsStandardInput) {
  CommandRun run = runAttune("policy validate - < " + examplePolicies().front().string());
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_NE(run.out.find("kind: AttunePolicy"), std::string::npos) << run.out;
}

TEST(CliTest, HelpAndVersion) {
  CommandRun help = runAttune("--help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("policy"), std::string::npos);
  CommandRun policyHelp = runAttune("policy validate --help");
  EXPECT_EQ(policyHelp.exitCode, 0);
  EXPECT_NE(policyHelp.out.find("--output"), std::string::npos) << policyHelp.out;
  CommandRun version = runAttune("version");
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_NE(version.out.find("attune "), std::string::npos);
  CommandRun none = runAttune("");
  EXPECT_NE(none.exitCode, 0);
}

}  // namespace
}  // namespace attune
