// The real kubectl against `attune sim serve` running a scenario with spec.kubernetesVersion:
// /version reports it, and the resize subresource applies that version's rule for memory limit
// decreases (refused before v1.34 without a RestartContainer memory resize policy).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using testing::runCommand;

constexpr const char* kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: version}
spec:
  kubernetesVersion: v1.33.2
  tick: 60s
  nodePools: [{name: node, count: 1, cpu: "4", memory: 8Gi}]
  workloads:
  - kind: Deployment
    namespace: shop
    name: web
    containers:
    - name: app
      requests: {cpu: 250m, memory: 256Mi}
      limits: {cpu: "1", memory: 1Gi}
      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi}
)";

TEST(SimServeVersion, KubectlSeesTheScenariosVersionAndItsResizeRule) {
  if (!testing::findOnPath("kubectl")) GTEST_SKIP() << "kubectl is not installed";
  testing::TempDir dir;
  const auto scenario = dir.path() / "scenario.yaml";
  std::ofstream(scenario) << kScenario;
  const std::string kubeconfig = (dir.path() / "kubeconfig").string();
  testing::ChildProcess server({ATTUNE_BINARY, "sim", "serve", scenario.string(), "--listen",
                                "127.0.0.1:" + std::to_string(testing::freeLocalPort()),
                                "--kubeconfig-out", kubeconfig, "--tick-interval", "100ms"},
                               dir.path() / "serve.log");
  const auto kubectl = [&](const std::string& args) {
    return runCommand("kubectl --kubeconfig " + kubeconfig + " --request-timeout=20s " + args);
  };
  SystemClock clock;
  bool ready = false;
  for (int i = 0; i < 300 && !ready; ++i) {
    ready = std::filesystem::exists(kubeconfig) && kubectl("get --raw /readyz").out == "ok" &&
            !kubectl("get pods -n shop -o name").out.empty();
    if (!ready) clock.sleepFor(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(ready) << testing::readFile(dir.path() / "serve.log");

  auto version = kubectl("version -o json");
  ASSERT_EQ(version.exitCode, 0) << version.err;
  const auto server_version = nlohmann::json::parse(version.out)["serverVersion"];
  EXPECT_EQ(server_version["gitVersion"], "v1.33.2");
  EXPECT_EQ(server_version["minor"], "33");

  const auto client = nlohmann::json::parse(version.out)["clientVersion"]["minor"];
  if (std::stoi(client.get<std::string>()) < 32) {
    GTEST_SKIP() << "kubectl before 1.32 has no --subresource=resize";
  }
  const std::string pod = kubectl("get pods -n shop -o jsonpath={.items[0].metadata.name}").out;
  auto lowered = kubectl("patch pod -n shop " + pod +
                         " --subresource resize -p "
                         "'{\"spec\":{\"containers\":[{\"name\":\"app\",\"resources\":"
                         "{\"limits\":{\"memory\":\"512Mi\"}}}]}}'");
  EXPECT_NE(lowered.exitCode, 0);
  EXPECT_NE(lowered.err.find("RestartContainer"), std::string::npos) << lowered.err;
  auto raised = kubectl("patch pod -n shop " + pod +
                        " --subresource resize -p "
                        "'{\"spec\":{\"containers\":[{\"name\":\"app\",\"resources\":"
                        "{\"limits\":{\"memory\":\"2Gi\"}}}]}}'");
  EXPECT_EQ(raised.exitCode, 0) << raised.err;
}

}  // namespace
}  // namespace attune
