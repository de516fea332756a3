// Runs the `attune` binary as a user would and checks its output and exit status.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "support/shared_dir.h"

namespace attune {
namespace {

struct CommandRun {
  int exitCode = -1;
  std::string output;  // stdout and stderr, interleaved
};

CommandRun runAttune(const std::string& args) {
  std::string command = std::string(ATTUNE_BINARY) + " " + args + " 2>&1";
  CommandRun run;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return run;
  std::array<char, 4096> buf{};
  std::size_t n = 0;
  while ((n = fread(buf.data(), 1, buf.size(), pipe)) > 0) run.output.append(buf.data(), n);
  int status = pclose(pipe);
  run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  EXPECT_EQ(run.exitCode, 0) << run.output;
  // Defaults appear in the printed policies.
  EXPECT_NE(run.output.find("historyWindow: 168h"), std::string::npos) << run.output;
  for (const char* mode : {"Observe", "Recommend", "OneShot", "Canary", "Auto"}) {
    EXPECT_NE(run.output.find(std::string("type: ") + mode), std::string::npos) << mode;
  }
}

TEST(CliPolicyValidateTest, JsonOutputIsJson) {
  CommandRun run = runAttune("policy validate -o json " + examplePolicies().front().string());
  ASSERT_EQ(run.exitCode, 0) << run.output;
  EXPECT_EQ(run.output.front(), '{') << run.output;
  EXPECT_NE(run.output.find("\"apiVersion\": \"attune.io/v1alpha1\""), std::string::npos)
      << run.output;
}

TEST(CliPolicyValidateTest, ReportsAllThreeMistakesWithPathsAndLines) {
  std::string file = std::string(ATTUNE_TEST_DATA) + "/three_mistakes.yaml";
  CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 1) << run.output;
  EXPECT_NE(run.output.find(file + ":12: spec.cpu.percentile:"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(file + ":14: spec.memory.maxAlowed:"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find(file + ":17: spec.updateStrategy.safetyObservationPeriod: must be at "
                                   "least 1m, got 30s"),
            std::string::npos)
      << run.output;
  EXPECT_NE(run.output.find("3 errors"), std::string::npos) << run.output;
}

TEST(CliPolicyValidateTest, MissingFileIsAnErrorNamingIt) {
  CommandRun run = runAttune("policy validate /nonexistent/policy.yaml");
  EXPECT_NE(run.exitCode, 0);
  EXPECT_NE(run.output.find("/nonexistent/policy.yaml"), std::string::npos) << run.output;
}

TEST(CliPolicyValidateTest, ReadsStandardInput) {
  CommandRun run = runAttune("policy validate - < " + examplePolicies().front().string());
  EXPECT_EQ(run.exitCode, 0) << run.output;
  EXPECT_NE(run.output.find("kind: AttunePolicy"), std::string::npos) << run.output;
}

TEST(CliTest, HelpAndVersion) {
  CommandRun help = runAttune("--help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.output.find("policy"), std::string::npos);
  CommandRun policyHelp = runAttune("policy validate --help");
  EXPECT_EQ(policyHelp.exitCode, 0);
  EXPECT_NE(policyHelp.output.find("--output"), std::string::npos) << policyHelp.output;
  CommandRun version = runAttune("version");
  EXPECT_EQ(version.exitCode, 0);
  EXPECT_NE(version.output.find("attune "), std::string::npos);
  CommandRun none = runAttune("");
  EXPECT_NE(none.exitCode, 0);
}

}  // namespace
}  // namespace attune
