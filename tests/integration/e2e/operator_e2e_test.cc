// The operator end to end, with every peer real: `attune sim serve --tls` runs a small cluster in
// wall-clock time (one simulated second per second), a real Prometheus scrapes its /metrics
// every second, policies are applied with the real kubectl, and the `attune controller` binary
// manages the cluster through the kubeconfig the simulator wrote.
//
// Two workloads: `web` is over-provisioned and steady, so Auto mode resizes its pods in place
// and they stay resized; `leaky` leaks memory, so once its memory is lowered it is OOM-killed
// at the new limit and the safety monitor reverts it. The controller is killed (SIGKILL) while
// `leaky` is under observation and a new one is started: the revert still happens, from the
// state kept on the pod, and restores the original resources exactly.
//
// While both are resized, the `kubectl attune` plugin (kubectl-attune on PATH) shows that state:
// status, explain, recommendations, history, savings and preview.
//
// Takes about five minutes of wall time: it waits on real processes, polling with deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/quantity.h"
#include "core/time.h"
#include "integration/e2e/sim_cluster.h"
#include "support/command.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

// The cluster: two 4-core nodes, namespace `apps`. `leaky` starts at 150Mi and grows 100Mi a
// minute: under its original 1Gi limit it would be OOM-killed after about 9 minutes; its policy
// caps memory at 300Mi (limit 600Mi, the 2:1 ratio kept), which it outgrows about 4.5 minutes
// after the start.
std::string scenarioYaml(Time start) {
  return "apiVersion: sim.attune.io/v1alpha1\n"
         "kind: Scenario\n"
         "metadata: {name: e2e}\n"
         "spec:\n"
         "  seed: 11\n"
         "  start: \"" +
         formatRfc3339(start) +
         "\"\n"
         "  duration: 2h\n"
         "  tick: 1s\n"
         "  nodePools:\n"
         "  - {name: general, count: 2, cpu: \"4\", memory: 16Gi}\n"
         "  namespaces: [apps]\n"
         "  workloads:\n"
         "  - kind: Deployment\n"
         "    namespace: apps\n"
         "    name: web\n"
         "    replicas: 2\n"
         "    containers:\n"
         "    - name: app\n"
         "      requests: {cpu: \"1\", memory: 1Gi}\n"
         "      limits: {cpu: \"2\", memory: 2Gi}\n"
         "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n"
         "  - kind: Deployment\n"
         "    namespace: apps\n"
         "    name: leaky\n"
         "    replicas: 1\n"
         "    containers:\n"
         "    - name: app\n"
         "      requests: {cpu: 250m, memory: 512Mi}\n"
         "      limits: {cpu: \"1\", memory: 1Gi}\n"
         "      model: {kind: memory-leak, cpuCores: 100m, memoryBytes: 150Mi,\n"
         "              leakBytesPerHour: 6000Mi, noise: 0}\n";
}

// An Auto policy with windows short enough for a run of minutes: 10 s query steps, six points
// (one minute) before the first recommendation, decreases allowed in one step, and a cooldown
// of a minute (recommendations from minutes of data move by more than the change threshold
// between passes, which would otherwise hold the rest of a rollout back for the cooldown).
std::string policyYaml(const std::string& name, const std::string& memoryExtra,
                       const std::string& observation) {
  return "apiVersion: attune.io/v1alpha1\n"
         "kind: AttunePolicy\n"
         "metadata: {name: " +
         name +
         ", namespace: apps}\n"
         "spec:\n"
         "  targetRef: {kind: Deployment, name: " +
         name +
         "}\n"
         "  metricsSource: {historyWindow: 10m, queryStep: 10s, rateWindow: 30s, "
         "minimumDataPoints: 6}\n"
         "  cpu: {maxChangePercent: 100}\n"
         "  memory: {allowDecrease: true, maxChangePercent: 100" +
         memoryExtra +
         "}\n"
         "  updateStrategy: {type: Auto, autoRevert: true, cooldown: 1m, "
         "safetyObservationPeriod: " +
         observation + "}\n";
}

using testing::at;

json containerResources(const json& pod) { return at(pod, {"spec", "containers", 0, "resources"}); }

bool hasResizeRecord(const json& pod) {
  return !at(pod, {"metadata", "annotations", "attune.io/resized-at"}).is_null();
}

// The history entries of `policy` with this result (and reason, when not empty).
std::vector<json> history(const json& policy, const std::string& result,
                          const std::string& reason = {}) {
  std::vector<json> found;
  const json entries = at(policy, {"status", "resizeHistory"});
  if (!entries.is_array()) return found;
  for (const json& e : entries) {
    if (e.value("result", "") == result && (reason.empty() || e.value("reason", "") == reason))
      found.push_back(e);
  }
  return found;
}

class OperatorEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
    auto cluster = testing::SimCluster::start(scenarioYaml(clock_.now()), simExtraArgs_);
    ASSERT_TRUE(cluster.has_value()) << cluster.error().toString();
    cluster_ = std::move(*cluster);
    kubeconfig_ = cluster_->kubeconfig();
  }

  std::string path(const std::string& name) const { return cluster_->path(name); }
  void write(const std::string& name, const std::string& text) { cluster_->write(name, text); }
  std::string log(const std::string& name) const { return cluster_->log(name); }
  testing::CommandRun kubectl(const std::string& args) { return cluster_->kubectl(args); }
  json getJson(const std::string& args) { return cluster_->getJson(args); }
  bool waitFor(Duration limit, const std::function<bool()>& done) {
    return cluster_->waitFor(limit, done);
  }

  // Starts `attune controller` (its log: controller-<n>.log).
  void startController() {
    ++controllers_;
    controller_ = cluster_->spawn(cluster_->controllerArgv(testing::freeLocalPort()),
                                  "controller-" + std::to_string(controllers_) + ".log");
    ASSERT_TRUE(controller_->running());
  }
  std::string controllerLogs() const {
    std::string all;
    for (int i = 1; i <= controllers_; ++i) {
      all += "--- controller-" + std::to_string(i) + ".log\n" +
             log("controller-" + std::to_string(i) + ".log");
    }
    return all;
  }

  // The leaky pod's name and resources before any policy exists; applies both policies.
  void readOriginalsAndApplyPolicies() {
    const json before = getJson("pods -n apps -l app.kubernetes.io/name=leaky");
    ASSERT_EQ(at(before, {"items"}).size(), 1u) << "cannot read the leaky pod";
    leakyPod_ = at(before, {"items", 0, "metadata", "name"}).get<std::string>();
    original_ = containerResources(at(before, {"items", 0}));
    ASSERT_EQ(at(original_, {"requests", "memory"}), "512Mi");
    write("policies.yaml", policyYaml("web", "", "1m") + "---\n" +
                               policyYaml("leaky",
                                          ", maxAllowed: 300Mi, controlledValues: "
                                          "RequestsAndLimits",
                                          "30m"));
    const auto applied = kubectl("apply -f " + path("policies.yaml"));
    ASSERT_EQ(applied.exitCode, 0) << applied.err;
  }

  // `web` is resized in place (both pods keep their names and get smaller requests), then
  // `leaky` is resized and is under observation; returns the leaky pod as resized.
  json waitForBothResized() {
    EXPECT_TRUE(waitFor(4min, [&] {
      const json pods = getJson("pods -n apps -l app.kubernetes.io/name=web");
      if (at(pods, {"items"}).size() != 2) return false;
      for (const json& pod : pods["items"]) {
        if (at(containerResources(pod), {"requests", "cpu"}) == "1") return false;
      }
      return true;
    })) << controllerLogs();
    EXPECT_TRUE(waitFor(2min, [&] { return hasResizeRecord(getJson("pod -n apps " + leakyPod_)); }))
        << controllerLogs();
    const json resized = getJson("pod -n apps " + leakyPod_);
    EXPECT_EQ(at(containerResources(resized), {"limits", "memory"}), "600Mi");
    EXPECT_TRUE(history(getJson("attunepolicy -n apps leaky"), "Reverted").empty());
    return resized;
  }

  // The OOM kill at the lowered limit is reverted: the policy's history says so, the record
  // leaves the pod, and the pod has exactly its original resources again. Returns the pod.
  json waitForOomRevert() {
    EXPECT_TRUE(waitFor(5min, [&] {
      return !history(getJson("attunepolicy -n apps leaky"), "Reverted", "oomkill").empty();
    })) << controllerLogs();
    EXPECT_TRUE(waitFor(30s, [&] {
      const json pod = getJson("pod -n apps " + leakyPod_);
      return pod.is_object() && !hasResizeRecord(pod);
    })) << "the revert's record stays on the pod";
    const json after = getJson("pod -n apps " + leakyPod_);
    EXPECT_EQ(containerResources(after), original_) << containerResources(after).dump();
    return after;
  }

  // `kubectl attune ARGS` as a user runs it: kubectl finds the plugin on PATH as
  // kubectl-attune, a symlink to the attune binary; the cluster from $KUBECONFIG.
  testing::CommandRun kubectlAttune(const std::string& args) {
    const std::filesystem::path bin = path("bin");
    if (!std::filesystem::exists(bin / "kubectl-attune")) {
      std::filesystem::create_directories(bin);
      std::filesystem::create_symlink(ATTUNE_BINARY, bin / "kubectl-attune");
    }
    return testing::runCommand("PATH=" + bin.string() + ":$PATH KUBECONFIG=" + kubeconfig_ +
                               " kubectl attune " + args);
  }
  json kubectlAttuneJson(const std::string& args) {
    const auto run = kubectlAttune(args + " -o json");
    EXPECT_EQ(run.exitCode, 0) << args << ": " << run.err;
    if (run.exitCode != 0) return json();
    return json::parse(run.out, nullptr, false);
  }
  // The rows of a plugin document for one policy.
  static std::vector<json> rowsOf(const json& doc, const std::string& policyField,
                                  const std::string& policy) {
    std::vector<json> rows;
    if (!doc.contains("items")) return rows;
    for (const json& row : doc["items"]) {
      if (row.value(policyField, "") == policy) rows.push_back(row);
    }
    return rows;
  }

  // While `web` is resized and `leaky` is under observation: every `kubectl attune` command
  // shows that state.
  void checkPluginShowsTheState() {
    // status -A: both policies, their mode, readiness and workload counts.
    const auto table = kubectlAttune("status -A");
    ASSERT_EQ(table.exitCode, 0) << table.err;
    EXPECT_NE(table.out.find("MODE"), std::string::npos) << table.out;
    const json status = kubectlAttuneJson("status -A");
    const auto web = rowsOf(status, "name", "web");
    ASSERT_EQ(web.size(), 1u) << status.dump(2);
    EXPECT_EQ(web[0]["mode"], "Auto");
    EXPECT_EQ(web[0]["target"], "Deployment/web");
    EXPECT_EQ(web[0]["ready"], "True");
    EXPECT_EQ(web[0]["discovered"], 1);
    EXPECT_FALSE(web[0]["lastReconcile"].is_null());
    EXPECT_EQ(rowsOf(status, "name", "leaky").size(), 1u);

    // explain: the leaky pod is under observation, its resize named.
    const auto explain = kubectlAttune("explain leaky -n apps --kubeconfig " + kubeconfig_);
    ASSERT_EQ(explain.exitCode, 0) << explain.err;
    EXPECT_NE(explain.out.find(leakyPod_), std::string::npos) << explain.out;
    const json leaky = kubectlAttuneJson("explain leaky -n apps");
    const auto leakyRows = rowsOf(leaky, "pod", leakyPod_);
    ASSERT_EQ(leakyRows.size(), 1u) << leaky.dump(2);
    EXPECT_EQ(leakyRows[0]["state"], "UnderObservation") << leaky.dump(2);
    // Both web pods were resized (some may still be under observation).
    const json webPods = kubectlAttuneJson("explain web -n apps");
    ASSERT_EQ(webPods["items"].size(), 2u) << webPods.dump(2);
    for (const json& row : webPods["items"]) {
      EXPECT_TRUE(row["state"] == "Resized" || row["state"] == "UnderObservation") << row.dump();
    }

    // recommendations: web's container has a recommended CPU request and a reason.
    const json recommendations = kubectlAttuneJson("recommendations -n apps");
    const auto webRecs = rowsOf(recommendations, "policy", "web");
    ASSERT_EQ(webRecs.size(), 1u) << recommendations.dump(2);
    EXPECT_EQ(webRecs[0]["container"], "app");
    EXPECT_FALSE(webRecs[0]["cpuRequest"].is_null()) << webRecs[0].dump();
    EXPECT_FALSE(webRecs[0]["cpuRecommended"].is_null()) << webRecs[0].dump();
    EXPECT_FALSE(webRecs[0]["reason"].is_null());

    // history: web's resizes from the status, and the controller's Events about them.
    const json hist = kubectlAttuneJson("history -A");
    bool applied = false;
    bool event = false;
    for (const json& row : rowsOf(hist, "policy", "web")) {
      applied = applied || (row["source"] == "status" &&
                            (row["result"] == "Success" || row["result"] == "Applied"));
      event = event || row["source"] == "event";
    }
    EXPECT_TRUE(applied) << hist.dump(2);
    EXPECT_TRUE(event) << hist.dump(2);

    // savings: the request totals of web's running pods, below the 2 CPUs they started with
    // (the reduction is what the recommendations still take off: none once the pods are at
    // their targets).
    // status.savings is what the last pass saw before it acted: a pass after web's last resize
    // shows both pods at their targets.
    std::vector<json> savings;
    EXPECT_TRUE(waitFor(2min, [&] {
      savings = rowsOf(kubectlAttuneJson("savings -A"), "name", "web");
      if (savings.size() != 1 || !savings[0]["cpuRequestTotal"].is_string()) return false;
      const auto total = parseCpu(savings[0]["cpuRequestTotal"].get<std::string>());
      return total && total->value() < 2000;
    })) << (savings.empty() ? std::string("no savings row") : savings[0].dump());
    ASSERT_EQ(savings.size(), 1u);
    ASSERT_TRUE(savings[0]["cpuRequestTotal"].is_string()) << savings[0].dump();
    const auto total = parseCpu(savings[0]["cpuRequestTotal"].get<std::string>());
    ASSERT_TRUE(total.has_value()) << savings[0].dump();
    EXPECT_GT(total->value(), 0);
    EXPECT_LT(total->value(), 2000) << savings[0].dump();
    EXPECT_FALSE(savings[0]["cpuRequestReduction"].is_null()) << savings[0].dump();
    EXPECT_TRUE(savings[0]["cpuReductionPercent"].is_number()) << savings[0].dump();

    // preview: the next pass of each policy, from the same Prometheus; none fails.
    const std::string flags = " --prometheus-url " + cluster_->prometheusAddress() +
                              " --scrape-interval 1s --throttle-window 30s";
    const json preview = kubectlAttuneJson("preview -A" + flags);
    for (const std::string name : {"web", "leaky"}) {
      const auto rows = rowsOf(preview, "policy", name);
      ASSERT_FALSE(rows.empty()) << name << ": " << preview.dump(2);
      for (const json& row : rows) {
        EXPECT_NE(row["action"], "NoResize") << row.dump();
        EXPECT_NE(row["action"], "Invalid") << row.dump();
      }
    }
    // Without Prometheus it fails closed, saying why.
    const auto down = kubectlAttune("preview -A --prometheus-url http://127.0.0.1:" +
                                    std::to_string(testing::freeLocalPort()));
    EXPECT_EQ(down.exitCode, 1);
    EXPECT_NE(down.err.find("does not answer"), std::string::npos) << down.err;

    // --watch: the status again after the interval, a bounded number of times; and the same
    // commands under `attune plugin`.
    const auto watched = kubectlAttune("status -A --watch --watch-count 2 --watch-interval 1s");
    ASSERT_EQ(watched.exitCode, 0) << watched.err;
    std::size_t headers = 0;
    for (std::size_t at = watched.out.find("NAMESPACE"); at != std::string::npos;
         at = watched.out.find("NAMESPACE", at + 1)) {
      ++headers;
    }
    EXPECT_EQ(headers, 2u) << watched.out;
    const auto direct = testing::runCommand(std::string(ATTUNE_BINARY) +
                                            " plugin status -n apps --kubeconfig " + kubeconfig_);
    EXPECT_EQ(direct.exitCode, 0) << direct.err;
    EXPECT_NE(direct.out.find("leaky"), std::string::npos) << direct.out;
  }

  SystemClock clock_;
  std::vector<std::string> simExtraArgs_;  // more `attune sim serve` flags
  std::string leakyPod_;
  json original_;  // the leaky pod's resources before any resize
  std::unique_ptr<testing::SimCluster> cluster_;
  std::string kubeconfig_;
  std::unique_ptr<testing::ChildProcess> controller_;
  int controllers_ = 0;
};

TEST_F(OperatorEndToEnd, ResizesInPlaceAndARestartedControllerStillRevertsAnOomKill) {
  ASSERT_NO_FATAL_FAILURE(readOriginalsAndApplyPolicies());
  startController();
  waitForBothResized();
  if (HasFailure()) return;
  ASSERT_NO_FATAL_FAILURE(checkPluginShowsTheState());

  // The controller dies in the middle of the observation; a new one takes over.
  controller_.reset();
  startController();
  waitForOomRevert();
  if (HasFailure()) return;

  // What a user sees: the policy's history and the events.
  const auto policyYaml = kubectl("get attunepolicy -n apps leaky -o yaml");
  EXPECT_NE(policyYaml.out.find("reason: oomkill"), std::string::npos) << policyYaml.out;
  EXPECT_NE(policyYaml.out.find("result: Reverted"), std::string::npos) << policyYaml.out;
  const auto events = kubectl("get events -n apps");
  EXPECT_NE(events.out.find("Reverted"), std::string::npos) << events.out;

  // `web` stayed resized: its observation ended without a violation.
  const json web = getJson("attunepolicy -n apps web");
  EXPECT_FALSE(history(web, "Success").empty()) << web.dump(2);
  EXPECT_TRUE(history(web, "Reverted").empty()) << web.dump(2);
}

// The same run with the API server failing one request in ten (429 with Retry-After, 500,
// connection resets, dropped and expired watches, 409 on conditional writes): the controller
// keeps working, records the true originals, applies the leaky pod's resize once, and the
// revert restores the originals exactly.
class OperatorUnderFaults : public OperatorEndToEnd {
 protected:
  void SetUp() override {
    simExtraArgs_ = {"--fault-rate", "0.1", "--fault-seed", "7"};
    OperatorEndToEnd::SetUp();
  }
};

TEST_F(OperatorUnderFaults, KeepsWorkingAndNeverLosesOrDoublesAResize) {
  ASSERT_NO_FATAL_FAILURE(readOriginalsAndApplyPolicies());
  startController();
  const json resized = waitForBothResized();
  if (HasFailure()) return;
  // The record holds the resources the pod really had before the resize.
  const json annotations = at(resized, {"metadata", "annotations"});
  EXPECT_EQ(annotations.value("attune.io/original-cpu-request.app", ""),
            at(original_, {"requests", "cpu"}));
  EXPECT_EQ(annotations.value("attune.io/original-cpu-limit.app", ""),
            at(original_, {"limits", "cpu"}));
  EXPECT_EQ(annotations.value("attune.io/original-memory-request.app", ""),
            at(original_, {"requests", "memory"}));
  EXPECT_EQ(annotations.value("attune.io/original-memory-limit.app", ""),
            at(original_, {"limits", "memory"}));
  const std::int64_t generation = at(resized, {"metadata", "generation"}).get<std::int64_t>();

  const json after = waitForOomRevert();
  if (HasFailure()) return;
  // One spec change since the resize: the revert. A resize applied again, or a second resize
  // during the observation, would have changed the spec (and the generation) once more.
  EXPECT_EQ(at(after, {"metadata", "generation"}).get<std::int64_t>(), generation + 1);
  // Every entry of the resize (one per resource, all marked Reverted now) carries its time.
  std::set<std::string> resizeTimes;
  const json leaky = getJson("attunepolicy -n apps leaky");
  for (const std::string result : {"Success", "Reverted"}) {
    for (const json& e : history(leaky, result)) resizeTimes.insert(e.value("timestamp", ""));
  }
  EXPECT_EQ(resizeTimes.size(), 1u) << "the leaky pod was resized once";

  // Faults were injected while all this happened.
  const auto metrics = kubectl("get --raw /metrics");
  EXPECT_NE(metrics.out.find("attune_sim_faults_injected_total"), std::string::npos);
  for (const std::string kind : {"throttled", "server-error", "timeout"}) {
    EXPECT_NE(metrics.out.find("attune_sim_faults_injected_total{kind=\"" + kind + "\"}"),
              std::string::npos)
        << kind;
  }
}

}  // namespace
}  // namespace attune
