// The kubelet model's pod lifecycle: starting bound pods, readiness, the KEP-4603 restart
// curve, batch completion, resize restarts, nodes that fail to start.
#include <gtest/gtest.h>

#include <vector>

#include "kubelet_fixture.h"

namespace attune::sim::testing {
namespace {

class KubeletLifecycleTest : public KubeletTest {
 protected:
  // Ticks of 1 s until `total` has passed; returns the delay before each restart seen
  // (restart time minus the finishedAt of the exit before it).
  std::vector<Duration> restartDelays(std::string_view pod, Duration total) {
    std::vector<Duration> delays;
    const api::ContainerStatus* first = this->pod(pod).status.findContainerStatus("app");
    int seen = first == nullptr ? 0 : first->restartCount;
    for (Duration t{}; t < total; t += 1s) {
      tick();
      const api::ContainerStatus& s = status(pod);
      if (s.restartCount == seen) continue;
      seen = s.restartCount;
      delays.push_back(*s.state.running->startedAt - *s.lastState.terminated->finishedAt);
    }
    return delays;
  }
};

TEST_F(KubeletLifecycleTest, StartsABoundPodAndIsReadyAfterStartup) {
  addNode("n1", "4", "8Gi");
  addPod("web", "n1", {{.cpuRequest = "250m", .memoryRequest = "64Mi", .cpuLimit = "1"}});
  tick();
  const api::Pod& p = pod("web");
  EXPECT_EQ(p.status.phase, "Running");
  EXPECT_EQ(p.status.startTime, kT0 + 1s);
  const api::ContainerStatus& s = status("web");
  EXPECT_EQ(s.state.running->startedAt, kT0 + 1s);
  EXPECT_EQ(s.started, true);
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(s.resources, p.spec.containers[0].resources);
  EXPECT_EQ(s.allocatedResources, p.spec.containers[0].resources.requests);
  EXPECT_FALSE(podReady("web"));
  EXPECT_EQ(api::findCondition(p.status.conditions, "ContainersReady")->status, "False");

  runFor(9s);
  EXPECT_FALSE(podReady("web"));  // startupDuration is 10 s
  tick();
  EXPECT_TRUE(podReady("web"));
  EXPECT_TRUE(status("web").ready);
  EXPECT_EQ(api::findCondition(pod("web").status.conditions, "ContainersReady")->status, "True");
}

TEST_F(KubeletLifecycleTest, WritesThePodOnlyWhenItsStatusChanges) {
  addNode("n1", "4", "8Gi");
  addPod("web", "n1", {{.cpuRequest = "1", .cpuLimit = "1"}});
  usage("web").cpu = 0.5;
  usage("web").memory = 64_Mi;
  runFor(20s);
  const std::string version = pod("web").metadata.resourceVersion;
  runFor(10min, 10s);
  EXPECT_EQ(pod("web").metadata.resourceVersion, version);
  EXPECT_GT(runtime("web").cpuUsageSecondsTotal, 290);
}

TEST_F(KubeletLifecycleTest, UnboundPodsWaitAndForgottenPodsGo) {
  addNode("n1", "4", "8Gi");
  addPod("web", "", {{}});
  tick();
  EXPECT_EQ(pod("web").status.phase, "Pending");
  EXPECT_TRUE(kubelet().pods().empty());

  ASSERT_TRUE(state_.pods.modify("team", "web", "", [](api::Pod& p) -> Result<Change> {
    p.spec.nodeName = "n1";
    return Change::kMetadata;
  }));
  tick();
  EXPECT_EQ(pod("web").status.phase, "Running");
  EXPECT_EQ(kubelet().pods().size(), 1u);

  ASSERT_TRUE(state_.pods.erase("team", "web"));
  tick();
  EXPECT_TRUE(kubelet().pods().empty());
}

TEST_F(KubeletLifecycleTest, RestartDelaysFollowTheKep4603Curve) {
  addNode("n1", "4", "8Gi");
  addPod("crash", "n1", {{.memoryRequest = "64Mi", .memoryLimit = "64Mi"}});
  usage("crash").memory = 128_Mi;  // OOM-killed as soon as it runs
  const auto delays = restartDelays("crash", 30min);
  const std::vector<Duration> expected{10s, 20s, 40s, 80s, 160s, 300s, 300s};
  ASSERT_GE(delays.size(), expected.size());
  EXPECT_EQ(std::vector<Duration>(delays.begin(), delays.begin() + 7), expected);
  for (std::size_t i = 7; i < delays.size(); ++i) EXPECT_EQ(delays[i], 300s);
  EXPECT_EQ(runtime("crash").restarts->exits(), runtime("crash").oomKillsTotal);
}

TEST_F(KubeletLifecycleTest, TheCurveResetsAfterTenMinutesOfRunning) {
  addNode("n1", "4", "8Gi");
  addPod("crash", "n1", {{.memoryRequest = "64Mi", .memoryLimit = "64Mi"}});
  usage("crash").memory = 128_Mi;
  ASSERT_EQ(restartDelays("crash", 2min).size(), 3u);  // 10 s, 20 s, 40 s; then waits 80 s

  usage("crash").memory = 32_Mi;  // healthy
  restartDelays("crash", 11min);
  usage("crash").memory = 128_Mi;
  const auto after = restartDelays("crash", 1min);
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.front(), 10s);
}

TEST_F(KubeletLifecycleTest, ShortRunsDoNotResetTheCurve) {
  addNode("n1", "4", "8Gi");
  addPod("crash", "n1", {{.memoryRequest = "64Mi", .memoryLimit = "64Mi"}});
  usage("crash").memory = 128_Mi;
  ASSERT_EQ(restartDelays("crash", 2min).size(), 3u);  // 10 s, 20 s, 40 s; then waits 80 s
  usage("crash").memory = 32_Mi;
  restartDelays("crash", 5min);
  usage("crash").memory = 128_Mi;
  const auto after = restartDelays("crash", 3min);
  ASSERT_FALSE(after.empty());
  EXPECT_EQ(after.front(), 160s);  // the run lasted under 10 minutes: the curve goes on
}

TEST_F(KubeletLifecycleTest, ReducedCurveThroughOptions) {
  options_.restartBackoff.reduceDefaultDecay = true;
  addNode("n1", "4", "8Gi");
  addPod("crash", "n1", {{.memoryRequest = "64Mi", .memoryLimit = "64Mi"}});
  usage("crash").memory = 128_Mi;
  const auto delays = restartDelays("crash", 5min);
  const std::vector<Duration> expected{1s, 2s, 4s, 8s, 16s, 32s, 60s, 60s};
  ASSERT_GE(delays.size(), expected.size());
  EXPECT_EQ(std::vector<Duration>(delays.begin(), delays.begin() + 8), expected);
}

TEST_F(KubeletLifecycleTest, PerNodeMaxSecondsCapsTheCurveOnThatNodeOnly) {
  options_.perNode["fast"] = RestartBackoffConfig{false, true, 4};
  addNode("fast", "4", "8Gi");
  addPod("crash", "fast", {{.memoryRequest = "64Mi", .memoryLimit = "64Mi"}});
  usage("crash").memory = 128_Mi;
  const auto delays = restartDelays("crash", 1min);
  ASSERT_GE(delays.size(), 3u);
  for (Duration d : delays) EXPECT_EQ(d, 4s);
}

TEST_F(KubeletLifecycleTest, ANodeWithAnInvalidMaxSecondsNeverStartsPods) {
  options_.perNode["bad"] = RestartBackoffConfig{false, true, 0};
  addNode("bad", "4", "8Gi");
  addNode("good", "4", "8Gi");
  addPod("a", "bad", {{}});
  addPod("b", "good", {{}});
  runFor(1min);
  EXPECT_FALSE(node("bad").started);
  EXPECT_NE(node("bad").startError.find("crashloopbackoff.maxSeconds"), std::string::npos);
  const api::Condition* ready = nodeCondition("bad", "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->status, "False");
  EXPECT_EQ(ready->reason, "KubeletConfigInvalid");
  EXPECT_EQ(pod("a").status.phase, "Pending");
  EXPECT_TRUE(pod("a").status.containerStatuses.empty());
  EXPECT_EQ(pod("b").status.phase, "Running");
  EXPECT_EQ(nodeCondition("good", "Ready")->status, "True");
}

TEST_F(KubeletLifecycleTest, BatchCompletionSucceedsThePod) {
  addNode("n1", "4", "8Gi");
  addPod("job", "n1", {{.cpuRequest = "1"}}, "OnFailure");
  usage("job").cpu = 1;
  usage("job").runFor = 30s;
  runFor(29s);
  EXPECT_EQ(pod("job").status.phase, "Running");
  runFor(5s);
  EXPECT_EQ(pod("job").status.phase, "Succeeded");
  ASSERT_TRUE(status("job").state.terminated);
  EXPECT_EQ(status("job").state.terminated->reason, "Completed");
  EXPECT_EQ(status("job").state.terminated->exitCode, 0);
  EXPECT_EQ(status("job").restartCount, 0);
  EXPECT_FALSE(podReady("job"));
  EXPECT_EQ(api::findCondition(pod("job").status.conditions, "Ready")->reason, "PodCompleted");
  EXPECT_TRUE(runtime("job").completed);
}

TEST_F(KubeletLifecycleTest, RestartPolicyAlwaysRestartsACompletedContainer) {
  addNode("n1", "4", "8Gi");
  addPod("loop", "n1", {{}}, "Always");
  usage("loop").runFor = 30s;
  runFor(35s);
  EXPECT_EQ(pod("loop").status.phase, "Running");
  ASSERT_TRUE(status("loop").state.waiting);
  EXPECT_EQ(status("loop").state.waiting->reason, "CrashLoopBackOff");
  EXPECT_EQ(status("loop").lastState.terminated->reason, "Completed");
  runFor(10s);
  EXPECT_EQ(status("loop").restartCount, 1);
  EXPECT_TRUE(status("loop").state.running);
}

TEST_F(KubeletLifecycleTest, SidecarsStopWhenTheMainContainersComplete) {
  addNode("n1", "4", "8Gi");
  addPod("job", "n1", {{.name = "main"}, {.name = "proxy", .sidecar = true}}, "Never");
  usage("job", "main").runFor = 20s;
  runFor(25s);
  EXPECT_EQ(pod("job").status.phase, "Succeeded");
  const api::ContainerStatus* proxy = pod("job").status.findContainerStatus("proxy");
  ASSERT_NE(proxy, nullptr);
  EXPECT_TRUE(proxy->state.terminated);
  EXPECT_EQ(pod("job").status.initContainerStatuses.size(), 1u);
}

TEST_F(KubeletLifecycleTest, RestartContainerResizeRestartsTheRun) {
  addNode("n1", "4", "8Gi");
  addPod("web", "n1",
         {{.cpuRequest = "500m",
           .memoryRequest = "256Mi",
           .memoryLimit = "512Mi",
           .resizePolicy = {{"memory", "RestartContainer"}}}});
  usage("web").memory = 200_Mi;
  usage("web").leakPerMinute = 100_Mi;
  runFor(2min);
  EXPECT_TRUE(podReady("web"));

  ASSERT_TRUE(state_.pods.modify("team", "web", "", [](api::Pod& p) -> Result<Change> {
    p.spec.containers[0].resources.limits.memory = q("1Gi");
    return Change::kSpec;
  }));
  tick();
  const Time resizedAt = kT0 + 121s;
  const api::ContainerStatus& s = status("web");
  EXPECT_EQ(s.restartCount, 1);
  EXPECT_EQ(s.state.running->startedAt, resizedAt);
  EXPECT_EQ(s.lastState.terminated->reason, "Error");
  EXPECT_EQ(s.resources->limits.memory, q("1Gi"));
  EXPECT_FALSE(s.ready);  // starting again
  EXPECT_EQ(runtime("web").runningSince, resizedAt);
  EXPECT_EQ(runtime("web").restartCount, 1);
  EXPECT_EQ(runtime("web").memoryLimit, 1_Gi);

  tick();  // the model's run restarted: the leak starts over
  EXPECT_EQ(runtime("web").memoryWorkingSet, 200_Mi + Bytes((100_Mi).value() / 60));
  runFor(10s);
  EXPECT_TRUE(podReady("web"));
  EXPECT_EQ(status("web").restartCount, 1);
}

TEST_F(KubeletLifecycleTest, AModelErrorFailsThePod) {
  addNode("n1", "4", "8Gi");
  addPod("web", "n1", {{}});
  failingModels_.insert("web");
  tick();
  EXPECT_EQ(pod("web").status.phase, "Failed");
  EXPECT_NE(pod("web").status.message.find("no such trace"), std::string::npos);
  EXPECT_TRUE(kubelet().pods().empty());
}

TEST_F(KubeletLifecycleTest, AdoptsAPodAlreadyRunningOnItsNode) {
  addNode("n1", "4", "8Gi");
  api::Pod running;
  running.metadata.namespace_ = "team";
  running.metadata.name = "old";
  running.spec.nodeName = "n1";
  running.spec.containers.push_back(api::Container{.name = "app"});
  running.status.phase = "Running";
  api::ContainerStatus s;
  s.name = "app";
  s.ready = true;
  s.restartCount = 3;
  s.state.running = api::ContainerStateRunning{kT0 - 1h};
  running.status.containerStatuses.push_back(s);
  ASSERT_TRUE(state_.createPod(running));
  tick();
  EXPECT_EQ(runtime("old").runningSince, kT0 - 1h);
  EXPECT_EQ(status("old").restartCount, 3);
  EXPECT_TRUE(podReady("old"));
}

}  // namespace
}  // namespace attune::sim::testing
