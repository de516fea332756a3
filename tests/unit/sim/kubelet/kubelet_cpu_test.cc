// The kubelet model's CPU: CFS throttling under a limit, contention shares by requests, PSI
// waiting under contention, node_load1.
#include <gtest/gtest.h>

#include <cmath>

#include "kubelet_fixture.h"

namespace attune::sim::testing {
namespace {

class KubeletCpuTest : public KubeletTest {};

double throttleRatio(const ContainerRuntime& c) {
  return static_cast<double>(c.cfsThrottledPeriodsTotal) / static_cast<double>(c.cfsPeriodsTotal);
}

TEST_F(KubeletCpuTest, DemandAboveTheLimitIsThrottledAndBelowItIsNot) {
  addNode("n1", "16", "64Gi");
  addPod("hot", "n1", {{.cpuRequest = "1", .cpuLimit = "1"}});
  addPod("cool", "n1", {{.cpuRequest = "1", .cpuLimit = "1"}});
  usage("hot").cpu = 2.0;
  usage("cool").cpu = 0.4;
  runFor(10min, 60s);

  const ContainerRuntime& hot = runtime("hot");
  EXPECT_EQ(hot.cfsPeriodsTotal, 9u * 600);  // 9 full ticks after the start tick
  EXPECT_GT(throttleRatio(hot), 0.9);
  EXPECT_NEAR(hot.cpuUsageCores, 1.0, 1e-9);
  EXPECT_NEAR(hot.cpuUsageSecondsTotal, 9 * 60.0, 1e-6);
  EXPECT_GT(hot.cfsThrottledSecondsTotal, 0);
  EXPECT_NEAR(hot.psiCpuWaitingSecondsTotal, 9 * 60.0, 1e-6);  // one core unmet

  const ContainerRuntime& cool = runtime("cool");
  EXPECT_EQ(cool.cfsPeriodsTotal, 9u * 600);
  EXPECT_EQ(cool.cfsThrottledPeriodsTotal, 0u);
  EXPECT_DOUBLE_EQ(cool.psiCpuWaitingSecondsTotal, 0);
  EXPECT_NEAR(cool.cpuUsageSecondsTotal, 9 * 60 * 0.4, 1e-6);
}

TEST_F(KubeletCpuTest, TheQuotaComesFromTheAppliedResourcesAfterAResize) {
  addNode("n1", "16", "64Gi");
  addPod("web", "n1", {{.cpuRequest = "1", .memoryRequest = "1Gi", .cpuLimit = "1"}});
  usage("web").cpu = 2.0;
  runFor(2min, 60s);
  EXPECT_GT(runtime("web").throttledPeriodsLastTick, 0u);

  ASSERT_TRUE(state_.pods.modify("team", "web", "", [](api::Pod& p) -> Result<Change> {
    p.spec.containers[0].resources.limits.cpu = q("4");
    return Change::kSpec;
  }));
  tick(60s);
  EXPECT_EQ(status("web").resources->limits.cpu, q("4"));
  EXPECT_DOUBLE_EQ(runtime("web").cpuLimitCores, 4.0);
  EXPECT_EQ(runtime("web").throttledPeriodsLastTick, 0u);
  EXPECT_DOUBLE_EQ(runtime("web").cpuUsageCores, 2.0);
}

TEST_F(KubeletCpuTest, ContentionSharesCpuByRequestsAndAccruesPsi) {
  addNode("n1", "2", "64Gi");
  addPod("big", "n1", {{.cpuRequest = "1500m"}});
  addPod("small", "n1", {{.cpuRequest = "500m"}});
  usage("big").cpu = 4.0;
  usage("small").cpu = 4.0;
  runFor(3min, 60s);

  EXPECT_NEAR(runtime("big").cpuUsageCores, 1.5, 1e-9);
  EXPECT_NEAR(runtime("small").cpuUsageCores, 0.5, 1e-9);
  EXPECT_NEAR(runtime("big").psiCpuWaitingSecondsTotal, 2 * 60 * 2.5, 1e-6);
  EXPECT_NEAR(runtime("small").psiCpuWaitingSecondsTotal, 2 * 60 * 3.5, 1e-6);
  EXPECT_NEAR(node("n1").psiCpuWaitingSecondsTotal, 2 * 60 * 6.0, 1e-6);
  EXPECT_NEAR(node("n1").cpuUsageCores, 2.0, 1e-9);
  EXPECT_NEAR(node("n1").cpuDemandCores, 8.0, 1e-9);
}

TEST_F(KubeletCpuTest, NoPsiWithoutContention) {
  addNode("n1", "16", "64Gi");
  addPod("big", "n1", {{.cpuRequest = "1500m"}});
  addPod("small", "n1", {{.cpuRequest = "500m"}});
  usage("big").cpu = 4.0;
  usage("small").cpu = 4.0;
  runFor(3min, 60s);
  EXPECT_DOUBLE_EQ(runtime("big").cpuUsageCores, 4.0);
  EXPECT_DOUBLE_EQ(runtime("small").cpuUsageCores, 4.0);
  EXPECT_DOUBLE_EQ(node("n1").psiCpuWaitingSecondsTotal, 0);
}

TEST_F(KubeletCpuTest, UnusedSharesGoToTheContainersThatWantMore) {
  addNode("n1", "2", "64Gi");
  addPod("idle", "n1", {{.cpuRequest = "1"}});
  addPod("busy", "n1", {{.cpuRequest = "1"}});
  addPod("besteffort", "n1", {{}});
  usage("idle").cpu = 0.2;
  usage("busy").cpu = 4.0;
  usage("besteffort").cpu = 1.0;
  runFor(2min, 60s);
  EXPECT_NEAR(runtime("idle").cpuUsageCores, 0.2, 1e-9);
  // busy and besteffort share 1.8 cores by weight 1024 : 2.
  EXPECT_NEAR(runtime("busy").cpuUsageCores, 1.8 * 1024 / 1026, 1e-9);
  EXPECT_NEAR(runtime("besteffort").cpuUsageCores, 1.8 * 2 / 1026, 1e-9);
  EXPECT_DOUBLE_EQ(runtime("idle").psiCpuWaitingSecondsTotal, 0);
}

TEST_F(KubeletCpuTest, Load1FollowsDemandWithOneMinuteDamping) {
  addNode("n1", "16", "64Gi");
  addPod("a", "n1", {{.cpuRequest = "1"}});
  addPod("b", "n1", {{.cpuRequest = "1"}});
  usage("a").cpu = 2.0;
  usage("b").cpu = 1.0;
  tick(60s);  // starts the pods
  EXPECT_DOUBLE_EQ(node("n1").load1, 0);
  tick(60s);
  EXPECT_NEAR(node("n1").load1, 3.0 * (1 - std::exp(-1.0)), 1e-9);
  runFor(15min, 60s);
  EXPECT_NEAR(node("n1").load1, 3.0, 1e-5);

  usage("a").cpu = 0;
  usage("b").cpu = 0;
  tick(60s);
  EXPECT_NEAR(node("n1").load1, 3.0 * std::exp(-1.0), 1e-4);
  runFor(15min, 60s);
  EXPECT_LT(node("n1").load1, 1e-5);
}

TEST_F(KubeletCpuTest, NotReadyWhileThrottledAboveTheConfiguredRatio) {
  options_.notReadyAboveThrottleRatio = 0.5;
  addNode("n1", "16", "64Gi");
  addPod("web", "n1", {{.cpuRequest = "1", .cpuLimit = "1"}});
  usage("web").cpu = 0.3;
  runFor(2min, 60s);
  EXPECT_TRUE(podReady("web"));

  usage("web").cpu = 2.0;
  tick(60s);
  EXPECT_FALSE(podReady("web"));
  EXPECT_FALSE(status("web").ready);

  usage("web").cpu = 0.3;
  tick(60s);
  EXPECT_TRUE(podReady("web"));
}

TEST_F(KubeletCpuTest, ThrottlingDoesNotAffectReadinessByDefault) {
  addNode("n1", "16", "64Gi");
  addPod("web", "n1", {{.cpuRequest = "1", .cpuLimit = "1"}});
  usage("web").cpu = 2.0;
  runFor(3min, 60s);
  EXPECT_TRUE(podReady("web"));
}

}  // namespace
}  // namespace attune::sim::testing
