// Runs the `attune` binary as a user would and checks its output and exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/command.h"
#include "support/prometheus/child_process.h"
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

// spec.runtimeProfile is modeled: the public example validates without a "no effect" warning and
// prints the memory settings its profile fills; allowDecrease: true under java is warned about.
TEST(CliPolicyValidateTest, RuntimeProfileIsAppliedNotWarnedAbout) {
  const std::string file =
      (testing::sourceDir() / "tests/unit/api/policy/testdata/public/runtime-profile.yaml")
          .string();
  CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.find("no effect"), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("warning"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("runtimeProfile: java"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("overhead: \"40\""), std::string::npos) << run.out;

  testing::TempDir dir;
  const std::string decreasing = (dir.path() / "decreasing.yaml").string();
  std::ofstream(decreasing) << testing::readFile(file) << "  memory:\n    allowDecrease: true\n";
  CommandRun warned = runAttune("policy validate " + decreasing);
  EXPECT_EQ(warned.exitCode, 0) << warned.out;
  EXPECT_NE(warned.out.find(decreasing +
                            ":18: warning: spec.memory.allowDecrease: runtimeProfile java: this "
                            "runtime usually keeps its heap"),
            std::string::npos)
      << warned.out;
  EXPECT_EQ(warned.out.find("no effect"), std::string::npos) << warned.out;
}

// The fields of overlapping policies, runtime profiles and batch targets validate without any
// warning.
TEST(CliPolicyValidateTest, WeightRuntimeProfileAndABatchTargetGiveNoWarning) {
  testing::TempDir dir;
  const std::string file = (dir.path() / "nightly.yaml").string();
  std::ofstream(file) << "apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\n"
                         "metadata: {name: nightly, namespace: batch}\n"
                         "spec:\n  targetRef: {kind: CronJob, name: nightly-report}\n"
                         "  metricsSource: {prometheus: {address: http://prometheus:9090}}\n"
                         "  updateStrategy: {type: Auto}\n  runtimeProfile: nodejs\n"
                         "  weight: 300\n";
  CommandRun run = runAttune("policy validate " + file);
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.find("warning"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("weight: 300"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("runtimeProfile: nodejs"), std::string::npos) << run.out;
}

// The public operator's examples with cpu.startupBoost and updateStrategy.sloGuardrails validate
// without the "accepted for compatibility ... it has no effect" warning: Attune acts on both.
TEST(CliPolicyValidateTest, StartupBoostAndSloGuardrailsHaveNoNoEffectWarning) {
  const auto dir = testing::sourceDir() / "tests/unit/api/policy/testdata/public";
  CommandRun run = runAttune("policy validate " + (dir / "startup-boost.yaml").string() + " " +
                             (dir / "slo-guardrails.yaml").string());
  EXPECT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.find("no effect"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("startupBoost:"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("name: p99-latency"), std::string::npos) << run.out;
  // A mistake in either is an error naming its field path.
  testing::TempDir tmp;
  const auto file = tmp.path() / "bad-boost.yaml";
  std::ofstream(file) << "apiVersion: attune.io/v1alpha1\nkind: AttunePolicy\n"
                         "metadata: {name: a}\nspec:\n  targetRef: {kind: Deployment, name: a}\n"
                         "  cpu:\n    startupBoost: {multiplier: \"20\", duration: 1m}\n";
  CommandRun bad = runAttune("policy validate " + file.string());
  EXPECT_EQ(bad.exitCode, 1) << bad.out;
  EXPECT_NE(bad.out.find("spec.cpu.startupBoost.multiplier"), std::string::npos) << bad.out;
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

TEST(CliPolicyValidateTest, ReadsADirectoryRecursivelyInPathOrder) {
  testing::TempDir dir;
  const auto files = examplePolicies();
  // The examples spread over a tree, with a file that is not YAML or JSON beside them.
  std::filesystem::create_directories(dir.path() / "b/nested");
  std::filesystem::copy_file(files[0], dir.path() / "a.yaml");
  std::filesystem::copy_file(files[1], dir.path() / "b/nested/c.yml");
  std::filesystem::copy_file(files[2], dir.path() / "b/b.yaml");
  std::ofstream(dir.path() / "b/notes.txt") << "not a policy\n";
  const std::string validate = std::string(ATTUNE_BINARY) + " policy validate ";
  CommandRun fromDir = testing::runCommand(validate + dir.path().string());
  ASSERT_EQ(fromDir.exitCode, 0) << fromDir.err;
  // The same policies as the files listed one by one, in path order.
  CommandRun listed = testing::runCommand(validate + files[0].string() + " " + files[2].string() +
                                          " " + files[1].string());
  ASSERT_EQ(listed.exitCode, 0) << listed.err;
  EXPECT_EQ(fromDir.out, listed.out);
  EXPECT_NE(fromDir.out.find("kind: AttunePolicy"), std::string::npos) << fromDir.out;
}

TEST(CliPolicyValidateTest, DirectoryWithoutPolicyFilesIsAnErrorNamingIt) {
  testing::TempDir dir;
  std::ofstream(dir.path() / "notes.txt") << "not a policy\n";
  CommandRun run = runAttune("policy validate " + dir.path().string());
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find(dir.path().string() + ": no .yaml, .yml or .json files"),
            std::string::npos)
      << run.out;
}

TEST(CliPolicyValidateTest, InputWithoutDocumentsIsAnError) {
  testing::TempDir dir;
  const std::string empty = (dir.path() / "empty.yaml").string();
  const std::string comments = (dir.path() / "comments.yaml").string();
  std::ofstream(empty) << "";
  std::ofstream(comments) << "# nothing here yet\n---\n";
  for (const std::string& file : {empty, comments}) {
    CommandRun run = runAttune("policy validate " + file);
    EXPECT_EQ(run.exitCode, 1) << run.out;
    EXPECT_NE(run.out.find(file + ": no documents"), std::string::npos) << run.out;
  }
  CommandRun stdinRun = runAttune("policy validate - < " + empty);
  EXPECT_EQ(stdinRun.exitCode, 1) << stdinRun.out;
  EXPECT_NE(stdinRun.out.find("<stdin>: no documents"), std::string::npos) << stdinRun.out;
  // One empty file among good ones still fails, and nothing is printed.
  CommandRun mixed =
      runAttune("policy validate " + examplePolicies().front().string() + " " + empty);
  EXPECT_EQ(mixed.exitCode, 1) << mixed.out;
  EXPECT_EQ(mixed.out.find("kind: AttunePolicy"), std::string::npos) << mixed.out;
}

// ---- --effective: the defaults tiers merged into each policy.

constexpr const char* kShopPolicyAndDefaults = R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata:
  name: checkout
  namespace: shop
spec:
  targetRef: {kind: Deployment, name: checkout}
  cpu:
    overhead: "10"
    maxAllowed: "2"
---
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata: {name: shop-defaults, namespace: shop}
spec:
  cpu: {percentile: 90}
  updateStrategy: {type: Auto}
---
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata: {name: elsewhere, namespace: other}
spec:
  updateStrategy: {type: Observe}
)";

constexpr const char* kClusterDefaults = R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata: {name: cluster-defaults}
spec:
  metricsSource:
    prometheus: {address: "http://prometheus.monitoring:9090"}
  cpu: {percentile: 95, overhead: "25"}
  updateStrategy: {type: Recommend, cooldown: 30m}
)";

class CliPolicyEffectiveTest : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_.path() / name;
    std::ofstream(path) << text;
    return path.string();
  }
  testing::TempDir dir_;
};

TEST_F(CliPolicyEffectiveTest, PolicyOverNamespaceDefaultsOverClusterDefaultsOverBuiltIn) {
  const std::string policy = write("policy.yaml", kShopPolicyAndDefaults);
  const std::string cluster = write("cluster.yaml", kClusterDefaults);
  CommandRun run = runAttune("policy validate --effective --defaults " + cluster + " " + policy);
  ASSERT_EQ(run.exitCode, 0) << run.out;
  EXPECT_EQ(run.out.rfind("# effective: AttuneNamespaceDefaults shop/shop-defaults, "
                          "AttuneDefaults cluster-defaults\n",
                          0),
            0u)
      << run.out;
  // Only the policy is printed, not the defaults objects.
  EXPECT_EQ(run.out.find("kind: AttuneNamespaceDefaults"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("    percentile: 90\n"), std::string::npos) << run.out;     // namespace
  EXPECT_NE(run.out.find("    overhead: \"10\"\n"), std::string::npos) << run.out;   // policy
  EXPECT_NE(run.out.find("    maxAllowed: \"2\"\n"), std::string::npos) << run.out;  // policy
  EXPECT_NE(run.out.find("    type: Auto\n"), std::string::npos) << run.out;         // namespace
  EXPECT_NE(run.out.find("    cooldown: 30m\n"), std::string::npos) << run.out;      // cluster
  EXPECT_NE(run.out.find("address: http://prometheus.monitoring:9090"), std::string::npos)
      << run.out;                                                                   // cluster
  EXPECT_NE(run.out.find("    autoRevert: true\n"), std::string::npos) << run.out;  // built in
  EXPECT_NE(run.out.find("    percentile: 99\n"), std::string::npos) << run.out;    // built in

  // Without --effective the defaults documents are validated and printed, the policy is not
  // merged.
  CommandRun plain = runAttune("policy validate " + policy);
  ASSERT_EQ(plain.exitCode, 0) << plain.out;
  EXPECT_NE(plain.out.find("kind: AttuneNamespaceDefaults"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("    type: Recommend\n"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("    percentile: 95\n"), std::string::npos) << plain.out;

  // JSON: one document, no comment.
  CommandRun json =
      runAttune("policy validate -o json --effective --defaults " + cluster + " " + policy);
  ASSERT_EQ(json.exitCode, 0) << json.out;
  EXPECT_EQ(json.out.front(), '{') << json.out;
  EXPECT_NE(json.out.find("\"cooldown\": \"30m\""), std::string::npos) << json.out;
}

TEST_F(CliPolicyEffectiveTest, AnInvalidCombinationIsAnErrorNamingTheTiers) {
  const std::string policy = write("policy.yaml", kShopPolicyAndDefaults);
  std::string raised = kClusterDefaults;
  raised.replace(raised.find("percentile: 95"), 14, "minAllowed: \"3\"");
  const std::string cluster = write("cluster.yaml", raised);
  CommandRun run = runAttune("policy validate --effective --defaults " + cluster + " " + policy);
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find("effective policy checkout (with AttuneNamespaceDefaults "
                         "shop/shop-defaults, AttuneDefaults cluster-defaults): "
                         "spec.cpu.minAllowed: must be at most maxAllowed"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("no policy printed"), std::string::npos) << run.out;
}

TEST_F(CliPolicyEffectiveTest, ADefaultsMistakeIsReportedWithFileLineAndPath) {
  const std::string policy = write("policy.yaml", kShopPolicyAndDefaults);
  std::string wrong = kClusterDefaults;
  wrong.replace(wrong.find("percentile: 95"), 14, "percentile: 42");
  const std::string cluster = write("cluster.yaml", wrong);
  CommandRun run = runAttune("policy validate --effective --defaults " + cluster + " " + policy);
  EXPECT_EQ(run.exitCode, 1) << run.out;
  EXPECT_NE(run.out.find(cluster + ":7: spec.cpu.percentile: "), std::string::npos) << run.out;
  // A policy field in a defaults object is unknown there.
  const std::string target =
      write("target.yaml",
            "apiVersion: attune.io/v1alpha1\nkind: AttuneDefaults\nmetadata: {name: d}\nspec:\n"
            "  targetRef: {kind: Deployment, name: x}\n");
  CommandRun unknown = runAttune("policy validate " + target);
  EXPECT_EQ(unknown.exitCode, 1) << unknown.out;
  EXPECT_NE(unknown.out.find(target + ":5: spec.targetRef: unknown field"), std::string::npos)
      << unknown.out;
  // --defaults without --effective is a usage error.
  EXPECT_EQ(runAttune("policy validate --defaults " + cluster + " " + policy).exitCode, 2);
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
