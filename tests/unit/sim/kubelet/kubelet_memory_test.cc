// The kubelet model's memory: OOM kills at the container's limit, and evictions under node
// memory pressure.
#include <gtest/gtest.h>

#include "kubelet_fixture.h"

namespace attune::sim::testing {
namespace {

class KubeletMemoryTest : public KubeletTest {};

TEST_F(KubeletMemoryTest, OomKilledAtTheLimitThenRestartedAfterTheBackoff) {
  addNode("n1", "4", "8Gi");
  addPod("web", "n1", {{.memoryRequest = "256Mi", .memoryLimit = "256Mi"}});
  usage("web").memory = 300_Mi;
  tick();  // starts the container at kT0 + 1s
  const Time started = kT0 + 1s;
  EXPECT_EQ(status("web").state.running->startedAt, started);

  tick();  // runs, crosses the limit
  const Time killed = kT0 + 2s;
  const api::ContainerStatus& s = status("web");
  ASSERT_TRUE(s.lastState.terminated);
  EXPECT_EQ(s.lastState.terminated->reason, "OOMKilled");
  EXPECT_EQ(s.lastState.terminated->exitCode, 137);
  EXPECT_EQ(s.lastState.terminated->startedAt, started);
  EXPECT_EQ(s.lastState.terminated->finishedAt, killed);
  ASSERT_TRUE(s.state.waiting);
  EXPECT_EQ(s.state.waiting->reason, "CrashLoopBackOff");
  EXPECT_EQ(s.restartCount, 0);
  EXPECT_FALSE(s.ready);
  EXPECT_EQ(runtime("web").oomKillsTotal, 1u);
  EXPECT_EQ(runtime("web").lastOomKillAt, killed);
  EXPECT_EQ(runtime("web").memoryAtLastOomKill, 300_Mi);

  usage("web").memory = 100_Mi;
  runFor(9s);  // still backing off
  EXPECT_TRUE(status("web").state.waiting);
  EXPECT_EQ(status("web").restartCount, 0);
  EXPECT_FALSE(podReady("web"));

  tick();  // killed + 10s: restarted
  EXPECT_EQ(status("web").restartCount, 1);
  ASSERT_TRUE(status("web").state.running);
  EXPECT_EQ(status("web").state.running->startedAt, killed + 10s);
  EXPECT_EQ(status("web").lastState.terminated->reason, "OOMKilled");
  EXPECT_EQ(pod("web").status.phase, "Running");
}

TEST_F(KubeletMemoryTest, ARestartResetsTheModelsRun) {
  addNode("n1", "4", "8Gi");
  addPod("leaky", "n1", {{.memoryRequest = "128Mi", .memoryLimit = "256Mi"}});
  usage("leaky").memory = 100_Mi;
  usage("leaky").leakPerMinute = 100_Mi;  // crosses 256Mi 94 s into each run
  runFor(5min);
  const auto& last = *status("leaky").lastState.terminated;
  EXPECT_EQ(last.reason, "OOMKilled");
  EXPECT_EQ(*last.finishedAt - *last.startedAt, 94s);
  EXPECT_EQ(runtime("leaky").oomKillsTotal, 2u);
  EXPECT_EQ(status("leaky").restartCount, 2);
}

TEST_F(KubeletMemoryTest, RestartPolicyNeverFailsThePod) {
  addNode("n1", "4", "8Gi");
  addPod("job", "n1", {{.memoryRequest = "256Mi", .memoryLimit = "256Mi"}}, "Never");
  usage("job").memory = 300_Mi;
  runFor(30s);
  EXPECT_EQ(pod("job").status.phase, "Failed");
  ASSERT_TRUE(status("job").state.terminated);
  EXPECT_EQ(status("job").state.terminated->reason, "OOMKilled");
  EXPECT_EQ(status("job").restartCount, 0);
  EXPECT_EQ(runtime("job").oomKillsTotal, 1u);
  EXPECT_FALSE(podReady("job"));
}

TEST_F(KubeletMemoryTest, NoLimitNoOomKill) {
  addNode("n1", "4", "8Gi");
  addPod("web", "n1", {{.memoryRequest = "256Mi"}});
  usage("web").memory = 2_Gi;
  runFor(1min);
  EXPECT_EQ(runtime("web").oomKillsTotal, 0u);
  EXPECT_TRUE(status("web").state.running);
}

TEST_F(KubeletMemoryTest, MemoryPressureEvictsPodsAboveRequestsLowerPriorityFirst) {
  addNode("n1", "4", "1Gi");
  addPod("low", "n1", {{.memoryRequest = "100Mi"}}, "Always", 0);
  addPod("high", "n1", {{.memoryRequest = "100Mi"}}, "Always", 1000);
  addPod("under", "n1", {{.memoryRequest = "500Mi"}}, "Always", -10);
  usage("low").memory = 200_Mi;   // 100Mi above its request
  usage("high").memory = 400_Mi;  // 300Mi above its request, but higher priority
  usage("under").memory = 300_Mi;
  runFor(1min);  // 900Mi used, 124Mi available: no pressure
  EXPECT_FALSE(node("n1").memoryPressure);
  EXPECT_EQ(nodeCondition("n1", "MemoryPressure")->status, "False");
  EXPECT_TRUE(state_.evictions().empty());

  usage("under").memory = 350_Mi;  // 74Mi available
  tick();
  EXPECT_TRUE(node("n1").memoryPressure);
  EXPECT_EQ(nodeCondition("n1", "MemoryPressure")->status, "True");
  ASSERT_EQ(state_.evictions().size(), 1u);
  const api::Pod& evicted = state_.evictions()[0].pod;
  EXPECT_EQ(evicted.metadata.name, "low");
  EXPECT_EQ(evicted.status.phase, "Failed");
  EXPECT_EQ(evicted.status.reason, "Evicted");
  EXPECT_NE(evicted.status.message.find("Container app was using 200Mi, request is 100Mi"),
            std::string::npos);
  ASSERT_TRUE(evicted.status.containerStatuses[0].state.terminated);
  EXPECT_EQ(evicted.status.containerStatuses[0].state.terminated->exitCode, 137);
  EXPECT_EQ(state_.pods.find("team", "low"), nullptr);
  EXPECT_EQ(node("n1").evictionsTotal, 1u);

  tick();  // relieved
  EXPECT_FALSE(node("n1").memoryPressure);
  EXPECT_EQ(nodeCondition("n1", "MemoryPressure")->status, "False");
  EXPECT_EQ(state_.evictions().size(), 1u);
  EXPECT_EQ(kubelet().pods().size(), 2u);  // the evicted pod is forgotten
}

TEST_F(KubeletMemoryTest, AmongEqualPriorityTheLargerExcessIsEvictedFirst) {
  addNode("n1", "4", "1Gi");
  addPod("a", "n1", {{.memoryRequest = "100Mi"}});
  addPod("b", "n1", {{.memoryRequest = "100Mi"}});
  addPod("c", "n1", {{.memoryRequest = "100Mi"}});
  usage("a").memory = 300_Mi;
  usage("b").memory = 450_Mi;
  usage("c").memory = 250_Mi;
  runFor(3s);
  ASSERT_EQ(state_.evictions().size(), 1u);
  EXPECT_EQ(state_.evictions()[0].pod.metadata.name, "b");
}

TEST_F(KubeletMemoryTest, EvictsOnePodPerTickUntilRelieved) {
  addNode("n1", "4", "1Gi");
  for (const char* name : {"a", "b", "c", "d"}) {
    addPod(name, "n1", {{.memoryRequest = "10Mi"}});
    usage(name).memory = 240_Mi;  // 960Mi in all
  }
  tick();
  tick();
  EXPECT_EQ(state_.evictions().size(), 1u);
  tick();
  EXPECT_EQ(state_.evictions().size(), 1u);  // 720Mi used: relieved
  EXPECT_FALSE(node("n1").memoryPressure);
}

}  // namespace
}  // namespace attune::sim::testing
