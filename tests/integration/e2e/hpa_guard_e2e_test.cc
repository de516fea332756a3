// The HPA guard end to end, with every peer real: `attune sim serve --tls` holds a Deployment
// and its HPA, a real Prometheus scrapes a request-rate series the test serves, the
// `attune hpa-guard` binary runs against both, and the guard is turned on with
// `kubectl annotate hpa`. Then Prometheus is stopped: minReplicas stays and a Warning appears.
//
// Takes about half a minute of wall time: it waits on real processes, polling with deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/clock.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/prometheus/local_http_server.h"
#include "support/prometheus/prometheus_server.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// Deployment `web` (4 replicas) and its HPA (2..20 on CPU), in namespace `apps`.
constexpr std::string_view kScenario = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: hpa-guard}
spec:
  duration: 2h
  tick: 1s
  nodePools:
  - {name: general, count: 2, cpu: "8", memory: 16Gi}
  namespaces: [apps]
  workloads:
  - kind: Deployment
    namespace: apps
    name: web
    replicas: 4
    containers:
    - name: app
      requests: {cpu: 500m, memory: 256Mi}
      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}
  hpas:
  - namespace: apps
    name: web
    scaleTargetRef: {kind: Deployment, name: web}
    minReplicas: 2
    maxReplicas: 20
    metrics:
    - type: Resource
      resource: {name: cpu, target: {type: Utilization, averageUtilization: 50}}
)";

// 30 requests per second at the front door: with 2.5 per replica and delta -0.5 the floor is
// ceil(-0.5 + 30 / 2.5) = 12.
constexpr std::string_view kRequestRate =
    "# TYPE frontend_requests_per_second gauge\n"
    "frontend_requests_per_second{app=\"web\"} 30\n";

// The cells of the first row under a kubectl table's header (cells are separated by at least
// two spaces; a cell such as "cpu: 20%/50%" keeps its single space).
std::vector<std::string> tableColumns(const std::string& table) {
  const auto firstBreak = table.find('\n');
  if (firstBreak == std::string::npos) return {};
  std::string row = table.substr(firstBreak + 1);
  row = row.substr(0, row.find('\n'));
  std::vector<std::string> cells;
  std::size_t at = 0;
  while (at < row.size()) {
    const std::size_t gap = row.find("  ", at);
    cells.push_back(row.substr(at, gap == std::string::npos ? std::string::npos : gap - at));
    if (gap == std::string::npos) break;
    at = row.find_first_not_of(' ', gap);
  }
  return cells;
}

class HpaGuardEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::findOnPath("kubectl"))
      GTEST_SKIP() << "kubectl is not installed (scripts/setup.sh installs it)";
    if (!testing::PrometheusServer::available()) GTEST_SKIP() << testing::kPrometheusMissing;
    std::ofstream(dir_.path() / "scenario.yaml") << kScenario;
    kubeconfig_ = (dir_.path() / "kubeconfig").string();
    sim_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{ATTUNE_BINARY, "sim", "serve",
                                 (dir_.path() / "scenario.yaml").string(), "--listen",
                                 "127.0.0.1:" + std::to_string(testing::freeLocalPort()), "--tls",
                                 "--kubeconfig-out", kubeconfig_, "--speed", "1"},
        dir_.path() / "sim.log");
    ASSERT_TRUE(waitFor(60s, [&] {
      return std::filesystem::exists(kubeconfig_) && kubectl("get --raw /readyz").out == "ok";
    })) << testing::readFile(dir_.path() / "sim.log");
    auto prometheus =
        testing::PrometheusServer::startScraping("127.0.0.1:" + std::to_string(rates_.port()), 1s);
    ASSERT_TRUE(prometheus.has_value()) << prometheus.error().toString();
    prometheus_ = std::move(*prometheus);
  }

  testing::CommandRun kubectl(const std::string& args) {
    return testing::runCommand("kubectl --kubeconfig " + kubeconfig_ + " --request-timeout=20s " +
                               args);
  }
  json hpa() {
    const auto run = kubectl("get hpa -n apps web -o json");
    return run.exitCode == 0 ? json::parse(run.out, nullptr, false) : json();
  }
  int minReplicas() {
    const json h = hpa();
    return h.is_object() ? h["spec"].value("minReplicas", -1) : -1;
  }
  // The events about the HPA with this reason.
  std::vector<json> events(const std::string& reason) {
    std::vector<json> found;
    const auto run = kubectl("get events -n apps -o json");
    const json list = run.exitCode == 0 ? json::parse(run.out, nullptr, false) : json();
    if (!list.is_object() || !list["items"].is_array()) return found;
    for (const json& e : list["items"]) {
      if (e.value("reason", "") == reason &&
          e["involvedObject"].value("kind", "") == "HorizontalPodAutoscaler") {
        found.push_back(e);
      }
    }
    return found;
  }
  // Polls `done` every second until it holds or `limit` of wall time has passed.
  bool waitFor(Duration limit, const std::function<bool()>& done) {
    const Time end = clock_.now() + limit;
    while (clock_.now() < end) {
      if (done()) return true;
      clock_.sleepFor(1s);
    }
    return done();
  }
  std::string guardLog() const { return testing::readFile(dir_.path() / "guard.log"); }

  SystemClock clock_;
  testing::TempDir dir_;
  std::string kubeconfig_;
  testing::LocalHttpServer rates_{[](const std::string&) {
    return testing::LocalHttpServer::Reply{200, std::string(kRequestRate), {}};
  }};
  std::unique_ptr<testing::ChildProcess> sim_;
  std::unique_ptr<testing::PrometheusServer> prometheus_;
};

TEST_F(HpaGuardEndToEnd, AnnotatingTheHpaSetsTheFloorAndAnOutageLeavesIt) {
  const std::string metricsAddress = "127.0.0.1:" + std::to_string(testing::freeLocalPort());
  testing::ChildProcess guard({ATTUNE_BINARY,
                               "hpa-guard",
                               "--kubeconfig",
                               kubeconfig_,
                               "--prometheus-url",
                               prometheus_->address(),
                               "--interval",
                               "2s",
                               "--metrics-address",
                               metricsAddress,
                               "--leader-election-namespace",
                               "apps",
                               "--lease-duration",
                               "4s",
                               "--renew-deadline",
                               "3s",
                               "--retry-period",
                               "1s",
                               "--log-format",
                               "json"},
                              dir_.path() / "guard.log");
  ASSERT_TRUE(guard.running());
  ASSERT_TRUE(waitFor(30s, [&] {
    return testing::runCommand("curl -sf http://" + metricsAddress + "/readyz").out == "ok\n";
  })) << guardLog();
  // The series is in Prometheus before the guard is turned on.
  ASSERT_TRUE(waitFor(30s, [&] {
    return testing::runCommand("curl -sf '" + prometheus_->address() +
                               "/api/v1/query?query=frontend_requests_per_second'")
               .out.find("\"30\"") != std::string::npos;
  }));
  EXPECT_EQ(minReplicas(), 2) << "an HPA without the annotation is left alone";

  const auto annotated = kubectl(
      "annotate hpa -n apps web estafette.io/hpa-scaler=true "
      "'estafette.io/hpa-scaler-prometheus-query=sum(frontend_requests_per_second{app=\"web\"})' "
      "estafette.io/hpa-scaler-requests-per-replica=2.5 estafette.io/hpa-scaler-delta=-0.5");
  ASSERT_EQ(annotated.exitCode, 0) << annotated.err;
  ASSERT_TRUE(waitFor(30s, [&] { return minReplicas() == 12; })) << hpa().dump(2) << "\n"
                                                                 << guardLog();
  // `kubectl get hpa` shows the new floor in its MINPODS column.
  const auto table = kubectl("get hpa -n apps web");
  ASSERT_EQ(table.exitCode, 0) << table.err;
  const std::vector<std::string> columns = tableColumns(table.out);
  ASSERT_EQ(columns.size(), 7u) << table.out;
  EXPECT_EQ(columns[0], "web") << table.out;
  EXPECT_EQ(columns[1], "Deployment/web") << table.out;
  EXPECT_EQ(columns[3], "12") << table.out;  // MINPODS
  EXPECT_EQ(columns[4], "20") << table.out;  // MAXPODS
  // The Event follows the HPA's update: waited for.
  ASSERT_TRUE(waitFor(20s, [&] { return !events("MinReplicasChanged").empty(); })) << guardLog();
  const auto changed = events("MinReplicasChanged");
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(changed[0].value("message", ""), "minReplicas 2 → 12: query floor 12 (result 30)");
  const auto metrics = testing::runCommand("curl -sf http://" + metricsAddress + "/metrics").out;
  EXPECT_NE(metrics.find("attune_hpa_guard_min_replicas{namespace=\"apps\",hpa=\"web\"} 12"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("attune_hpa_guard_changes_total{namespace=\"apps\",hpa=\"web\"} 1"),
            std::string::npos)
      << metrics;

  // Prometheus goes away: the floor stays where it was, with a Warning on the HPA.
  prometheus_.reset();
  ASSERT_TRUE(waitFor(30s, [&] { return !events("HpaGuardQueryFailed").empty(); })) << guardLog();
  const json warning = events("HpaGuardQueryFailed").front();
  EXPECT_EQ(warning.value("type", ""), "Warning");
  EXPECT_NE(warning.value("message", "").find("minReplicas stays 12"), std::string::npos)
      << warning.dump(2);
  EXPECT_EQ(minReplicas(), 12);
  EXPECT_EQ(events("MinReplicasChanged").size(), 1u);

  int exitCode = -1;
  ASSERT_TRUE(guard.terminate(10s, &exitCode)) << guardLog();
  EXPECT_EQ(exitCode, 0) << guardLog();
}

}  // namespace
}  // namespace attune
