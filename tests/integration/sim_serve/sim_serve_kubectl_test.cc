// The real kubectl against `attune sim serve --tls` running the built-in demo: reads (get,
// describe, events, raw watch), writes (apply of an AttunePolicy and of the install bundle deploy/,
// an Event, a pod delete, the resize subresource, HPAs with their status subresource), and the API
// server's errors as kubectl reports them. Each test starts its own server on a free port with a
// fast tick.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/clock.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using testing::runCommand;

constexpr auto kReadyPoll = std::chrono::milliseconds(100);
constexpr int kReadyAttempts = 300;  // 30 s

class SimServeKubectl : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!testing::findOnPath("kubectl"))
      GTEST_SKIP() << "kubectl is not installed (scripts/setup.sh installs it)";
    dir_ = std::make_unique<testing::TempDir>();
    kubeconfig_ = (dir_->path() / "kubeconfig").string();
    const int port = testing::freeLocalPort();
    server_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{ATTUNE_BINARY, "sim", "serve", "--listen",
                                 "127.0.0.1:" + std::to_string(port), "--tls", "--kubeconfig-out",
                                 kubeconfig_, "--tick-interval", "100ms"},
        dir_->path() / "serve.log");
    ASSERT_TRUE(server_->running());
    SystemClock clock;
    for (int i = 0; i < kReadyAttempts; ++i) {
      if (std::filesystem::exists(kubeconfig_) && kubectl("get --raw /readyz").out == "ok") {
        auto version = kubectl("version --client -o json");
        ASSERT_EQ(version.exitCode, 0) << version.err;
        const std::string minor = nlohmann::json::parse(version.out)["clientVersion"]["minor"];
        minor_ = std::stoi(minor);
        return;
      }
      ASSERT_TRUE(server_->running()) << testing::readFile(dir_->path() / "serve.log");
      clock.sleepFor(kReadyPoll);
    }
    FAIL() << "attune sim serve did not become ready";
  }

  testing::CommandRun kubectl(const std::string& args) {
    return runCommand("kubectl --kubeconfig " + kubeconfig_ + " --request-timeout=20s " + args);
  }

  // kubectl apply `args`. Before 1.29 kubectl validates against OpenAPI v2 documents, which the
  // simulator does not serve: validation is then left out.
  testing::CommandRun apply(const std::string& args) {
    return kubectl(std::string("apply") + (minor_ < 29 ? " --validate=false " : " ") + args);
  }

  // Writes `text` to a file in the test's directory and returns its path.
  std::string file(const std::string& name, const std::string& text) {
    const auto path = dir_->path() / name;
    std::ofstream(path) << text;
    return path.string();
  }

  std::string firstPod(const std::string& ns) {
    return kubectl("get pods -n " + ns + " -o jsonpath={.items[0].metadata.name}").out;
  }

  std::unique_ptr<testing::TempDir> dir_;
  std::string kubeconfig_;
  std::unique_ptr<testing::ChildProcess> server_;
  int minor_ = 0;  // kubectl's minor version
};

const char* kPolicy = R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata:
  name: workers
  namespace: data
spec:
  targetRef:
    kind: Deployment
    name: analytics-worker
  cpu:
    minAllowed: 100m
  updateStrategy:
    type: Recommend
)";

TEST_F(SimServeKubectl, GetPodsInAllNamespaces) {
  auto run = kubectl("get pods -A");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("NAMESPACE"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("READY"), std::string::npos);
  EXPECT_NE(run.out.find("analytics-worker-"), std::string::npos);
  EXPECT_NE(run.out.find("Running"), std::string::npos);
}

TEST_F(SimServeKubectl, GetNodes) {
  auto run = kubectl("get nodes");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("general-0"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Ready"), std::string::npos);
  auto json = kubectl("get node general-0 -o jsonpath={.status.allocatable.cpu}");
  ASSERT_EQ(json.exitCode, 0) << json.err;
  EXPECT_FALSE(json.out.empty());
}

TEST_F(SimServeKubectl, TaintAndCordonANode) {
  auto taint = kubectl("taint nodes general-0 dedicated=batch:NoSchedule");
  ASSERT_EQ(taint.exitCode, 0) << taint.err;
  auto taints = kubectl(
      "get node general-0 -o "
      "jsonpath={.spec.taints[*].key}={.spec.taints[*].value}:{.spec.taints[*].effect}");
  EXPECT_EQ(taints.out, "dedicated=batch:NoSchedule");
  auto untaint = kubectl("taint nodes general-0 dedicated-");
  ASSERT_EQ(untaint.exitCode, 0) << untaint.err;
  EXPECT_EQ(kubectl("get node general-0 -o jsonpath={.spec.taints}").out, "");

  ASSERT_EQ(kubectl("cordon general-0").exitCode, 0);
  EXPECT_EQ(kubectl("get node general-0 -o jsonpath={.spec.unschedulable}").out, "true");
  EXPECT_NE(kubectl("get nodes").out.find("SchedulingDisabled"), std::string::npos);
  ASSERT_EQ(kubectl("uncordon general-0").exitCode, 0);
  EXPECT_EQ(kubectl("get node general-0 -o jsonpath={.spec.unschedulable}").out, "");
}

TEST_F(SimServeKubectl, ApplyAnAttunePolicyThenGetItAsYaml) {
  const std::string path = file("policy.yaml", kPolicy);
  auto created = apply("-f " + path);
  ASSERT_EQ(created.exitCode, 0) << created.err;
  EXPECT_NE(created.out.find("attunepolicy.attune.io/workers created"), std::string::npos)
      << created.out;
  auto yaml = kubectl("get attunepolicies -n data workers -o yaml");
  ASSERT_EQ(yaml.exitCode, 0) << yaml.err;
  EXPECT_NE(yaml.out.find("kind: AttunePolicy"), std::string::npos) << yaml.out;
  EXPECT_NE(yaml.out.find("name: analytics-worker"), std::string::npos);
  EXPECT_NE(yaml.out.find("generation: 1"), std::string::npos);

  std::string changed = kPolicy;
  changed.replace(changed.find("100m"), 4, "200m");
  auto configured = apply("-f " + file("policy2.yaml", changed));
  ASSERT_EQ(configured.exitCode, 0) << configured.err;
  EXPECT_NE(configured.out.find("configured"), std::string::npos) << configured.out;
  auto fields =
      kubectl("get ap -n data workers -o jsonpath={.spec.cpu.minAllowed}/{.metadata.generation}");
  EXPECT_EQ(fields.out, "200m/2") << fields.err;
  auto table = kubectl("get attunepolicies -A");
  EXPECT_NE(table.out.find("Recommend"), std::string::npos) << table.out;
}

// The cells of the row of `table` whose first cell is `name`, joined by single spaces; "" when
// there is none.
std::string rowOf(const std::string& table, const std::string& name) {
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::string row;
    for (std::string word; words >> word;) row += (row.empty() ? "" : " ") + word;
    if (row.starts_with(name + " ")) return row;
  }
  return {};
}

const char* kDefaults = R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata:
  name: cluster-defaults
spec:
  metricsSource:
    prometheus:
      address: http://prometheus.monitoring:9090
  updateStrategy:
    type: Recommend
    cooldown: 30m
  costPricing:
    cpuPerCoreHour: "0.031"
---
apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata:
  name: data-defaults
  namespace: data
spec:
  cpu:
    percentile: 90
  updateStrategy:
    type: Auto
)";

TEST_F(SimServeKubectl, ApplyBothDefaultsKindsThenGetThem) {
  auto created = apply("-f " + file("defaults.yaml", kDefaults));
  ASSERT_EQ(created.exitCode, 0) << created.out << created.err;
  EXPECT_NE(created.out.find("attunedefaults.attune.io/cluster-defaults created"),
            std::string::npos)
      << created.out;
  EXPECT_NE(created.out.find("attunenamespacedefaults.attune.io/data-defaults created"),
            std::string::npos)
      << created.out;

  // kubectl get, with the CRDs' printer columns and short names.
  auto cluster = kubectl("get attunedefaults");
  ASSERT_EQ(cluster.exitCode, 0) << cluster.err;
  EXPECT_NE(cluster.out.find("PROMETHEUS"), std::string::npos) << cluster.out;
  EXPECT_EQ(rowOf(cluster.out, "cluster-defaults")
                .rfind("cluster-defaults http://prometheus.monitoring:9090 Recommend", 0),
            0u)
      << cluster.out;
  auto namespaced = kubectl("get and -A");
  ASSERT_EQ(namespaced.exitCode, 0) << namespaced.err;
  EXPECT_EQ(rowOf(namespaced.out, "data").rfind("data data-defaults Auto", 0), 0u)
      << namespaced.out;
  auto fields = kubectl(
      "get ad cluster-defaults -o "
      "jsonpath={.kind}/{.spec.updateStrategy.cooldown}/{.spec.costPricing.cpuPerCoreHour}");
  EXPECT_EQ(fields.out, "AttuneDefaults/30m/0.031") << fields.err;

  // A change is applied in place; the spec's generation moves.
  std::string changed = kDefaults;
  changed.replace(changed.find("percentile: 90"), 14, "percentile: 99");
  auto configured = apply("-f " + file("defaults2.yaml", changed));
  ASSERT_EQ(configured.exitCode, 0) << configured.err;
  EXPECT_NE(configured.out.find("attunenamespacedefaults.attune.io/data-defaults configured"),
            std::string::npos)
      << configured.out;
  auto percentile = kubectl(
      "get attunenamespacedefaults -n data data-defaults -o "
      "jsonpath={.spec.cpu.percentile}/{.metadata.generation}");
  EXPECT_EQ(percentile.out, "99/2") << percentile.err;

  // Invalid values are refused with the field path; policy-only fields are unknown.
  std::string invalid = kDefaults;
  invalid.replace(invalid.find("percentile: 90"), 14, "percentile: 42");
  auto refused = apply("-f " + file("defaults3.yaml", invalid));
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_NE(refused.err.find("spec.cpu.percentile"), std::string::npos) << refused.err;

  // `attune policy validate --effective --kubeconfig` reads both tiers from the cluster.
  const std::string policy = file("workers.yaml", kPolicy);
  auto effective =
      runCommand(std::string(ATTUNE_BINARY) + " policy validate --effective --kubeconfig " +
                 kubeconfig_ + " " + policy);
  ASSERT_EQ(effective.exitCode, 0) << effective.out << effective.err;
  EXPECT_EQ(effective.out.rfind("# effective: AttuneNamespaceDefaults data/data-defaults, "
                                "AttuneDefaults cluster-defaults\n",
                                0),
            0u)
      << effective.out;
  EXPECT_NE(effective.out.find("address: http://prometheus.monitoring:9090"), std::string::npos)
      << effective.out;
  EXPECT_NE(effective.out.find("    percentile: 99\n    overhead: \"20\""), std::string::npos)
      << effective.out;  // cpu.percentile from the namespace's defaults
  EXPECT_NE(effective.out.find("    cooldown: 30m\n"), std::string::npos) << effective.out;
  // The policy's own type wins over the namespace's Auto.
  EXPECT_NE(effective.out.find("    type: Recommend\n"), std::string::npos) << effective.out;

  auto deleted = kubectl("delete attunedefaults cluster-defaults");
  ASSERT_EQ(deleted.exitCode, 0) << deleted.err;
  EXPECT_NE(kubectl("get attunedefaults cluster-defaults").exitCode, 0);
}

// An HPA on `target` in namespace data, cpu utilization at 60 %.
std::string hpaYaml(const std::string& name, const std::string& target) {
  return "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: " + name +
         "\n  namespace: data\nspec:\n  scaleTargetRef:\n    apiVersion: apps/v1\n"
         "    kind: Deployment\n    name: " +
         target +
         "\n  minReplicas: 1\n  maxReplicas: 6\n  metrics:\n  - type: Resource\n    resource:\n"
         "      name: cpu\n      target:\n        type: Utilization\n        averageUtilization: "
         "60\n";
}

TEST_F(SimServeKubectl, HpasAreCreatedAnnotatedPatchedAndDeleted) {
  auto created = apply("-f " + file("hpa.yaml", hpaYaml("worker", "analytics-worker")));
  ASSERT_EQ(created.exitCode, 0) << created.err;
  EXPECT_NE(created.out.find("horizontalpodautoscaler.autoscaling/worker created"),
            std::string::npos)
      << created.out;
  EXPECT_EQ(kubectl("get hpa -n data worker -o jsonpath={.metadata.generation}").out, "1");
  // An HPA whose target does not exist never gets metrics.
  ASSERT_EQ(apply("-f " + file("lost.yaml", hpaYaml("lost", "nope"))).exitCode, 0);

  auto table = kubectl("get hpa -n data");
  ASSERT_EQ(table.exitCode, 0) << table.err;
  EXPECT_EQ(table.out.substr(0, table.out.find('\n')).find("NAME"), 0u) << table.out;
  for (const char* column : {"REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"}) {
    EXPECT_NE(table.out.find(column), std::string::npos) << column << "\n" << table.out;
  }
  EXPECT_NE(rowOf(table.out, "lost").find("lost Deployment/nope cpu: <unknown>/60% 1 6 0 "),
            std::string::npos)
      << table.out;
  // The simulated HPA controller fills the status within a few syncs (100 ms ticks).
  SystemClock clock;
  std::string worker;
  for (int i = 0; i < kReadyAttempts; ++i) {
    worker = rowOf(kubectl("get hpa -n data").out, "worker");
    if (worker.find("<unknown>") == std::string::npos && !worker.empty()) break;
    clock.sleepFor(kReadyPoll);
  }
  EXPECT_NE(worker.find("Deployment/analytics-worker"), std::string::npos) << worker;
  EXPECT_NE(worker.find("%/60%"), std::string::npos) << worker;
  EXPECT_EQ(worker.find("<unknown>"), std::string::npos) << worker;

  auto annotated = kubectl("annotate hpa -n data worker attune.io/auto-tune=true");
  ASSERT_EQ(annotated.exitCode, 0) << annotated.err;
  EXPECT_EQ(kubectl("get hpa -n data worker -o 'jsonpath={.metadata.annotations.attune\\.io/"
                    "auto-tune}/{.metadata.generation}'")
                .out,
            "true/1");

  if (minor_ >= 24) {  // --subresource arrived in kubectl 1.24
    auto patched = kubectl(
        "patch hpa -n data lost --subresource=status --type=merge "
        "-p '{\"status\":{\"currentReplicas\":3},\"spec\":{\"maxReplicas\":9}}'");
    ASSERT_EQ(patched.exitCode, 0) << patched.err;
    EXPECT_EQ(kubectl("get hpa -n data lost -o jsonpath={.status.currentReplicas}/"
                      "{.spec.maxReplicas}")
                  .out,
              "3/6")
        << "the status subresource writes the status only";
  }

  auto deleted = kubectl("delete hpa -n data worker");
  ASSERT_EQ(deleted.exitCode, 0) << deleted.err;
  EXPECT_NE(deleted.out.find("deleted"), std::string::npos) << deleted.out;
  auto gone = kubectl("get hpa -n data worker");
  EXPECT_NE(gone.exitCode, 0);
  EXPECT_NE(gone.err.find("NotFound"), std::string::npos) << gone.err;
}

TEST_F(SimServeKubectl, DescribePod) {
  const std::string pod = firstPod("data");
  ASSERT_FALSE(pod.empty());
  auto run = kubectl("describe pod -n data " + pod);
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find(pod), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Namespace:"), std::string::npos);
  EXPECT_NE(run.out.find("Containers:"), std::string::npos);
  EXPECT_NE(run.out.find("QoS Class:"), std::string::npos);
  EXPECT_NE(run.out.find("Controlled By:  ReplicaSet/"), std::string::npos);
}

TEST_F(SimServeKubectl, CreateAnEventThenGetEvents) {
  const std::string pod = firstPod("data");
  const std::string uid = kubectl("get pod -n data " + pod + " -o jsonpath={.metadata.uid}").out;
  const std::string event =
      "apiVersion: v1\nkind: Event\nmetadata:\n  name: resized-1\n"
      "  namespace: data\ninvolvedObject:\n  kind: Pod\n  namespace: data\n"
      "  name: " +
      pod + "\n  uid: " + uid +
      "\nreason: AttuneResized\nmessage: cpu 1 -> 800m\n"
      "type: Normal\nsource:\n  component: attune\n";
  auto created = apply("-f " + file("event.yaml", event));
  ASSERT_EQ(created.exitCode, 0) << created.err;
  auto run = kubectl("get events -n data");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_NE(run.out.find("AttuneResized"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("pod/" + pod), std::string::npos);
  auto described = kubectl("describe pod -n data " + pod);
  EXPECT_NE(described.out.find("AttuneResized"), std::string::npos) << described.out;
}

TEST_F(SimServeKubectl, PatchPodResizeSubresource) {
  // --subresource=resize is accepted from kubectl 1.32 on.
  if (minor_ < 32) {
    GTEST_SKIP() << "kubectl 1." << minor_ << " has no --subresource=resize (needs 1.32 or later)";
  }
  const std::string pod = firstPod("data");
  auto run = kubectl("patch pod -n data " + pod +
                     " --subresource resize -p "
                     "'{\"spec\":{\"containers\":[{\"name\":\"worker\",\"resources\":"
                     "{\"requests\":{\"cpu\":\"800m\"}}}]}}'");
  ASSERT_EQ(run.exitCode, 0) << run.err;
  auto cpu = kubectl("get pod -n data " + pod +
                     " -o jsonpath={.spec.containers[0].resources.requests.cpu}");
  EXPECT_EQ(cpu.out, "800m");
  // The API server's validation comes back as a 422 kubectl prints.
  auto invalid = kubectl("patch pod -n data " + pod +
                         " --subresource resize -p "
                         "'{\"spec\":{\"containers\":[{\"name\":\"nope\",\"resources\":"
                         "{\"requests\":{\"cpu\":\"1\"}}}]}}'");
  EXPECT_NE(invalid.exitCode, 0);
  EXPECT_NE(invalid.err.find("is invalid"), std::string::npos) << invalid.err;
}

// The resize subresource goes through admission as an UPDATE of pods/resize: a validating
// webhook registered for it that cannot be reached, with failurePolicy Fail (a policy engine
// that is down), refuses every resize; webhooks for pods alone are not called for it.
TEST_F(SimServeKubectl, AResizeGoesThroughTheWebhooksRegisteredForPodsResize) {
  if (minor_ < 32) {
    GTEST_SKIP() << "kubectl 1." << minor_ << " has no --subresource=resize (needs 1.32 or later)";
  }
  const std::string pod = firstPod("data");
  const auto resize = [&](const std::string& cpu) {
    return kubectl("patch pod -n data " + pod +
                   " --subresource resize -p "
                   "'{\"spec\":{\"containers\":[{\"name\":\"worker\",\"resources\":"
                   "{\"requests\":{\"cpu\":\"" +
                   cpu + "\"}}}]}}'");
  };
  const std::string unreachable = "https://127.0.0.1:" + std::to_string(testing::freeLocalPort());
  const auto webhook = [&](const std::string& name, const std::string& resources) {
    return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\n"
           "metadata: {name: " +
           name +
           "}\n"
           "webhooks:\n"
           "  - name: " +
           name +
           ".example.com\n"
           "    clientConfig: {url: \"" +
           unreachable +
           "/validate\"}\n"
           "    rules: [{operations: [UPDATE, CREATE], apiGroups: [\"\"], apiVersions: [v1], "
           "resources: [" +
           resources +
           "]}]\n"
           "    failurePolicy: Fail\n"
           "    sideEffects: None\n"
           "    admissionReviewVersions: [v1]\n"
           "    timeoutSeconds: 2\n";
  };
  // Registered for pods only: not called for the resize subresource.
  ASSERT_EQ(apply("-f " + file("pods-only.yaml", webhook("pods-only", "pods"))).exitCode, 0);
  const auto allowed = resize("700m");
  EXPECT_EQ(allowed.exitCode, 0) << allowed.err;
  EXPECT_EQ(kubectl("delete validatingwebhookconfiguration pods-only").exitCode, 0);

  ASSERT_EQ(apply("-f " + file("resize-gate.yaml", webhook("resize-gate", "pods/resize"))).exitCode,
            0);
  const auto refused = resize("600m");
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_NE(refused.err.find("failed calling webhook \"resize-gate.example.com\""),
            std::string::npos)
      << refused.err;
  EXPECT_EQ(kubectl("get pod -n data " + pod +
                    " -o jsonpath={.spec.containers[0].resources.requests.cpu}")
                .out,
            "700m");
  EXPECT_EQ(kubectl("delete validatingwebhookconfiguration resize-gate").exitCode, 0);
  EXPECT_EQ(resize("650m").exitCode, 0);
}

TEST_F(SimServeKubectl, ApplyAPodDisruptionBudgetThenAnEvictionItRefusesIs429) {
  constexpr const char* kBudget = R"(apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: frontend
  namespace: shop
spec:
  minAvailable: "100%"
  selector:
    matchLabels:
      app.kubernetes.io/name: frontend
)";
  auto created = apply("-f " + file("pdb.yaml", kBudget));
  ASSERT_EQ(created.exitCode, 0) << created.err;
  EXPECT_NE(created.out.find("poddisruptionbudget.policy/frontend created"), std::string::npos)
      << created.out;
  auto again = apply("-f " + file("pdb.yaml", kBudget));
  ASSERT_EQ(again.exitCode, 0) << again.err;

  auto table = kubectl("get pdb -n shop");
  ASSERT_EQ(table.exitCode, 0) << table.err;
  for (const char* column : {"NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS",
                             "AGE", "frontend", "100%", "N/A", "catalog"}) {
    EXPECT_NE(table.out.find(column), std::string::npos) << column << "\n" << table.out;
  }

  const std::string pod =
      kubectl(
          "get pods -n shop -l app.kubernetes.io/name=frontend "
          "--field-selector=status.phase=Running -o jsonpath={.items[0].metadata.name}")
          .out;
  ASSERT_FALSE(pod.empty());
  const std::string eviction =
      file("eviction.json", R"({"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":")" +
                                pod + R"(","namespace":"shop"}})");
  auto refused =
      kubectl("create --raw /api/v1/namespaces/shop/pods/" + pod + "/eviction -f " + eviction);
  EXPECT_NE(refused.exitCode, 0);
  EXPECT_NE(refused.err.find("TooManyRequests"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("disruption budget"), std::string::npos) << refused.err;
  EXPECT_EQ(kubectl("get pod -n shop " + pod).exitCode, 0);
}

// The install bundle, as docs/install.md installs it: `kubectl apply -k deploy/`.
TEST_F(SimServeKubectl, ApplyTheInstallBundle) {
  const std::string deploy = (testing::sourceDir() / "deploy").string();
  auto run = apply("-k " + deploy);
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("namespace/attune-system created"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("customresourcedefinition.apiextensions.k8s.io/attunepolicies.attune.io"),
            std::string::npos);
  for (const char* crd : {"attunedefaults.attune.io", "attunenamespacedefaults.attune.io"}) {
    EXPECT_NE(run.out.find(std::string("customresourcedefinition.apiextensions.k8s.io/") + crd),
              std::string::npos)
        << crd;
  }
  EXPECT_NE(run.out.find("poddisruptionbudget.policy/attune-controller created"), std::string::npos)
      << run.out;
  auto again = apply("-k " + deploy);
  ASSERT_EQ(again.exitCode, 0) << again.err;
  EXPECT_EQ(again.out.find("created"), std::string::npos) << again.out;
  auto deployment = kubectl(
      "get deployment -n attune-system attune-controller -o "
      "jsonpath={.spec.template.spec.serviceAccountName}");
  EXPECT_EQ(deployment.out, "attune-controller") << deployment.err;
  // Our own image (scripts/build-image.sh), run as its non-root user with a read-only root.
  auto pod = kubectl(
      "get deployment -n attune-system attune-controller -o "
      "jsonpath={.spec.template.spec.containers[0].image}/"
      "{.spec.template.spec.securityContext.runAsUser}/"
      "{.spec.template.spec.containers[0].securityContext.readOnlyRootFilesystem}/"
      "{.spec.template.spec.securityContext.seccompProfile.type}");
  EXPECT_EQ(pod.out, "attune:0.1.0/65532/true/RuntimeDefault") << pod.err;
  auto role = kubectl("get clusterrole attune-controller -o jsonpath={.rules[1].resources[0]}");
  EXPECT_EQ(role.out, "pods/resize") << role.err;
  auto pdb = kubectl("get pdb -n attune-system attune-controller -o jsonpath={.spec.minAvailable}");
  EXPECT_EQ(pdb.out, "1") << pdb.err;
}

// The optional components and the namespaced variant render with the real kubectl (kustomize);
// their kinds (prometheus-operator's, NetworkPolicy) are not served by the simulator.
TEST_F(SimServeKubectl, TheBundlesVariantsRender) {
  const auto deploy = testing::sourceDir() / "deploy";
  auto full = runCommand("kubectl kustomize " + (deploy / "overlays/full").string());
  ASSERT_EQ(full.exitCode, 0) << full.err;
  for (const char* kind : {"kind: ServiceMonitor", "kind: PrometheusRule", "kind: NetworkPolicy",
                           "kind: PodDisruptionBudget", "kind: CustomResourceDefinition"}) {
    EXPECT_NE(full.out.find(kind), std::string::npos) << kind;
  }
  auto namespaced = runCommand("kubectl kustomize " + (deploy / "overlays/namespaced").string());
  ASSERT_EQ(namespaced.exitCode, 0) << namespaced.err;
  EXPECT_NE(namespaced.out.find("--watch-namespace=apps"), std::string::npos);
  // No cluster-wide rule on pods: the only ClusterRole is the small cluster-scoped one.
  EXPECT_EQ(namespaced.out.find("name: attune-controller\nrules"), std::string::npos);
  EXPECT_NE(namespaced.out.find("name: attune-controller-cluster-scoped"), std::string::npos);
  // Top-level kinds start a line (a binding's roleRef says "  kind: ClusterRole").
  const std::size_t clusterRole = namespaced.out.find("\nkind: ClusterRole\n");
  ASSERT_NE(clusterRole, std::string::npos);
  EXPECT_EQ(namespaced.out.find("\nkind: ClusterRole\n", clusterRole + 1), std::string::npos)
      << "more than one ClusterRole in the namespaced variant";
  const std::string clusterScoped =
      namespaced.out.substr(clusterRole, namespaced.out.find("---", clusterRole) - clusterRole);
  EXPECT_EQ(clusterScoped.find("pods"), std::string::npos) << clusterScoped;
}

// The sharded variant (docs/sharding.md) renders and applies: a StatefulSet of 3 shards x 2
// replicas in place of the Deployment, each replica's shard from its ordinal, the base's RBAC,
// and a disruption budget that keeps a replica of every shard.
TEST_F(SimServeKubectl, TheShardedVariantRendersAndApplies) {
  const auto sharded = testing::sourceDir() / "deploy/overlays/sharded";
  auto rendered = runCommand("kubectl kustomize " + sharded.string());
  ASSERT_EQ(rendered.exitCode, 0) << rendered.err;
  EXPECT_EQ(rendered.out.find("\nkind: Deployment\n"), std::string::npos) << "a Deployment left";
  for (const char* want : {"\nkind: StatefulSet\n", "- --total-shards=3", "- --shard-from-pod-name",
                           "fieldPath: metadata.name", "clusterIP: None", "maxUnavailable: 1"}) {
    EXPECT_NE(rendered.out.find(want), std::string::npos) << want;
  }
  // RBAC is the base's, unchanged.
  auto base = runCommand("kubectl kustomize " + (testing::sourceDir() / "deploy/base").string());
  ASSERT_EQ(base.exitCode, 0) << base.err;
  const auto rbac = [](const std::string& all) {
    std::string out;
    for (std::size_t at = all.find("apiVersion: rbac.authorization.k8s.io/v1");
         at != std::string::npos;
         at = all.find("apiVersion: rbac.authorization.k8s.io/v1", at + 1)) {
      out += all.substr(at, all.find("---", at) - at);
    }
    return out;
  };
  EXPECT_FALSE(rbac(base.out).empty());
  EXPECT_EQ(rbac(rendered.out), rbac(base.out));

  auto dryRun = apply("--dry-run=client -k " + sharded.string());
  ASSERT_EQ(dryRun.exitCode, 0) << dryRun.out << dryRun.err;
  EXPECT_NE(dryRun.out.find("statefulset.apps/attune-controller created (dry run)"),
            std::string::npos)
      << dryRun.out;
  auto applied = apply("-k " + sharded.string());
  ASSERT_EQ(applied.exitCode, 0) << applied.out << applied.err;
  auto replicas = kubectl(
      "get statefulset -n attune-system attune-controller -o "
      "jsonpath={.spec.replicas}/{.spec.serviceName}/{.spec.podManagementPolicy}");
  EXPECT_EQ(replicas.out, "6/attune-controller-shards/Parallel") << replicas.err;
}

TEST_F(SimServeKubectl, TheDeployDirectoryRegistersTheWebhooks) {
  auto run = apply("-k " + (testing::sourceDir() / "deploy").string());
  ASSERT_EQ(run.exitCode, 0) << run.out << run.err;
  auto mutating = kubectl(
      "get mutatingwebhookconfiguration attune-pod-sizing -o "
      "jsonpath={.webhooks[0].failurePolicy}/{.webhooks[0].timeoutSeconds}/"
      "{.webhooks[0].clientConfig.service.path}");
  EXPECT_EQ(mutating.out, "Ignore/3//mutate-pods") << mutating.err;
  auto validating = kubectl(
      "get validatingwebhookconfiguration attune-policy-validation -o "
      "jsonpath={.webhooks[0].rules[0].operations}");
  EXPECT_EQ(validating.out, R"(["CREATE","UPDATE"])") << validating.err;
  // The operator's caBundle write, as HttpClusterApi::patchWebhookCaBundles sends it.
  auto patched = kubectl(
      "patch mutatingwebhookconfiguration attune-pod-sizing --type=json -p "
      "'[{\"op\":\"test\",\"path\":\"/webhooks/0/name\",\"value\":\"pods.attune.io\"},"
      "{\"op\":\"add\",\"path\":\"/webhooks/0/clientConfig/caBundle\",\"value\":\"Ag==\"}]'");
  ASSERT_EQ(patched.exitCode, 0) << patched.err;
  auto bundle = kubectl(
      "get mutatingwebhookconfiguration attune-pod-sizing -o "
      "jsonpath={.webhooks[0].clientConfig.caBundle}");
  EXPECT_EQ(bundle.out, "Ag==");
}

TEST_F(SimServeKubectl, RawWatchFromAResourceVersionSeesADeletion) {
  // The list's own resourceVersion (kubectl get -o jsonpath shows a client-side List).
  auto list = kubectl("get --raw /api/v1/namespaces/data/pods");
  ASSERT_EQ(list.exitCode, 0) << list.err;
  const std::string rv = nlohmann::json::parse(list.out)["metadata"]["resourceVersion"];
  const std::string pod = firstPod("data");
  auto deleted = kubectl("delete pod -n data " + pod + " --wait=false");
  ASSERT_EQ(deleted.exitCode, 0) << deleted.err;
  auto watch = kubectl(
      "get --raw '/api/v1/namespaces/data/pods?watch=true&timeoutSeconds=1"
      "&resourceVersion=" +
      rv + "'");
  ASSERT_EQ(watch.exitCode, 0) << watch.err;
  EXPECT_NE(watch.out.find("{\"type\":\"DELETED\",\"object\":{\"apiVersion\":\"v1\",\"kind\":"
                           "\"Pod\""),
            std::string::npos)
      << watch.out.substr(0, 2000);
  EXPECT_NE(watch.out.find("\"name\":\"" + pod + "\""), std::string::npos);
}

TEST_F(SimServeKubectl, WatchesDeploymentsAndAttunePolicies) {
  auto created = apply("-f " + file("policy.yaml", kPolicy));
  ASSERT_EQ(created.exitCode, 0) << created.err;
  // kubectl lists, then watches until `timeout` ends it (exit 124); a refused watch makes it
  // fail at once with the server's message.
  auto policies = runCommand("timeout 3 kubectl --kubeconfig " + kubeconfig_ +
                             " get attunepolicies -A -w --output-watch-events");
  EXPECT_EQ(policies.exitCode, 124) << policies.err;
  EXPECT_EQ(policies.err, "");
  EXPECT_NE(policies.out.find("ADDED"), std::string::npos) << policies.out;
  EXPECT_NE(policies.out.find("workers"), std::string::npos) << policies.out;
  auto deployments =
      runCommand("timeout 3 kubectl --kubeconfig " + kubeconfig_ + " get deployments -A -w");
  EXPECT_EQ(deployments.exitCode, 124) << deployments.err;
  EXPECT_EQ(deployments.err, "");
  EXPECT_NE(deployments.out.find("analytics-worker"), std::string::npos) << deployments.out;
}

TEST_F(SimServeKubectl, GetInChunksListsEveryNode) {
  auto chunked = kubectl("get nodes --chunk-size=3 --no-headers -o name");
  ASSERT_EQ(chunked.exitCode, 0) << chunked.err;
  EXPECT_EQ(std::count(chunked.out.begin(), chunked.out.end(), '\n'), 20) << chunked.out;
  auto raw = kubectl("get --raw '/api/v1/nodes?limit=3'");
  ASSERT_EQ(raw.exitCode, 0) << raw.err;
  const auto page = nlohmann::json::parse(raw.out);
  EXPECT_EQ(page["items"].size(), 3u);
  EXPECT_EQ(page["metadata"]["remainingItemCount"], 17);
  EXPECT_FALSE(page["metadata"]["continue"].get<std::string>().empty());
}

TEST_F(SimServeKubectl, ErrorsAreStatusObjects) {
  auto missing = kubectl("get pod -n data nope");
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_NE(missing.err.find("pods \"nope\" not found"), std::string::npos) << missing.err;
  auto created = apply("-f " + file("p.yaml", kPolicy));
  ASSERT_EQ(created.exitCode, 0) << created.err;
  auto again = kubectl("create -f " + file("p.yaml", kPolicy));
  EXPECT_NE(again.exitCode, 0);
  EXPECT_NE(again.err.find("already exists"), std::string::npos) << again.err;
  auto unauthorized = kubectl("--token=wrong get pods -A");
  EXPECT_NE(unauthorized.exitCode, 0);
  EXPECT_NE(unauthorized.err.find("Unauthorized"), std::string::npos) << unauthorized.err;
}

}  // namespace
}  // namespace attune
