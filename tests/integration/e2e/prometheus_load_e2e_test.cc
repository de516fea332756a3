// The Prometheus load of the operator end to end: `attune sim serve`, a real Prometheus scraping
// it, kubectl and the `attune controller` binary with four policies in one namespace. The
// operator's own query metrics (attune_prometheus_queries_total, read from its /metrics) and the
// passes in its log say how many CPU usage queries a pass sends: one per pass that reads a new
// step, shared by the four policies, not one per policy; with --prometheus-shared-reads=false,
// one per policy.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/time.h"
#include "http/http_client.h"
#include "integration/e2e/sim_cluster.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

constexpr int kPolicies = 4;

std::string scenarioYaml(Time start) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\n"
      "kind: Scenario\n"
      "metadata: {name: prometheus-load}\n"
      "spec:\n"
      "  seed: 5\n"
      "  start: \"" +
      formatRfc3339(start) +
      "\"\n"
      "  duration: 2h\n"
      "  tick: 1s\n"
      "  nodePools:\n"
      "  - {name: general, count: 1, cpu: \"16\", memory: 64Gi}\n"
      "  namespaces: [apps]\n"
      "  workloads:\n";
  for (int i = 0; i < kPolicies; ++i) {
    yaml += "  - kind: Deployment\n    namespace: apps\n    name: web" + std::to_string(i) +
            "\n    replicas: 2\n    containers:\n    - name: app\n"
            "      requests: {cpu: \"1\", memory: 1Gi}\n"
            "      limits: {cpu: \"2\", memory: 2Gi}\n"
            "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n";
  }
  return yaml;
}

std::string policiesYaml() {
  std::string yaml;
  for (int i = 0; i < kPolicies; ++i) {
    const std::string name = "web" + std::to_string(i);
    yaml += "---\napiVersion: attune.io/v1alpha1\nkind: AttunePolicy\nmetadata: {name: " + name +
            ", namespace: apps}\nspec:\n  targetRef: {kind: Deployment, name: " + name +
            "}\n  metricsSource: {historyWindow: 10m, queryStep: 10s, rateWindow: 30s, "
            "minimumDataPoints: 3}\n  updateStrategy: {type: Recommend}\n";
  }
  return yaml;
}

// The operator's /metrics on `port`, or "" when it does not answer.
std::string scrape(int port) {
  http::CurlHttpClient client(http::HttpClientOptions{});
  auto answer = client.send({.method = http::HttpRequest::Method::kGet,
                             .url = "http://127.0.0.1:" + std::to_string(port) + "/metrics",
                             .body = {},
                             .contentType = {}});
  return answer && answer->status == 200 ? answer->body : "";
}

// attune_prometheus_queries_total{query_type="cpu_usage"} in `text` (0 when absent).
double cpuQueries(const std::string& text) {
  static const std::regex series(
      R"re(attune_prometheus_queries_total\{query_type="cpu_usage"\} (\S+))re");
  std::smatch m;
  return std::regex_search(text, m, series) ? std::stod(m[1]) : 0;
}

// Completed passes in the controller's log that reconciled every policy.
int fullPasses(const std::string& log) {
  static const std::regex pass(R"re("msg":"reconcile pass done".*"policies":"(\d+)")re");
  int n = 0;
  for (auto it = std::sregex_iterator(log.begin(), log.end(), pass); it != std::sregex_iterator();
       ++it) {
    n += std::stoi((*it)[1]) == kPolicies ? 1 : 0;
  }
  return n;
}

bool allRecommended(testing::SimCluster& cluster) {
  for (int i = 0; i < kPolicies; ++i) {
    const json p = cluster.getJson("attunepolicy -n apps web" + std::to_string(i));
    if (at(p, {"status", "workloads", "withRecommendations"}) != 1) return false;
  }
  return true;
}

// Runs the controller (with `extra` flags) until every policy has a recommendation, then
// counts CPU usage queries and full passes over at least `passes` more passes.
struct Load {
  double queries = 0;
  int passes = 0;
};
Load measure(testing::SimCluster& cluster, const std::vector<std::string>& extra,
             const std::string& logName, int passes) {
  Load out;
  const int port = testing::freeLocalPort();
  auto controller = cluster.spawn(cluster.controllerArgv(port, extra), logName);
  EXPECT_TRUE(controller->running());
  EXPECT_TRUE(cluster.waitFor(3min, [&] { return allRecommended(cluster); }))
      << cluster.log(logName);
  const double before = cpuQueries(scrape(port));
  const int passesBefore = fullPasses(cluster.log(logName));
  EXPECT_TRUE(cluster.waitFor(
      2min, [&] { return fullPasses(cluster.log(logName)) >= passesBefore + passes; }));
  // Read the counter right after a pass ended: the queries of a pass come before its log line.
  out.queries = cpuQueries(scrape(port)) - before;
  out.passes = fullPasses(cluster.log(logName)) - passesBefore;
  int exitCode = -1;
  EXPECT_TRUE(controller->terminate(30s, &exitCode));
  return out;
}

TEST(PrometheusLoadEndToEnd, ThePoliciesOfOneNamespaceShareEachPasssRead) {
  if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
  SystemClock clock;
  auto started = testing::SimCluster::start(scenarioYaml(clock.now()));
  ASSERT_TRUE(started.has_value()) << started.error().toString();
  testing::SimCluster& cluster = **started;
  cluster.write("policies.yaml", policiesYaml());
  ASSERT_EQ(cluster.kubectl("apply -f " + cluster.path("policies.yaml")).exitCode, 0);

  // A pass every 5 s, a query step of 10 s: about every other pass reads one new step.
  const Load shared = measure(cluster, {}, "shared.log", 6);
  ASSERT_GE(shared.passes, 6);
  EXPECT_GE(shared.queries, 1);
  // At most one CPU usage query per pass for the four policies (the pass that was running when
  // the counting started may add one).
  EXPECT_LE(shared.queries, shared.passes + 1)
      << shared.queries << " queries in " << shared.passes << " passes";

  const Load alone = measure(cluster, {"--prometheus-shared-reads=false"}, "alone.log", 6);
  ASSERT_GE(alone.passes, 6);
  // Each policy reads on its own: four queries for every pass that reads a new step.
  EXPECT_GT(alone.queries, alone.passes + 1)
      << alone.queries << " queries in " << alone.passes << " passes";
  std::cout << "cpu_usage queries: shared " << shared.queries << " in " << shared.passes
            << " passes; alone " << alone.queries << " in " << alone.passes << " passes\n";
}

}  // namespace
}  // namespace attune
