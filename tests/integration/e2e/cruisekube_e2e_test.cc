// CruiseKube's half of the operator end to end, with every peer real: `attune sim serve --tls`
// runs the cluster in wall-clock time and calls the admission webhooks registered with the
// shipped Mutating- and ValidatingWebhookConfigurations over HTTPS; a real Prometheus scrapes
// it; the `attune controller` binary serves the webhooks (self-managed certificate, caBundle
// patched), recovers OOM-killed pods and taints overloaded nodes; the real kubectl drives it.
//
// One cluster and one controller for every check (they run side by side, in wall time):
//  - `kubectl apply` of an invalid policy is refused with every field path;
//  - `kubectl scale` of a Deployment creates pods sized by the pod webhook;
//  - an OOM-killed pod is evicted within one pass, and its replacement starts with a memory
//    limit of at least twice the memory at the kill;
//  - a pod behind a PodDisruptionBudget is not evicted, and once the budget is gone its next
//    OOM kill, inside the cooldown, is not evicted either;
//  - a pod opted out with attune.io/skip is never evicted;
//  - an overloaded node gets Attune's NoSchedule taint, and loses it when the load is gone;
//  - with the webhook unreachable, pods are still created (failurePolicy Ignore) and the
//    operator reports them (AdmissionWebhookBypassed Event, bypassed-pods counter).
//
// Takes about eight minutes of wall time: it waits on real processes, polling with deadlines.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/quantity.h"
#include "core/time.h"
#include "integration/e2e/sim_cluster.h"
#include "support/command.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using testing::at;

constexpr int kReconcileSeconds = 5;  // SimCluster::controllerArgv

// Three leaking workloads grow 100Mi a minute from 100Mi and are OOM-killed at their 400Mi
// limit about three minutes after each (re)start; `web` is steady and over-provisioned; `hog`
// wants 4 cores on the 2-core `hot` node, which nothing else may use.
std::string scenarioYaml(Time start) {
  std::string yaml =
      "apiVersion: sim.attune.io/v1alpha1\n"
      "kind: Scenario\n"
      "metadata: {name: cruisekube-e2e}\n"
      "spec:\n"
      "  seed: 5\n"
      "  start: \"" +
      formatRfc3339(start) +
      "\"\n"
      "  duration: 2h\n"
      "  tick: 1s\n"
      "  nodePools:\n"
      "  - {name: general, count: 2, cpu: \"8\", memory: 32Gi}\n"
      "  - name: hot\n"
      "    count: 1\n"
      "    cpu: \"2\"\n"
      "    memory: 8Gi\n"
      "    labels: {pool: hot}\n"
      "    taints: [{key: dedicated, value: hot, effect: NoSchedule}]\n"
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
      "    name: hog\n"
      "    replicas: 1\n"
      "    nodeSelector: {pool: hot}\n"
      "    tolerations: [{key: dedicated, operator: Equal, value: hot, effect: NoSchedule}]\n"
      "    containers:\n"
      "    - name: app\n"
      "      requests: {cpu: 500m, memory: 256Mi}\n"
      "      model: {kind: steady, cpuCores: \"4\", memoryBytes: 100Mi, noise: 0}\n";
  for (const std::string name : {"oomer", "guarded", "optout"}) {
    yaml +=
        "  - kind: Deployment\n"
        "    namespace: apps\n"
        "    name: " +
        name + "\n    replicas: 1\n";
    if (name == "optout") yaml += "    annotations: {attune.io/skip: \"true\"}\n";
    yaml +=
        "    containers:\n"
        "    - name: app\n"
        "      requests: {cpu: 250m, memory: 256Mi}\n"
        "      limits: {cpu: \"1\", memory: 400Mi}\n"
        "      model: {kind: memory-leak, cpuCores: 100m, memoryBytes: 100Mi,\n"
        "              leakBytesPerHour: 6000Mi, noise: 0}\n";
  }
  yaml +=
      "  podDisruptionBudgets:\n"
      "  - name: guarded\n"
      "    namespace: apps\n"
      "    minAvailable: 1\n"
      "    selector: {matchLabels: {app.kubernetes.io/name: guarded}}\n";
  return yaml;
}

// An Auto policy with windows short enough for a run of minutes (as in the operator e2e), the
// memory limit controlled (so the webhook sizes it), and a 10-minute cooldown between resizes.
std::string policyYaml(const std::string& name) {
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
         "  cpu: {maxChangePercent: 100, controlledValues: RequestsAndLimits}\n"
         "  memory: {allowDecrease: true, maxChangePercent: 100, "
         "controlledValues: RequestsAndLimits}\n"
         "  updateStrategy: {type: Auto, autoRevert: true, cooldown: 10m, "
         "safetyObservationPeriod: 1m}\n";
}

// Three mistakes: an unknown mode, a negative percentage and a malformed quantity.
constexpr std::string_view kInvalidPolicy = R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: broken, namespace: apps}
spec:
  targetRef: {kind: Deployment, name: web}
  updateStrategy: {type: Sometimes}
  cpu: {maxChangePercent: -5}
  memory: {maxAllowed: lots}
)";

std::vector<json> items(const json& list) {
  const json all = at(list, {"items"});
  return all.is_array() ? all.get<std::vector<json>>() : std::vector<json>{};
}

std::string nameOf(const json& object) {
  return at(object, {"metadata", "name"}).get<std::string>();
}

// The one container's resources.
json resourcesOf(const json& pod) { return at(pod, {"spec", "containers", 0, "resources"}); }

std::int64_t bytes(const json& quantity) {
  if (!quantity.is_string()) return -1;
  auto b = parseMemory(quantity.get<std::string>());
  return b ? b->value() : -1;
}

std::optional<Time> timeAt(const json& text) {
  if (!text.is_string()) return std::nullopt;
  auto t = parseRfc3339(text.get<std::string>());
  return t ? std::optional<Time>(*t) : std::nullopt;
}

// The finishedAt of the container's last OOM kill, or "".
std::string lastOomKill(const json& pod) {
  const json terminated = at(pod, {"status", "containerStatuses", 0, "lastState", "terminated"});
  if (!terminated.is_object() || terminated.value("reason", "") != "OOMKilled") return "";
  return terminated.value("finishedAt", "");
}

class CruiseKubeEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    if (auto why = testing::simClusterUnavailable(); !why.empty()) GTEST_SKIP() << why;
    auto cluster = testing::SimCluster::start(scenarioYaml(clock_.now()));
    ASSERT_TRUE(cluster.has_value()) << cluster.error().toString();
    c_ = std::move(*cluster);
    if (!testing::sourceDir().empty()) deployDir_ = testing::sourceDir() / "deploy" / "base";
  }

  // The shipped webhook configurations, their Service port replaced by the operator's port.
  void applyWebhookConfigurations() {
    for (const std::string file :
         {"09-mutatingwebhookconfiguration.yaml", "10-validatingwebhookconfiguration.yaml"}) {
      std::string text = testing::readFile(deployDir_ / file);
      const std::string from = "port: 443";
      ASSERT_NE(text.find(from), std::string::npos) << file;
      text.replace(text.find(from), from.size(), "port: " + std::to_string(webhookPort_));
      c_->write(file, text);
      const auto applied = c_->kubectl("apply -f " + c_->path(file));
      ASSERT_EQ(applied.exitCode, 0) << applied.err;
    }
  }

  void startController() {
    controller_ = c_->spawn(
        c_->controllerArgv(metricsPort_,
                           {"--webhook-address", "127.0.0.1:" + std::to_string(webhookPort_),
                            "--webhook-namespace", "attune-system", "--webhook-cert-extra-name",
                            "127.0.0.1", "--oom-recovery", "--node-load-taints",
                            // Every pass writes the status: the recommendations' lastUpdated
                            // then times the passes (below).
                            "--status-heartbeat", "1s"}),
        "controller.log");
    ASSERT_TRUE(controller_->running());
  }

  std::string caBundle(const std::string& kind, const std::string& name) {
    return c_
        ->kubectl("get " + kind + " " + name + " -o jsonpath={.webhooks[0].clientConfig.caBundle}")
        .out;
  }

  json pods(const std::string& workload) {
    return c_->getJson("pods -n apps -l app.kubernetes.io/name=" + workload);
  }
  std::optional<json> onlyPod(const std::string& workload) {
    const auto all = items(pods(workload));
    if (all.size() != 1) return std::nullopt;
    return all[0];
  }
  // Events with this reason about the pod (any object when empty), in every namespace.
  std::vector<json> events(const std::string& reason, const std::string& pod = "") {
    std::vector<json> found;
    for (const json& e : items(c_->getJson("events -A"))) {
      if (e.value("reason", "") != reason) continue;
      if (!pod.empty() && at(e, {"involvedObject", "name"}) != pod) continue;
      found.push_back(e);
    }
    return found;
  }
  std::string controllerMetrics() {
    return testing::runCommand("curl -s http://127.0.0.1:" + std::to_string(metricsPort_) +
                               "/metrics")
        .out;
  }
  bool nodeTainted(const std::string& node) {
    const json n = c_->getJson("node " + node);
    for (const json& t :
         at(n, {"spec", "taints"}).is_array() ? at(n, {"spec", "taints"}) : json::array()) {
      if (t.value("key", "") == "attune.io/node-overloaded") return true;
    }
    return false;
  }
  std::string diagnostics() { return "--- controller.log\n" + c_->log("controller.log"); }

  // The controller's passes (full and work-queue), as its log reports them: each line is written
  // when the pass ends and carries its duration.
  struct Pass {
    Time start;
    Time end;
  };
  std::vector<Pass> passes() {
    std::vector<Pass> found;
    std::istringstream lines(c_->log("controller.log"));
    for (std::string line; std::getline(lines, line);) {
      const json entry = json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!entry.is_object()) continue;
      const std::string msg = entry.value("msg", "");
      if (msg != "reconcile pass done" && msg != "reconciled from the work queue") continue;
      const auto end = timeAt(entry["ts"]);
      if (!end) continue;
      const double seconds = std::stod(entry.value("duration_s", "0"));
      found.push_back(
          {*end - std::chrono::duration_cast<Duration>(std::chrono::duration<double>(seconds)),
           *end});
    }
    return found;
  }

  SystemClock clock_;
  std::unique_ptr<testing::SimCluster> c_;
  std::filesystem::path deployDir_;
  int webhookPort_ = testing::freeLocalPort();
  int metricsPort_ = testing::freeLocalPort();
  std::unique_ptr<testing::ChildProcess> controller_;
};

TEST_F(CruiseKubeEndToEnd, WebhooksOomRecoveryAndNodeLoadTaintsAgainstARealCluster) {
  ASSERT_FALSE(deployDir_.empty()) << "the source tree is needed for deploy/";
  ASSERT_NO_FATAL_FAILURE(applyWebhookConfigurations());
  ASSERT_NO_FATAL_FAILURE(startController());
  ASSERT_TRUE(c_->waitFor(
      60s,
      [&] {
        return !caBundle("mutatingwebhookconfiguration", "attune-pod-sizing").empty() &&
               !caBundle("validatingwebhookconfiguration", "attune-policy-validation").empty();
      }))
      << "the operator did not patch the caBundles\n"
      << diagnostics();

  // The validating webhook refuses an invalid policy at `kubectl apply`, naming every field.
  c_->write("broken.yaml", std::string(kInvalidPolicy));
  const auto refused = c_->kubectl("apply -f " + c_->path("broken.yaml"), 1);
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_NE(refused.err.find("admission webhook \"attunepolicies.attune.io\" denied the request"),
            std::string::npos)
      << refused.err;
  for (const std::string field :
       {"spec.updateStrategy.type", "spec.cpu.maxChangePercent", "spec.memory.maxAllowed"}) {
    EXPECT_NE(refused.err.find(field), std::string::npos) << field << " in:\n" << refused.err;
  }
  EXPECT_TRUE(c_->getJson("attunepolicy -n apps broken").is_null()) << "the policy was stored";

  // The valid policies go through the same webhook.
  const json optoutBefore = *onlyPod("optout");
  std::string policies;
  for (const std::string name : {"web", "oomer", "guarded", "optout"}) {
    policies += policyYaml(name) + "---\n";
  }
  c_->write("policies.yaml", policies);
  const auto applied = c_->kubectl("apply -f " + c_->path("policies.yaml"));
  ASSERT_EQ(applied.exitCode, 0) << applied.err;

  // The hot node's load goes above its core count: Attune's taint appears.
  const json hogPod = *onlyPod("hog");
  const std::string hotNode = at(hogPod, {"spec", "nodeName"}).get<std::string>();
  EXPECT_TRUE(c_->waitFor(3min, [&] { return nodeTainted(hotNode); })) << diagnostics();
  // The Event follows the taint's write: waited for.
  EXPECT_TRUE(c_->waitFor(20s, [&] { return !events("NodeOverloaded", hotNode).empty(); }))
      << diagnostics();

  // Once `web` has been resized in place its sizing is published: a scale-up creates sized pods.
  const std::string webOriginal = nameOf(*onlyPod("web"));
  ASSERT_TRUE(c_->waitFor(4min, [&] {
    const auto pod = onlyPod("web");
    return pod && at(resourcesOf(*pod), {"requests", "cpu"}) != "1";
  })) << diagnostics();
  ASSERT_EQ(c_->kubectl("scale deployment web -n apps --replicas=3").exitCode, 0);
  ASSERT_TRUE(c_->waitFor(60s, [&] { return items(pods("web")).size() == 3; }));
  for (const json& pod : items(pods("web"))) {
    if (nameOf(pod) == webOriginal) continue;
    const json r = resourcesOf(pod);
    SCOPED_TRACE(nameOf(pod) + ": " + pod.dump());
    EXPECT_EQ(at(pod, {"metadata", "annotations", "attune.io/admission-sized"}), "sized");
    EXPECT_TRUE(at(r, {"limits", "cpu"}).is_null()) << "the CPU limit is removed";
    EXPECT_NE(at(r, {"requests", "cpu"}), "1") << "the CPU request is the peak, not the template";
    EXPECT_GT(bytes(at(r, {"limits", "memory"})), 0);
    EXPECT_LT(bytes(at(r, {"limits", "memory"})), bytes(json("2Gi")));
  }

  // `oomer` is OOM-killed at its limit; within a pass the pod is gone, its memory at the kill
  // recorded on the Deployment, and the replacement starts with at least twice that as limit.
  // The pod is followed every second: the last state seen before it is gone bounds the time
  // from its kill to its eviction.
  std::string oomerPod;
  json lastSeen;
  Time lastSeenAt = clock_.now();
  ASSERT_TRUE(c_->waitFor(8min, [&] {
    const auto pod = onlyPod("oomer");
    if (pod && (oomerPod.empty() || nameOf(*pod) == oomerPod)) {
      oomerPod = nameOf(*pod);
      lastSeen = *pod;
      lastSeenAt = clock_.now();
      return false;
    }
    return !events("Evicted", oomerPod).empty();
  })) << diagnostics();
  const std::vector<json> evicted = events("Evicted", oomerPod);
  ASSERT_FALSE(evicted.empty());
  const auto evictedAt = timeAt(evicted[0]["firstTimestamp"]);
  ASSERT_TRUE(evictedAt.has_value()) << evicted[0].dump();
  // Killed before the last look (its kill in the status), or after it.
  const Time killedBy = timeAt(json(lastOomKill(lastSeen))).value_or(lastSeenAt);
  // Within a pass, counted in passes rather than seconds (on a loaded machine the passes
  // themselves start late, which says nothing about this rule): no pass that began once the kill
  // was in the API (whole-second timestamps and the simulator's 1 s tick: 2 s after it) and
  // ended before the eviction went by without evicting. One is allowed for a pass that synced
  // its cache just before the kill's watch event arrived.
  const std::vector<Pass> all = passes();
  ASSERT_FALSE(all.empty()) << "no pass in the controller's log\n" << diagnostics();
  std::size_t missed = 0;
  for (const Pass& p : all) missed += p.start >= killedBy + 2s && p.end <= *evictedAt ? 1 : 0;
  EXPECT_LE(missed, 1u) << "the OOM-killed pod was not evicted by the pass after its kill ("
                        << formatDuration(*evictedAt - killedBy) << " from the kill at "
                        << formatRfc3339(killedBy) << "): " << lastSeen.dump() << "\n"
                        << c_->kubectl("get events -n apps").out << diagnostics();
  ASSERT_TRUE(c_->waitFor(60s, [&] { return onlyPod("oomer").has_value(); }));
  EXPECT_FALSE(events("Evicted", oomerPod).empty());
  const json deployment = c_->getJson("deployment -n apps oomer");
  const json recorded = at(deployment, {"metadata", "annotations", "attune.io/oom-memory.app"});
  ASSERT_TRUE(recorded.is_string()) << deployment.dump();
  const std::int64_t oomMemory = std::stoll(recorded.get<std::string>());
  EXPECT_GE(oomMemory, bytes(json("256Mi")));
  const json replacement = *onlyPod("oomer");
  EXPECT_EQ(at(replacement, {"metadata", "annotations", "attune.io/admission-sized"}), "sized");
  EXPECT_GE(bytes(at(resourcesOf(replacement), {"limits", "memory"})), 2 * oomMemory)
      << replacement.dump();

  // `guarded` is OOM-killed too, but its PodDisruptionBudget refuses the eviction: it stays.
  const std::string guardedPod = nameOf(*onlyPod("guarded"));
  ASSERT_TRUE(c_->waitFor(3min, [&] { return !events("EvictionBlocked", guardedPod).empty(); }))
      << diagnostics();
  ASSERT_TRUE(onlyPod("guarded").has_value());
  EXPECT_EQ(nameOf(*onlyPod("guarded")), guardedPod);
  const std::string firstKill = lastOomKill(*onlyPod("guarded"));
  // Without the budget, its next kill (inside the 30-minute cooldown) is not evicted either.
  ASSERT_EQ(c_->kubectl("delete pdb -n apps guarded").exitCode, 0);
  std::optional<Time> secondKill;
  ASSERT_TRUE(c_->waitFor(7min, [&] {
    const auto pod = onlyPod("guarded");
    if (!pod || lastOomKill(*pod).empty() || lastOomKill(*pod) == firstKill) return false;
    secondKill = timeAt(json(lastOomKill(*pod)));
    return secondKill.has_value();
  })) << diagnostics();
  // Two passes of the policy after the second kill (its recommendation's time moves on).
  ASSERT_TRUE(c_->waitFor(60s, [&] {
    const auto updated =
        timeAt(at(c_->getJson("attunepolicy -n apps guarded"),
                  {"status", "recommendations", 0, "containers", 0, "lastUpdated"}));
    return updated && *updated >= *secondKill + std::chrono::seconds(2 * kReconcileSeconds);
  })) << diagnostics();
  ASSERT_TRUE(onlyPod("guarded").has_value());
  EXPECT_EQ(nameOf(*onlyPod("guarded")), guardedPod) << "evicted inside the cooldown";
  EXPECT_TRUE(events("Evicted", guardedPod).empty());

  // `optout` was OOM-killed meanwhile and never evicted.
  const auto optout = onlyPod("optout");
  ASSERT_TRUE(optout.has_value());
  EXPECT_EQ(nameOf(*optout), nameOf(optoutBefore));
  EXPECT_FALSE(lastOomKill(*optout).empty()) << optout->dump();
  EXPECT_TRUE(events("Evicted", nameOf(*optout)).empty());
  EXPECT_TRUE(events("EvictionBlocked", nameOf(*optout)).empty());

  // The hog goes away: the load falls and the taint with it.
  ASSERT_EQ(c_->kubectl("scale deployment hog -n apps --replicas=0").exitCode, 0);
  EXPECT_TRUE(c_->waitFor(3min, [&] { return !nodeTainted(hotNode); })) << diagnostics();

  // The pod webhook becomes unreachable (its Service port points nowhere): a new pod is still
  // created, unsized, and the operator reports it.
  const int nowhere = testing::freeLocalPort();
  ASSERT_EQ(c_->kubectl("patch mutatingwebhookconfiguration attune-pod-sizing --type=json -p "
                        "'[{\"op\":\"replace\",\"path\":\"/webhooks/0/clientConfig/service/port\","
                        "\"value\":" +
                        std::to_string(nowhere) + "}]'")
                .exitCode,
            0);
  std::set<std::string> before;
  for (const json& pod : items(pods("web"))) before.insert(nameOf(pod));
  ASSERT_EQ(c_->kubectl("scale deployment web -n apps --replicas=4").exitCode, 0);
  std::string bypassed;
  ASSERT_TRUE(c_->waitFor(60s, [&] {
    for (const json& pod : items(pods("web"))) {
      if (!before.contains(nameOf(pod))) bypassed = nameOf(pod);
    }
    return !bypassed.empty();
  }));
  const json unsized = c_->getJson("pod -n apps " + bypassed);
  EXPECT_TRUE(at(unsized, {"metadata", "annotations", "attune.io/admission-sized"}).is_null());
  EXPECT_EQ(at(resourcesOf(unsized), {"limits", "cpu"}), "2") << "the template's CPU limit";
  EXPECT_TRUE(c_->waitFor(60s, [&] {
    const auto metrics = controllerMetrics();
    return metrics.find(
               "attune_admission_webhook_bypassed_pods_total{namespace=\"apps\","
               "workload=\"web\"} 1") != std::string::npos;
  })) << controllerMetrics();
  // The Event is written by the poll after the pass that counted the pod.
  EXPECT_TRUE(c_->waitFor(10s, [&] {
    for (const json& e : events("AdmissionWebhookBypassed")) {
      if (e.value("message", "").find(bypassed) != std::string::npos) return true;
    }
    return false;
  })) << c_->kubectl("get events -n apps").out;
}

}  // namespace
}  // namespace attune
