// The Kubernetes client's rate limit end to end (--kube-api-qps, --kube-api-burst;
// docs/operator.md): a real `attune controller` against `attune sim serve --tls` with 24
// policies and a 1 s --status-heartbeat, so that every 5 s pass wants 24 status writes. Limited to
// 1 request a second (burst 1), the API server counts (attune_sim_api_requests_total, read with
// kubectl get --raw /metrics) at most one status write a second over a 20 s window; the same
// controller restarted with the default limit (20/s) writes faster than that bound in the same
// cluster, so the bound is the flag's doing.
//
// Takes about a minute and a half of wall time: it waits on real processes, polling with
// deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "integration/e2e/sim_cluster.h"
#include "support/command.h"

namespace attune {
namespace {

using namespace std::chrono_literals;

constexpr int kPolicies = 24;

std::string scenarioYaml(Time start) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\n"
      "kind: Scenario\n"
      "metadata: {name: rate-limit}\n"
      "spec:\n"
      "  seed: 3\n"
      "  start: \"" +
      formatRfc3339(start) +
      "\"\n"
      "  duration: 2h\n"
      "  tick: 1s\n"
      "  nodePools:\n"
      "  - {name: general, count: 2, cpu: \"8\", memory: 32Gi}\n"
      "  namespaces: [apps]\n"
      "  workloads:\n";
  for (int i = 0; i < kPolicies; ++i) {
    yaml +=
        "  - kind: Deployment\n"
        "    namespace: apps\n"
        "    name: web-" +
        std::to_string(i) +
        "\n"
        "    replicas: 1\n"
        "    containers:\n"
        "    - name: app\n"
        "      requests: {cpu: 100m, memory: 128Mi}\n"
        "      model: {kind: steady, cpuCores: 50m, memoryBytes: 64Mi, noise: 0}\n";
  }
  return yaml;
}

// A Recommend policy (the default mode) per Deployment: each pass writes its status.
std::string policiesYaml() {
  std::string yaml;
  for (int i = 0; i < kPolicies; ++i) {
    yaml += "---\napiVersion: attune.io/v1alpha1\nkind: AttunePolicy\nmetadata: {name: web-" +
            std::to_string(i) +
            ", namespace: apps}\nspec:\n  targetRef: {kind: Deployment, name: web-" +
            std::to_string(i) + "}\n";
  }
  return yaml;
}

class KubeApiRateLimitEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
    auto cluster = testing::SimCluster::start(scenarioYaml(clock_.now()));
    ASSERT_TRUE(cluster.has_value()) << cluster.error().toString();
    cluster_ = std::move(*cluster);
    cluster_->write("policies.yaml", policiesYaml());
    const auto applied = cluster_->kubectl("apply -f " + cluster_->path("policies.yaml"));
    ASSERT_EQ(applied.exitCode, 0) << applied.err;
  }

  // Status writes the API server has answered so far, or -1 when /metrics cannot be read.
  long statusWrites() {
    const auto run = cluster_->kubectl("get --raw /metrics");
    if (run.exitCode != 0) return -1;
    std::istringstream lines(run.out);
    const std::string series =
        R"(attune_sim_api_requests_total{verb="update",resource="attunepolicies/status"} )";
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(series)) return std::stol(line.substr(series.size()));
    }
    return 0;
  }

  // Status writes a second over a window of `window` after the controller's writes are seen to
  // go up.
  double writeRate(Duration window) {
    const long first = statusWrites();
    EXPECT_GE(first, 0);
    EXPECT_TRUE(cluster_->waitFor(120s, [&] { return statusWrites() > first; }))
        << "no status write";
    const Time begin = clock_.now();
    const long before = statusWrites();
    cluster_->waitFor(window, [] { return false; });  // the measuring window
    const long after = statusWrites();
    const double seconds = std::chrono::duration<double>(clock_.now() - begin).count();
    std::printf("status writes: %ld in %.1f s\n", after - before, seconds);
    return static_cast<double>(after - before) / seconds;
  }

  std::unique_ptr<testing::ChildProcess> start(const std::string& name,
                                               std::vector<std::string> flags) {
    // A heartbeat shorter than the pass interval: every pass writes every status.
    flags.insert(flags.end(),
                 {"--leader-elect=false", "--identity", name, "--status-heartbeat", "1s"});
    auto child =
        cluster_->spawn(cluster_->controllerArgv(testing::freeLocalPort(), flags), name + ".log");
    EXPECT_TRUE(child->running()) << name;
    return child;
  }

  SystemClock clock_;
  std::unique_ptr<testing::SimCluster> cluster_;
};

TEST_F(KubeApiRateLimitEndToEnd, TheClientSendsNoMoreThanTheLimitAllows) {
  constexpr Duration kWindow = 20s;
  auto limited = start("limited", {"--kube-api-qps", "1", "--kube-api-burst", "1"});
  const double limitedRate = writeRate(kWindow);
  int exitCode = 0;
  ASSERT_TRUE(limited->terminate(30s, &exitCode));
  const std::string limitedLog = cluster_->log("limited.log");
  EXPECT_NE(limitedLog.find(R"("kube_api_qps":"1")"), std::string::npos) << limitedLog;
  EXPECT_NE(limitedLog.find(R"("kube_api_burst":"1")"), std::string::npos) << limitedLog;
  // One token a second, one in the bucket at the start of the window; the window's two reads of
  // /metrics are a little apart from its measured length.
  const double bound = 1.0 + 2.0 / std::chrono::duration<double>(kWindow).count();
  EXPECT_LE(limitedRate, bound) << limitedLog;

  auto unlimited = start("default", {});
  const double defaultRate = writeRate(kWindow);
  ASSERT_TRUE(unlimited->terminate(30s, &exitCode));
  EXPECT_GT(defaultRate, bound) << "the default limit wrote no faster: the test shows nothing\n"
                                << cluster_->log("default.log");
  std::printf("status writes a second: --kube-api-qps 1: %.2f, default (20): %.2f\n", limitedRate,
              defaultRate);
}

}  // namespace
}  // namespace attune
