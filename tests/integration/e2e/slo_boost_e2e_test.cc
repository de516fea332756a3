// SLO guardrails and startup boost end to end, with every peer real: `attune sim serve --tls`
// runs a small cluster in wall-clock time, a real Prometheus scrapes it every second, policies
// are applied with the real kubectl, and the `attune controller` binary manages the cluster.
//
// `web` is over-provisioned: Auto mode resizes its pod in place; its policy's guardrail
// `memory-ceiling` asks Prometheus for the resized pod's working set (namespace and pod filled
// into the query) with a threshold of one byte, so one minute after the resize it breaches and
// the resize is reverted with reason slo:memory-ceiling; its guardrail `no-data` finds no series
// and fails open, reported by an SLOGuardrailSkipped event. `jvm` has a startup boost: once its
// policy has a recommendation the test deletes its pod, and the replacement's CPU is raised in
// place by the multiplier, then returned to the steady recommendation when the 40 s are over.
//
// Takes about three minutes of wall time (the simulator runs at one simulated second per
// second, as the operator and Prometheus keep the wall clock).
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/quantity.h"
#include "core/time.h"
#include "integration/e2e/sim_cluster.h"
#include "support/command.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

std::string scenarioYaml(Time start) {
  return "apiVersion: sim.attune.io/v1alpha1\n"
         "kind: Scenario\n"
         "metadata: {name: slo-boost}\n"
         "spec:\n"
         "  seed: 5\n"
         "  start: \"" +
         formatRfc3339(start) +
         "\"\n"
         "  duration: 1h\n"
         "  tick: 1s\n"
         "  nodePools:\n"
         "  - {name: general, count: 1, cpu: \"4\", memory: 16Gi}\n"
         "  namespaces: [apps]\n"
         "  workloads:\n"
         "  - kind: Deployment\n"
         "    namespace: apps\n"
         "    name: web\n"
         "    replicas: 1\n"
         "    containers:\n"
         "    - name: app\n"
         "      requests: {cpu: \"1\", memory: 1Gi}\n"
         "      limits: {cpu: \"2\", memory: 2Gi}\n"
         "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n"
         "  - kind: Deployment\n"
         "    namespace: apps\n"
         "    name: jvm\n"
         "    replicas: 1\n"
         "    containers:\n"
         "    - name: app\n"
         "      requests: {cpu: 200m, memory: 256Mi}\n"
         "      limits: {cpu: \"2\", memory: 1Gi}\n"
         "      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}\n";
}

// Windows short enough for a run of minutes, as the operator e2e suite uses them.
std::string policyYaml(const std::string& name, const std::string& cpuExtra,
                       const std::string& strategyExtra) {
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
         "  cpu: {maxChangePercent: 100" +
         cpuExtra +
         "}\n"
         "  memory: {allowDecrease: true, maxChangePercent: 100}\n"
         "  updateStrategy:\n"
         "    type: Auto\n"
         "    cooldown: 1m\n"
         "    safetyObservationPeriod: 1m\n" +
         strategyExtra;
}

constexpr const char* kGuardrails =
    "    sloGuardrails:\n"
    "    - name: memory-ceiling\n"
    "      query: max(container_memory_working_set_bytes{namespace=\"{{ .Namespace }}\", "
    "pod=\"{{ .PodName }}\"})\n"
    "      threshold: \"1\"\n"
    "      evaluationWindow: 1m\n"
    "    - name: no-data\n"
    "      query: max(attune_e2e_missing_series{workload=\"{{ .WorkloadName }}\"})\n"
    "      threshold: \"0\"\n"
    "      evaluationWindow: 1m\n";

json containerResources(const json& pod) { return at(pod, {"spec", "containers", 0, "resources"}); }

std::vector<json> items(const json& list) {
  std::vector<json> out;
  if (list.is_object() && list["items"].is_array()) {
    for (const json& i : list["items"]) out.push_back(i);
  }
  return out;
}

Millicores cpuOf(const json& quantity) {
  if (!quantity.is_string()) return Millicores(0);
  auto parsed = parseCpu(quantity.get<std::string>());
  return parsed ? *parsed : Millicores(0);
}

class SloBoostEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
    auto cluster = testing::SimCluster::start(scenarioYaml(clock_.now()));
    ASSERT_TRUE(cluster.has_value()) << cluster.error().toString();
    c_ = std::move(*cluster);
  }

  std::optional<json> onlyPod(const std::string& workload) {
    const auto all = items(c_->getJson("pods -n apps -l app.kubernetes.io/name=" + workload));
    if (all.size() != 1) return std::nullopt;
    return all[0];
  }
  std::vector<json> events(const std::string& reason) {
    std::vector<json> found;
    for (const json& e : items(c_->getJson("events -n apps"))) {
      if (e.value("reason", "") == reason) found.push_back(e);
    }
    return found;
  }
  // History entries of `policy` with `result` and `reason` (any reason when empty).
  std::vector<json> history(const std::string& policy, const std::string& result,
                            const std::string& reason) {
    std::vector<json> found;
    const json entries =
        at(c_->getJson("attunepolicy -n apps " + policy), {"status", "resizeHistory"});
    if (!entries.is_array()) return found;
    for (const json& e : entries) {
      if (e.value("result", "") != result) continue;
      if (reason.empty() || e.value("reason", "") == reason) found.push_back(e);
    }
    return found;
  }
  std::string logs() const { return "--- controller.log\n" + c_->log("controller.log"); }

  SystemClock clock_;
  std::unique_ptr<testing::SimCluster> c_;
};

TEST_F(SloBoostEndToEnd, AGuardrailBreachRevertsAndAStartupBoostComesAndGoes) {
  const auto webBefore = onlyPod("web");
  ASSERT_TRUE(webBefore);
  const std::string webPod = at(*webBefore, {"metadata", "name"}).get<std::string>();
  const json webOriginal = containerResources(*webBefore);

  c_->write("policies.yaml",
            policyYaml("web", "", kGuardrails) + "---\n" +
                policyYaml("jvm", ", startupBoost: {multiplier: \"4\", duration: 40s}", ""));
  // The public fields are acted on: validating prints no "no effect" warning.
  const testing::CommandRun validated = testing::runCommand(
      std::string(ATTUNE_BINARY) + " policy validate " + c_->path("policies.yaml") + " 2>&1");
  EXPECT_EQ(validated.exitCode, 0) << validated.out;
  EXPECT_EQ(validated.out.find("no effect"), std::string::npos) << validated.out;
  const auto applied = c_->kubectl("apply -f " + c_->path("policies.yaml"));
  ASSERT_EQ(applied.exitCode, 0) << applied.err;
  auto controller = c_->spawn(c_->controllerArgv(testing::freeLocalPort()), "controller.log");
  ASSERT_TRUE(controller->running());

  // web: resized in place, then reverted by the guardrail one minute later.
  ASSERT_TRUE(c_->waitFor(3min, [&] {
    const auto pod = onlyPod("web");
    return pod && at(containerResources(*pod), {"requests", "cpu"}) != "1";
  })) << logs();
  // jvm: once its policy has a recommendation, its pod is replaced.
  ASSERT_TRUE(c_->waitFor(2min, [&] {
    return at(c_->getJson("attunepolicy -n apps jvm"),
              {"status", "recommendations", 0, "containers", 0, "recommended", "cpuRequest"})
        .is_string();
  })) << logs();
  const std::string oldJvm = at(*onlyPod("jvm"), {"metadata", "name"}).get<std::string>();
  ASSERT_EQ(c_->kubectl("delete pod -n apps " + oldJvm + " --wait=false").exitCode, 0);

  // The replacement is boosted in place: more CPU than its 200m, the annotation, no record.
  std::string boostedPod;
  Millicores boostedCpu(0);
  ASSERT_TRUE(c_->waitFor(90s, [&] {
    const auto pod = onlyPod("jvm");
    if (!pod || at(*pod, {"metadata", "annotations", "attune.io/startup-boost-at"}).is_null()) {
      return false;
    }
    boostedPod = at(*pod, {"metadata", "name"}).get<std::string>();
    boostedCpu = cpuOf(at(containerResources(*pod), {"requests", "cpu"}));
    return boostedCpu > Millicores(200);
  })) << logs();
  EXPECT_NE(boostedPod, oldJvm);
  EXPECT_TRUE(at(*onlyPod("jvm"), {"metadata", "annotations", "attune.io/resized-at"}).is_null());
  // The Event is written after the pod's patch (recording follows acting, on the client's
  // write lanes): waited for, not read at once.
  const auto eventWritten = [&](const std::string& reason) {
    return c_->waitFor(20s, [&] { return !events(reason).empty(); });
  };
  EXPECT_TRUE(eventWritten("StartupBoost")) << logs();

  // The guardrail's revert: web is back at exactly its original resources.
  ASSERT_TRUE(c_->waitFor(2min, [&] {
    return !history("web", "Reverted", "slo:memory-ceiling").empty();
  })) << logs();
  const auto webAfter = onlyPod("web");
  ASSERT_TRUE(webAfter);
  EXPECT_EQ(at(*webAfter, {"metadata", "name"}), webPod) << "in place";
  EXPECT_TRUE(c_->waitFor(20s, [&] { return containerResources(*onlyPod("web")) == webOriginal; }))
      << containerResources(*onlyPod("web")).dump();
  // An event with `reason` whose message contains `text` has been written (a skip's Event by the
  // poll after the pass that recorded it).
  const auto eventSays = [&](const std::string& reason, const std::string& text) {
    return c_->waitFor(10s, [&] {
      for (const json& e : events(reason)) {
        if (e.value("message", "").find(text) != std::string::npos) return true;
      }
      return false;
    });
  };
  EXPECT_TRUE(eventSays("Reverted", "SLO guardrail memory-ceiling breached")) << logs();
  EXPECT_TRUE(
      eventSays("SLOGuardrailSkipped", "SLO guardrail no-data not evaluated for pod " + webPod))
      << "an empty result fails open and is reported";

  // The boost ends 40 s after it began: the same pod, back below the boosted CPU.
  ASSERT_TRUE(c_->waitFor(90s, [&] {
    const auto pod = onlyPod("jvm");
    return pod && at(*pod, {"metadata", "annotations", "attune.io/startup-boost-at"}).is_null();
  })) << logs();
  const auto ended = onlyPod("jvm");
  EXPECT_EQ(at(*ended, {"metadata", "name"}), boostedPod) << "in place";
  EXPECT_LT(cpuOf(at(containerResources(*ended), {"requests", "cpu"})), boostedCpu);
  EXPECT_TRUE(eventWritten("StartupBoostEnded")) << logs();
  EXPECT_TRUE(history("jvm", "Reverted", "").empty()) << "a boost is never reverted";
  controller->terminate(10s, nullptr);
}

}  // namespace
}  // namespace attune
