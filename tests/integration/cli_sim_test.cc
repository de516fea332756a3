// Runs `attune sim` as a user would: a scenario file, the built-in demo, output files, and
// scenario errors reported as FILE:LINE: path: message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "support/command.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using testing::CommandRun;

CommandRun runAttune(const std::string& args) {
  return testing::runCommand(std::string(ATTUNE_BINARY) + " " + args);
}

constexpr const char* kSmall = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: small}
spec:
  seed: 3
  duration: 3h
  tick: 60s
  nodePools: [{name: general, count: 2, cpu: "4", memory: 8Gi}]
  workloads:
  - kind: Deployment
    name: web
    replicas: 3
    containers:
    - name: app
      requests: {cpu: 500m, memory: 256Mi}
      limits: {cpu: 500m, memory: 300Mi}
      model: {kind: memory-leak, cpuCores: 700m, memoryBytes: 100Mi, leakBytesPerHour: 150Mi}
)";

class CliSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("attune_cli_sim_" +
            std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const auto path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  std::filesystem::path dir_;
};

TEST_F(CliSimTest, RunsAScenarioFileAndWritesEveryOutput) {
  const std::string file = write("small.yaml", kSmall);
  CommandRun run = runAttune("sim " + file + " --json " + path("s.json") + " --openmetrics " +
                             path("m.om") + " --metrics-text " + path("m.txt"));
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  for (const char* line :
       {"Scenario          small, seed 3, from ", "Simulated         3h in 180 ticks of 1m",
        "Nodes             2", "Pods              3 (3 running", "Container-steps   540",
        "OOM kills         ", "CPU throttled     ", "Wall time         "}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << "\n" << run.out;
  }
  // 200Mi of headroom at 150Mi/h: every replica is OOM-killed within 3 hours.
  auto json = nlohmann::json::parse(testing::readFile(path("s.json")));
  EXPECT_EQ(json["scenario"], "small");
  EXPECT_EQ(json["ticks"], 180);
  EXPECT_EQ(json["container_steps"], 540);
  EXPECT_GE(json["memory"]["oom_kills"].get<int>(), 3);
  EXPECT_GT(json["cpu"]["throttled_pct"].get<double>(), 10.0);
  const std::string om = testing::readFile(path("m.om"));
  EXPECT_TRUE(om.ends_with("# EOF\n")) << om.substr(om.size() > 200 ? om.size() - 200 : 0);
  EXPECT_NE(om.find("reason=\"OOMKilled\""), std::string::npos);
  EXPECT_NE(testing::readFile(path("m.txt")).find("container_cpu_usage_seconds_total"),
            std::string::npos);
}

TEST_F(CliSimTest, SeedAndTickOverridesApply) {
  const std::string file = write("small.yaml", kSmall);
  CommandRun run = runAttune("sim " + file + " --seed 9 --tick 30s --duration 1h");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("seed 9"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1h in 120 ticks of 30s"), std::string::npos) << run.out;
}

TEST_F(CliSimTest, RunsTheBuiltInDemoWithoutAFile) {
  CommandRun run = runAttune("sim --duration 20m");
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("demo, seed 42, from the built-in demo"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Nodes             20\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Simulated         20m in 20 ticks"), std::string::npos) << run.out;
}

TEST_F(CliSimTest, ScenarioErrorsNameFileLineAndFieldAndExit1) {
  std::string text = kSmall;
  text.replace(text.find("count: 2"), 8, "count: two");
  text.replace(text.find("replicas: 3"), 11, "replicas: 3\n    colour: blue");
  const std::string file = write("bad.yaml", text);
  CommandRun run = runAttune("sim " + file);
  EXPECT_EQ(run.exitCode, 1) << run.out << run.err;
  EXPECT_NE(run.err.find(file + ":8: spec.nodePools[0].count: must be an integer"),
            std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find(file + ":13: spec.workloads[0].colour: unknown field"), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("2 errors found"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST_F(CliSimTest, ErrorsFoundWhenBuildingTheClusterAlsoHaveTheirLine) {
  std::string text = kSmall;
  text += "  - trace: {path: missing-trace.csv}\n";
  const std::string file = write("trace.yaml", text);
  CommandRun run = runAttune("sim " + file);
  EXPECT_EQ(run.exitCode, 1) << run.out << run.err;
  EXPECT_NE(run.err.find(file + ":18: spec.workloads[1].trace.path: "), std::string::npos)
      << run.err;
}

TEST_F(CliSimTest, SimRunIsTheSameRunAsBareSim) {
  const std::string file = write("small.yaml", kSmall);
  CommandRun run = runAttune("sim run " + file + " --duration 1h --json " + path("run.json"));
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  CommandRun bare = runAttune("sim " + file + " --duration 1h --json " + path("bare.json"));
  ASSERT_EQ(bare.exitCode, 0) << bare.out << bare.err;
  auto summary = [&](const std::string& name) {
    auto json = nlohmann::json::parse(testing::readFile(path(name)));
    json.erase("wall_seconds");  // the only figures that differ between two runs
    json.erase("container_steps_per_second");
    return json;
  };
  EXPECT_EQ(summary("run.json"), summary("bare.json"));
  EXPECT_EQ(summary("run.json")["ticks"], 60);
  CommandRun help = runAttune("sim --help");
  EXPECT_NE(help.out.find("backtest"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("run"), std::string::npos) << help.out;
}

TEST_F(CliSimTest, UsageErrorsExit2AndHelpWorks) {
  EXPECT_EQ(runAttune("sim --duration soon").exitCode, 2);
  EXPECT_EQ(runAttune("sim --tick 2h --duration 1h").exitCode, 2);
  CommandRun help = runAttune("sim --help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_NE(help.out.find("--openmetrics"), std::string::npos) << help.out;
  CommandRun missing = runAttune("sim " + path("nope.yaml"));
  EXPECT_EQ(missing.exitCode, 1);
  EXPECT_NE(missing.err.find("cannot read file"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace attune
