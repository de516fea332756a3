// kube::HttpClusterApi against `attune sim serve --tls` running the built-in demo: the kubeconfig
// the server writes is loaded with kube::loadKubeconfig and every call goes through the real
// HTTPS stack (libcurl, TLS with the server's generated CA, bearer token). One server serves the
// whole suite; it ticks once an hour so the cluster only changes through the tests' own writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/clock.h"
#include "kube/http_cluster_api.h"
#include "kube/kubeconfig.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

using namespace attune::literals;

constexpr auto kReadyPoll = std::chrono::milliseconds(100);
constexpr int kReadyAttempts = 300;  // 30 s
constexpr int kWatchAttempts = 30;   // each waits up to kWatchWait for the first event
constexpr auto kWatchWait = std::chrono::seconds(1);

class SimServeKubeClient : public ::testing::Test {
 protected:
  // Starts the server, waits for its kubeconfig and for a successful listNodes through it.
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    const auto kubeconfig = dir_->path() / "kubeconfig";
    const int port = testing::freeLocalPort();
    server_ = new testing::ChildProcess(
        std::vector<std::string>{ATTUNE_BINARY, "sim", "serve", "--listen",
                                 "127.0.0.1:" + std::to_string(port), "--tls", "--kubeconfig-out",
                                 kubeconfig.string(), "--tick-interval", "1h"},
        dir_->path() / "serve.log");
    for (int i = 0; i < kReadyAttempts && server_->running(); ++i) {
      if (std::filesystem::exists(kubeconfig)) {
        auto config = kube::loadKubeconfig(kubeconfig);
        if (config) {
          kube::HttpClusterApiOptions options;
          options.watchWait = kWatchWait;
          auto api = std::make_unique<kube::HttpClusterApi>(*config, *clock_, options);
          if (api->listNodes({})) {
            config_ = new kube::ClusterConfig(*config);
            api_ = api.release();
            return;
          }
        }
      }
      clock_->sleepFor(kReadyPoll);
    }
  }

  static void TearDownTestSuite() {
    delete api_;
    api_ = nullptr;
    delete config_;
    config_ = nullptr;
    delete server_;
    server_ = nullptr;
    delete dir_;
    dir_ = nullptr;
  }

  void SetUp() override {
    ASSERT_NE(api_, nullptr) << "attune sim serve did not become ready:\n"
                             << testing::readFile(dir_->path() / "serve.log");
  }

  kube::HttpClusterApi& api() { return *api_; }

  // The first pod (in list order) that is Burstable and whose first container has a cpu
  // request and a memory request.
  std::optional<api::Pod> burstablePod() {
    auto pods = api().listPods({});
    if (!pods) return std::nullopt;
    for (const auto& pod : pods->items) {
      if (pod.status.qosClass != "Burstable" || pod.spec.containers.empty()) continue;
      const auto& requests = pod.spec.containers[0].resources.requests;
      if (requests.cpu && requests.memory) return pod;
    }
    return std::nullopt;
  }

  static inline SystemClock* clock_ = new SystemClock();
  static inline testing::TempDir* dir_ = nullptr;
  static inline testing::ChildProcess* server_ = nullptr;
  static inline kube::ClusterConfig* config_ = nullptr;
  static inline kube::HttpClusterApi* api_ = nullptr;
};

TEST_F(SimServeKubeClient, KubeconfigPointsAtTheServerOverHttps) {
  EXPECT_EQ(config_->server.rfind("https://127.0.0.1:", 0), 0u) << config_->server;
  EXPECT_EQ(config_->context, "attune-sim");
}

TEST_F(SimServeKubeClient, ListsTheDemosPodsAndNodes) {
  auto pods = api().listPods({});
  ASSERT_TRUE(pods) << pods.error().toString();
  EXPECT_GT(pods->items.size(), 100u);
  EXPECT_FALSE(pods->resourceVersion.empty());
  EXPECT_TRUE(
      std::is_sorted(pods->items.begin(), pods->items.end(), [](const auto& a, const auto& b) {
        return std::tie(a.metadata.namespace_, a.metadata.name) <
               std::tie(b.metadata.namespace_, b.metadata.name);
      }));
  auto nodes = api().listNodes({});
  ASSERT_TRUE(nodes) << nodes.error().toString();
  EXPECT_EQ(nodes->items.size(), 20u);
}

// The demo's budget on shop/catalog (maxUnavailable 1) was computed at the first tick, before
// any catalog pod was Ready: it allows no disruption, so evicting a running catalog pod is the
// API server's 429, which the client reports as kDisruptionBudget without retrying.
TEST_F(SimServeKubeClient, ListsTheDemosBudgetAndAnEvictionItRefuses) {
  auto budgets = api().listPodDisruptionBudgets({.namespace_ = "shop"});
  ASSERT_TRUE(budgets) << budgets.error().toString();
  ASSERT_EQ(budgets->items.size(), 1u);
  const api::PodDisruptionBudget& catalog = budgets->items[0];
  EXPECT_EQ(catalog.metadata.name, "catalog");
  EXPECT_EQ(catalog.spec.maxUnavailable, api::IntOrString::ofInt(1));
  EXPECT_EQ(catalog.status.observedGeneration, catalog.metadata.generation);
  EXPECT_EQ(catalog.status.expectedPods, 10);
  ASSERT_EQ(catalog.status.disruptionsAllowed, 0);

  api::ListOptions options{.namespace_ = "shop"};
  options.labelSelector.matchLabels["app.kubernetes.io/name"] = "catalog";
  auto pods = api().listPods(options);
  ASSERT_TRUE(pods) << pods.error().toString();
  auto running = std::find_if(pods->items.begin(), pods->items.end(),
                              [](const api::Pod& p) { return p.status.phase == "Running"; });
  ASSERT_NE(running, pods->items.end());
  api::Eviction eviction;
  eviction.metadata = running->metadata;
  auto refused = api().evictPod(eviction);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kDisruptionBudget) << refused.error().toString();
  EXPECT_EQ(api::disruptionBudgetCause(refused.error()),
            "The disruption budget catalog needs 9 healthy pods and has " +
                std::to_string(catalog.status.currentHealthy) + " currently");
  EXPECT_TRUE(api().getPod("shop", running->metadata.name));
}

TEST_F(SimServeKubeClient, ReadsTheServersKubernetesVersion) {
  // The built-in demo runs the simulator's default version.
  auto version = api().getServerVersion();
  ASSERT_TRUE(version) << version.error().toString();
  EXPECT_EQ(version->gitVersion, "v1.34.0");
  EXPECT_TRUE(version->atLeast(1, 34));
}

TEST_F(SimServeKubeClient, GetsOnePodAndReportsAMissingOne) {
  auto pods = api().listPods({});
  ASSERT_TRUE(pods) << pods.error().toString();
  ASSERT_FALSE(pods->items.empty());
  const auto& listed = pods->items.front();
  auto pod = api().getPod(listed.metadata.namespace_, listed.metadata.name);
  ASSERT_TRUE(pod) << pod.error().toString();
  EXPECT_EQ(pod->metadata.name, listed.metadata.name);
  EXPECT_EQ(pod->metadata.uid, listed.metadata.uid);
  EXPECT_EQ(pod->spec.containers.size(), listed.spec.containers.size());
  auto missing = api().getPod(listed.metadata.namespace_, "no-such-pod");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST_F(SimServeKubeClient, PatchAnnotationsChecksTheResourceVersionAndIsWatched) {
  auto pods = api().listPods({});
  ASSERT_TRUE(pods) << pods.error().toString();
  ASSERT_GT(pods->items.size(), 1u);
  const auto& target = pods->items[1];
  const std::string& ns = target.metadata.namespace_;
  const std::string& name = target.metadata.name;

  // A resourceVersion older than the pod's current one.
  const api::AnnotationChanges changes{{"attune.io/probe", "1"}};
  auto stale = api().patchPodAnnotations(ns, name, changes, "1");
  ASSERT_FALSE(stale);
  EXPECT_EQ(stale.error().code, ErrorCode::kConflict) << stale.error().toString();

  auto patched = api().patchPodAnnotations(ns, name, changes, target.metadata.resourceVersion);
  ASSERT_TRUE(patched) << patched.error().toString();
  EXPECT_EQ(patched->annotations.at("attune.io/probe"), "1");
  EXPECT_NE(patched->resourceVersion, target.metadata.resourceVersion);
  auto reread = api().getPod(ns, name);
  ASSERT_TRUE(reread) << reread.error().toString();
  EXPECT_EQ(reread->metadata.annotations.at("attune.io/probe"), "1");

  // The watch from the list's resourceVersion delivers the patch as MODIFIED.
  std::string resourceVersion = pods->resourceVersion;
  bool seen = false;
  for (int i = 0; i < kWatchAttempts && !seen; ++i) {
    auto batch = api().watchPods({}, resourceVersion);
    ASSERT_TRUE(batch) << batch.error().toString();
    for (const auto& event : batch->events) {
      seen =
          seen || (event.type == api::WatchEventType::kModified &&
                   event.object.metadata.namespace_ == ns && event.object.metadata.name == name &&
                   event.object.metadata.annotations.contains("attune.io/probe"));
    }
    resourceVersion = batch->resourceVersion;
  }
  EXPECT_TRUE(seen) << "no MODIFIED event for " << ns << "/" << name;
}

TEST_F(SimServeKubeClient, ResizesABurstablePodsCpuRequest) {
  auto pod = burstablePod();
  ASSERT_TRUE(pod) << "the demo has no Burstable pod with cpu and memory requests";
  const auto& container = pod->spec.containers[0];
  const Millicores cpu = container.resources.requests.cpu->toMillicores();
  const auto& limit = container.resources.limits.cpu;
  const Millicores wanted =
      (limit && limit->toMillicores() <= cpu + 10_m) ? cpu - 10_m : cpu + 10_m;
  ASSERT_GT(wanted, 0_m);

  api::ContainerResize resize{container.name, container.resources};
  resize.resources.requests.cpu = Quantity::fromMillicores(wanted);
  auto resized = api().resizePod(pod->metadata.namespace_, pod->metadata.name,
                                 std::span<const api::ContainerResize>(&resize, 1));
  ASSERT_TRUE(resized) << resized.error().toString();
  ASSERT_FALSE(resized->spec.containers.empty());
  ASSERT_TRUE(resized->spec.containers[0].resources.requests.cpu);
  EXPECT_EQ(resized->spec.containers[0].resources.requests.cpu->toMillicores(), wanted);
  EXPECT_EQ(resized->spec.containers[0].resources.requests.memory,
            container.resources.requests.memory);
}

// The client sends a resize without reading the pod first: a container the pod lacks is the
// server's to refuse, and nothing changes.
TEST_F(SimServeKubeClient, RefusesAResizeOfAContainerThePodLacks) {
  auto pod = burstablePod();
  ASSERT_TRUE(pod) << "the demo has no Burstable pod with cpu and memory requests";
  api::ContainerResize resize{"no-such-container", pod->spec.containers[0].resources};
  auto resized = api().resizePod(pod->metadata.namespace_, pod->metadata.name,
                                 std::span<const api::ContainerResize>(&resize, 1));
  ASSERT_FALSE(resized);
  EXPECT_EQ(resized.error().code, ErrorCode::kInvalidArgument) << resized.error().toString();
  auto unchanged = api().getPod(pod->metadata.namespace_, pod->metadata.name);
  ASSERT_TRUE(unchanged) << unchanged.error().toString();
  EXPECT_EQ(unchanged->spec, pod->spec);
}

TEST_F(SimServeKubeClient, RejectsAResizeThatChangesTheQosClass) {
  auto pod = burstablePod();
  ASSERT_TRUE(pod) << "the demo has no Burstable pod with cpu and memory requests";
  // Requests equal to limits in every container would make the pod Guaranteed.
  std::vector<api::ContainerResize> resizes;
  for (const auto& container : pod->spec.containers) {
    api::ContainerResize resize{container.name, container.resources};
    resize.resources.requests.cpu = Quantity::fromMillicores(1000_m);
    resize.resources.limits.cpu = Quantity::fromMillicores(1000_m);
    resize.resources.requests.memory = Quantity::fromBytes(1_Gi);
    resize.resources.limits.memory = Quantity::fromBytes(1_Gi);
    resizes.push_back(resize);
  }
  auto resized = api().resizePod(pod->metadata.namespace_, pod->metadata.name, resizes);
  ASSERT_FALSE(resized);
  EXPECT_EQ(resized.error().code, ErrorCode::kInvalidArgument) << resized.error().toString();
  EXPECT_FALSE(resized.error().field.empty()) << resized.error().toString();
  auto unchanged = api().getPod(pod->metadata.namespace_, pod->metadata.name);
  ASSERT_TRUE(unchanged) << unchanged.error().toString();
  EXPECT_EQ(unchanged->spec.containers[0].resources.limits,
            pod->spec.containers[0].resources.limits);
}

TEST_F(SimServeKubeClient, ListsPoliciesAndRoundTripsAStatusCondition) {
  auto policies = api().listAttunePolicies({});
  ASSERT_TRUE(policies) << policies.error().toString();
  ASSERT_EQ(policies->items.size(), 10u);  // the demo's policies

  api::AttunePolicy policy = policies->items.front();
  api::Condition condition;
  condition.type = "IntegrationProbe";
  condition.status = "True";
  condition.reason = "Probed";
  condition.message = "written through HttpClusterApi";
  condition.observedGeneration = policy.metadata.generation;
  policy.status.conditions.push_back(condition);
  auto updated = api().updateAttunePolicyStatus(policy);
  ASSERT_TRUE(updated) << updated.error().toString();
  EXPECT_NE(updated->metadata.resourceVersion, policy.metadata.resourceVersion);

  auto reread = api().getAttunePolicy(policy.metadata.namespace_, policy.metadata.name);
  ASSERT_TRUE(reread) << reread.error().toString();
  auto found = std::find_if(reread->status.conditions.begin(), reread->status.conditions.end(),
                            [](const api::Condition& c) { return c.type == "IntegrationProbe"; });
  ASSERT_NE(found, reread->status.conditions.end());
  EXPECT_EQ(found->status, "True");
  EXPECT_EQ(found->reason, "Probed");
  EXPECT_EQ(found->message, "written through HttpClusterApi");
  EXPECT_EQ(reread->spec, policy.spec);
}

}  // namespace
}  // namespace attune
