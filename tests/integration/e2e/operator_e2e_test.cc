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
// Takes about five minutes of wall time: it waits on real processes, polling with deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
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
