// kube::HttpClusterApi (and kubectl, when installed) against `attune sim serve --tls
// --fault-rate 0.2`: lists, gets and writes succeed through the client's retries, a 409 on a
// write with a resourceVersion reaches the caller (and wrote nothing), a watch that is dropped or
// answered 410 is recovered by re-watching or relisting, and the server's /metrics count every
// fault kind it injected. Each test starts its own server (ctest runs every test in its own
// process). Loops that wait for a fault to happen are bounded; the fault sequence is seeded.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "http/http_client.h"
#include "kube/http_cluster_api.h"
#include "kube/kubeconfig.h"
#include "support/command.h"
#include "support/prometheus/child_process.h"
#include "support/shared_dir.h"

namespace attune {
namespace {

constexpr auto kReadyPoll = std::chrono::milliseconds(100);
constexpr int kReadyAttempts = 300;  // 30 s
constexpr int kRelists = 30;         // lists again after a 410 up to this many times
constexpr int kFaultLoops = 600;     // bound of the loops waiting for a fault to happen

const char* const kFaultNames[] = {"throttled",     "server-error", "timeout",
                                   "watch-dropped", "watch-gone",   "conflict"};

bool isGone(const Error& e) {
  return e.code == ErrorCode::kConflict && e.field == "resourceVersion";
}

class SimServeFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::make_unique<testing::TempDir>();
    kubeconfig_ = dir_->path() / "kubeconfig";
    const int port = testing::freeLocalPort();
    server_ = std::make_unique<testing::ChildProcess>(
        std::vector<std::string>{ATTUNE_BINARY, "sim", "serve", "--listen",
                                 "127.0.0.1:" + std::to_string(port), "--tls", "--kubeconfig-out",
                                 kubeconfig_.string(), "--tick-interval", "200ms", "--fault-rate",
                                 "0.2", "--fault-seed", "11"},
        dir_->path() / "serve.log");
    for (int i = 0; i < kReadyAttempts && server_->running(); ++i) {
      if (std::filesystem::exists(kubeconfig_)) {
        if (auto config = kube::loadKubeconfig(kubeconfig_)) {
          config_ = std::make_unique<kube::ClusterConfig>(*config);
          api_ = client(3);
          pods_ = client(100);
          if (listed([&] { return api_->listNodes({}); })) return;
        }
      }
      clock_.sleepFor(kReadyPoll);
    }
    FAIL() << "attune sim serve did not become ready:\n"
           << testing::readFile(dir_->path() / "serve.log");
  }

  // A client with small pages, many quick retries and a short watch wait.
  std::unique_ptr<kube::HttpClusterApi> client(int pageSize) {
    kube::HttpClusterApiOptions options;
    options.listPageSize = pageSize;
    options.rest.maxRetries = 12;
    options.rest.backoff = {std::chrono::milliseconds(5), 2.0, std::chrono::milliseconds(50),
                            Duration::zero()};
    options.rest.maxRetryAfter = std::chrono::milliseconds(20);
    options.rest.rateLimit.qps = 1000;
    options.rest.rateLimit.burst = 1000;
    options.watchWait = std::chrono::milliseconds(100);
    return std::make_unique<kube::HttpClusterApi>(*config_, clock_, options);
  }

  // Calls list() until it does not fail with 410 (an expired continue token): what a caller of
  // ClusterApi does.
  template <typename Fn>
  auto listed(Fn&& list) -> decltype(list()) {
    auto result = list();
    for (int i = 0; i < kRelists && !result && isGone(result.error()); ++i) result = list();
    return result;
  }

  // The server's counter of injected faults of `kind` (from /metrics, which is never faulted).
  long injected(const std::string& kind) {
    http::CurlHttpClient http(config_->http);
    auto response = http.send({.url = config_->server + "/metrics"});
    if (!response || response->status != 200) return -1;
    const std::string series = "attune_sim_faults_injected_total{kind=\"" + kind + "\"} ";
    const std::size_t at = response->body.find(series);
    return at == std::string::npos ? -1 : std::stol(response->body.substr(at + series.size()));
  }

  bool everyKindInjected() {
    for (const char* kind : kFaultNames) {
      if (injected(kind) <= 0) return false;
    }
    return true;
  }

  // One conditional annotation write to `pod` (read, then patch with its resourceVersion).
  // Returns the patch's result; on a conflict, checks that nothing was written.
  Result<api::ObjectMeta> conditionalPatch(const api::Pod& pod, int value) {
    auto current = api_->getPod(pod.metadata.namespace_, pod.metadata.name);
    if (!current) return std::unexpected(current.error());
    const api::AnnotationChanges changes{{"attune.io/probe", std::to_string(value)}};
    auto patched = api_->patchPodAnnotations(pod.metadata.namespace_, pod.metadata.name, changes,
                                             current->metadata.resourceVersion);
    if (!patched && patched.error().code == ErrorCode::kConflict) {
      auto after = api_->getPod(pod.metadata.namespace_, pod.metadata.name);
      EXPECT_TRUE(after) << after.error().toString();
      if (after) {
        EXPECT_EQ(after->metadata.annotations, current->metadata.annotations)
            << "a write that met a conflict changed the pod";
      }
    }
    return patched;
  }

  // Opens a new pod watch from `rv` (alternating the namespace so the client reopens): one
  // watch request to the server. Relists on 410; returns the resume point.
  std::string rewatch(std::string rv, int i, int& gone) {
    api::ListOptions options;
    if (i % 2 == 1) options.namespace_ = "data";
    auto batch = api_->watchPods(options, rv);
    if (batch) return batch->resourceVersion;
    EXPECT_TRUE(isGone(batch.error()) || batch.error().code == ErrorCode::kUnavailable)
        << batch.error().toString();
    if (!isGone(batch.error())) return rv;
    ++gone;
    auto pods = listed([&] { return pods_->listPods({}); });
    EXPECT_TRUE(pods) << pods.error().toString();
    return pods ? pods->resourceVersion : rv;
  }

  SystemClock clock_;
  std::unique_ptr<testing::TempDir> dir_;
  std::filesystem::path kubeconfig_;
  std::unique_ptr<testing::ChildProcess> server_;
  std::unique_ptr<kube::ClusterConfig> config_;
  std::unique_ptr<kube::HttpClusterApi> api_;   // pages of 3
  std::unique_ptr<kube::HttpClusterApi> pods_;  // pages of 100
};

TEST_F(SimServeFaults, ListsAndGetsSucceedThroughRetries) {
  for (int round = 0; round < 3; ++round) {
    auto nodes = listed([&] { return api_->listNodes({}); });
    ASSERT_TRUE(nodes) << nodes.error().toString();
    EXPECT_EQ(nodes->items.size(), 20u);
    auto deployments = listed([&] { return api_->listDeployments({}); });
    ASSERT_TRUE(deployments) << deployments.error().toString();
    EXPECT_GT(deployments->items.size(), 3u);
    auto namespaces = listed([&] { return api_->listNamespaces({}); });
    ASSERT_TRUE(namespaces) << namespaces.error().toString();
  }
  auto pods = listed([&] { return pods_->listPods({}); });
  ASSERT_TRUE(pods) << pods.error().toString();
  ASSERT_GT(pods->items.size(), 100u);
  for (std::size_t i = 0; i < 30; ++i) {
    const api::Pod& pod = pods->items[i];
    auto got = api_->getPod(pod.metadata.namespace_, pod.metadata.name);
    ASSERT_TRUE(got) << got.error().toString();
    EXPECT_EQ(got->metadata.uid, pod.metadata.uid);
  }
  EXPECT_GT(injected("throttled") + injected("server-error") + injected("timeout"), 0);
}

TEST_F(SimServeFaults, WritesSucceedAndAnInjectedConflictReachesTheCaller) {
  auto pods = listed([&] { return pods_->listPods({}); });
  ASSERT_TRUE(pods) << pods.error().toString();
  ASSERT_GT(pods->items.size(), 20u);
  // Without a resourceVersion a write never meets a conflict: every one succeeds.
  for (std::size_t i = 0; i < 20; ++i) {
    const api::Pod& pod = pods->items[i];
    auto patched = api_->patchPodAnnotations(pod.metadata.namespace_, pod.metadata.name,
                                             {{"attune.io/unconditional", "yes"}}, "");
    ASSERT_TRUE(patched) << patched.error().toString();
    EXPECT_EQ(patched->annotations.at("attune.io/unconditional"), "yes");
  }
  int conflicts = 0;
  int written = 0;
  for (int i = 0; i < kFaultLoops && injected("conflict") <= 0; ++i) {
    auto patched = conditionalPatch(pods->items[i % 20], i);
    if (patched) {
      ++written;
    } else {
      ASSERT_EQ(patched.error().code, ErrorCode::kConflict) << patched.error().toString();
      ++conflicts;
    }
  }
  EXPECT_GT(conflicts, 0);
  EXPECT_GT(written, 0);
  EXPECT_GT(injected("conflict"), 0);
}

TEST_F(SimServeFaults, WatchesRecoverFromDropsAndGone) {
  auto pods = listed([&] { return pods_->listPods({}); });
  ASSERT_TRUE(pods) << pods.error().toString();
  std::string rv = pods->resourceVersion;
  int gone = 0;
  for (int i = 0; i < kFaultLoops && (gone == 0 || injected("watch-dropped") <= 0); ++i) {
    rv = rewatch(rv, i, gone);
  }
  EXPECT_GT(gone, 0) << "no watch was answered 410";
  EXPECT_GT(injected("watch-dropped"), 0);

  // After the recovery, a change still reaches the watcher: as an event, or in a relist after
  // a 410.
  const api::Pod& target = pods->items.front();
  auto patched = api_->patchPodAnnotations(target.metadata.namespace_, target.metadata.name,
                                           {{"attune.io/after-recovery", "1"}}, "");
  ASSERT_TRUE(patched) << patched.error().toString();
  bool seen = false;
  for (int i = 0; i < kFaultLoops && !seen; ++i) {
    auto batch = api_->watchPods({}, rv);
    if (!batch) {
      ASSERT_TRUE(isGone(batch.error()) || batch.error().code == ErrorCode::kUnavailable)
          << batch.error().toString();
      if (!isGone(batch.error())) continue;
      auto relisted = listed([&] { return pods_->listPods({}); });
      ASSERT_TRUE(relisted) << relisted.error().toString();
      for (const auto& pod : relisted->items) {
        seen = seen || (pod.metadata.uid == target.metadata.uid &&
                        pod.metadata.annotations.contains("attune.io/after-recovery"));
      }
      rv = relisted->resourceVersion;
      continue;
    }
    for (const auto& event : batch->events) {
      seen = seen || (event.object.metadata.uid == target.metadata.uid &&
                      event.object.metadata.annotations.contains("attune.io/after-recovery"));
    }
    rv = batch->resourceVersion;
  }
  EXPECT_TRUE(seen);
}

TEST_F(SimServeFaults, EveryEnabledFaultKindIsInjected) {
  auto pods = listed([&] { return pods_->listPods({}); });
  ASSERT_TRUE(pods) << pods.error().toString();
  std::string rv = pods->resourceVersion;
  int gone = 0;
  for (int i = 0; i < kFaultLoops && !everyKindInjected(); ++i) {
    auto nodes = listed([&] { return api_->listNodes({}); });
    ASSERT_TRUE(nodes) << nodes.error().toString();
    auto patched = conditionalPatch(pods->items[i % pods->items.size()], i);
    if (!patched) {
      ASSERT_EQ(patched.error().code, ErrorCode::kConflict) << patched.error().toString();
    }
    rv = rewatch(rv, i, gone);
  }
  for (const char* kind : kFaultNames) EXPECT_GT(injected(kind), 0) << kind;
}

TEST_F(SimServeFaults, KubectlGetPodsSucceedsUnderFaults) {
  if (!testing::findOnPath("kubectl")) {
    GTEST_SKIP() << "kubectl is not installed (scripts/setup.sh installs it)";
  }
  for (int i = 0; i < 8; ++i) {
    auto run = testing::runCommand("kubectl --kubeconfig " + kubeconfig_.string() +
                                   " --request-timeout=30s get pods -A --no-headers");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_GT(std::count(run.out.begin(), run.out.end(), '\n'), 100);
  }
}

}  // namespace
}  // namespace attune
