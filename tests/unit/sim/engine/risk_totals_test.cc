// Risk per container-sample (risk_totals.h): the accumulator on explicit samples, which samples
// the kubelet's state gives, and the figures of a small simulated cluster, each against a value
// computed by hand in the comment beside it.
#include "sim/engine/risk_totals.h"

#include <gtest/gtest.h>

#include <string>

#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_codec.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;

constexpr double kMi = 1024.0 * 1024.0;
const Time kNow = Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5)) + 10min;

TEST(RiskTotalsTest, CpuFiguresPerSample) {
  RiskTotals t;
  // Uses 0.8 of a 0.5 request, asked for 1.0: above request, 0.2 short.
  t.add({.seconds = 60, .cpuRequestCores = 0.5, .cpuDemandCores = 1.0, .cpuUsageCores = 0.8});
  // Exactly at its request: not above it.
  t.add({.seconds = 60, .cpuRequestCores = 0.5, .cpuDemandCores = 0.5, .cpuUsageCores = 0.5});
  // No request at all: any usage is above it; ran 30 s of the tick.
  t.add({.seconds = 30, .cpuRequestCores = 0, .cpuDemandCores = 0.1, .cpuUsageCores = 0.1});
  // Well under its request, throttled: 0.3 short.
  t.add({.seconds = 60, .cpuRequestCores = 2, .cpuDemandCores = 1.5, .cpuUsageCores = 1.2});
  EXPECT_EQ(t.samples, 4);
  EXPECT_EQ(t.cpuAboveRequestSamples, 2);
  EXPECT_DOUBLE_EQ(t.sharePct(t.cpuAboveRequestSamples), 50.0);
  // 0.2 × 60 + 0 + 0 + 0.3 × 60 = 30 core-s.
  EXPECT_NEAR(t.cpuShortCoreSeconds, 30.0, 1e-9);
  // (0.8 − 0.5) × 60 + 0.1 × 30 = 18 + 3 = 21 core-s.
  EXPECT_NEAR(t.cpuAboveRequestCoreSeconds, 21.0, 1e-9);
}

TEST(RiskTotalsTest, MemoryAboveRequestAndAtLimit) {
  RiskTotals t;
  const auto sample = [](double request, double limit, double workingSet) {
    return RiskSample{.seconds = 60,
                      .memoryRequestBytes = request * kMi,
                      .memoryLimitBytes = limit * kMi,
                      .memoryWorkingSetBytes = workingSet * kMi};
  };
  t.add(sample(256, 512, 300));  // above request, under limit
  t.add(sample(256, 512, 256));  // at request: neither
  t.add(sample(256, 512, 512));  // at its limit: both
  t.add(sample(256, 512, 600));  // above the limit (OOM-killed): both
  t.add(sample(256, 0, 4096));   // no limit: above request only
  EXPECT_EQ(t.samples, 5);
  EXPECT_EQ(t.memoryAboveRequestSamples, 4);
  EXPECT_EQ(t.memoryAtLimitSamples, 2);
  EXPECT_DOUBLE_EQ(t.sharePct(t.memoryAboveRequestSamples), 80.0);  // 4 / 5
  EXPECT_DOUBLE_EQ(t.sharePct(t.memoryAtLimitSamples), 40.0);       // 2 / 5
}

TEST(RiskTotalsTest, PendingPodHoursAndTheMostAtOnce) {
  RiskTotals t;
  t.addPending(0, 60);
  t.addPending(3, 60);
  t.addPending(1, 30);
  // 3 × 60 + 1 × 30 = 210 pod-seconds; at most 3.
  EXPECT_DOUBLE_EQ(t.pendingPodSeconds, 210.0);
  EXPECT_EQ(t.pendingPodsMax, 3);
  EXPECT_EQ(t.samples, 0);
  EXPECT_EQ(t.sharePct(0), 0.0);  // no samples: 0, not NaN
}

PodRuntime runningPod() {
  PodRuntime pod;
  pod.phase = "Running";
  ContainerRuntime c;
  c.name = "app";
  c.running = true;
  c.activeSecondsLastTick = 60;
  c.cpuRequestCores = 0.25;
  c.cpuDemandCores = 0.5;
  c.cpuUsageCores = 0.4;
  c.memoryRequest = Bytes(100 << 20);
  c.memoryLimit = Bytes(200 << 20);
  c.memoryWorkingSet = Bytes(150 << 20);
  pod.containers.push_back(std::move(c));
  return pod;
}

TEST(RiskSampleTest, ARegularContainerThatRanIsOneSample) {
  const PodRuntime pod = runningPod();
  const auto s = sampleOf(pod, pod.containers[0], kNow);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->seconds, 60);
  EXPECT_EQ(s->cpuRequestCores, 0.25);
  EXPECT_EQ(s->cpuDemandCores, 0.5);
  EXPECT_EQ(s->cpuUsageCores, 0.4);
  EXPECT_EQ(s->memoryRequestBytes, 100 * kMi);
  EXPECT_EQ(s->memoryLimitBytes, 200 * kMi);
  EXPECT_EQ(s->memoryWorkingSetBytes, 150 * kMi);
}

TEST(RiskSampleTest, SidecarsContainersThatDidNotRunAndEndedPodsAreNotSamples) {
  PodRuntime pod = runningPod();
  pod.containers[0].sidecar = true;
  EXPECT_FALSE(sampleOf(pod, pod.containers[0], kNow).has_value());
  pod = runningPod();
  pod.containers[0].activeSecondsLastTick = 0;  // waiting in CrashLoopBackOff
  EXPECT_FALSE(sampleOf(pod, pod.containers[0], kNow).has_value());
  // A pod that ended before this tick keeps its last figures; they are not sampled again.
  pod = runningPod();
  pod.phase = "Succeeded";
  pod.containers[0].terminated =
      api::ContainerStateTerminated{0, "Completed", "", kNow - 2h, kNow - 1h};
  EXPECT_FALSE(sampleOf(pod, pod.containers[0], kNow).has_value());
  // One that ended at this tick ran in it.
  pod.containers[0].terminated->finishedAt = kNow;
  EXPECT_TRUE(sampleOf(pod, pod.containers[0], kNow).has_value());
}

TEST(RiskSampleTest, AContainerOomKilledNowIsSampledWithTheWorkingSetItWasKilledWith) {
  PodRuntime pod = runningPod();
  ContainerRuntime& c = pod.containers[0];
  c.running = false;
  c.lastOomKillAt = kNow;
  c.memoryAtLastOomKill = Bytes(201 << 20);
  c.memoryWorkingSet = Bytes(0);
  auto s = sampleOf(pod, c, kNow);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->memoryWorkingSetBytes, 201 * kMi);
  // An older kill does not count again.
  c.lastOomKillAt = kNow - 1min;
  s = sampleOf(pod, c, kNow);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->memoryWorkingSetBytes, 0);
}

// One 2-core node; `hot` (2 replicas) asks for 1.5 cores on a 0.5 request, `calm` for 0.2 on a
// 1-core request with its working set exactly at its limit, and `big` requests 4 cores and never
// fits.
constexpr const char* kCluster = R"(apiVersion: sim.attune.io/v1alpha1
kind: Scenario
metadata: {name: risk}
spec:
  start: "2026-01-05T00:00:00Z"
  duration: 1h
  tick: 60s
  nodePools: [{name: node, count: 1, cpu: "2", memory: 8Gi}]
  workloads:
  - kind: Deployment
    name: hot
    replicas: 2
    containers:
    - name: app
      requests: {cpu: 500m, memory: 256Mi}
      limits: {memory: 1Gi}
      model: {kind: steady, cpuCores: 1500m, memoryBytes: 300Mi, noise: 0}
  - kind: Deployment
    name: calm
    containers:
    - name: app
      requests: {cpu: "1", memory: 256Mi}
      limits: {memory: 256Mi}
      model: {kind: steady, cpuCores: 200m, memoryBytes: 256Mi, noise: 0}
  - kind: Deployment
    name: big
    containers:
    - name: app
      requests: {cpu: "4", memory: 1Gi}
      model: {kind: steady, cpuCores: 100m, memoryBytes: 100Mi, noise: 0}
)";

TEST(RiskTotalsTest, ASmallClusterUnderContention) {
  DecodedScenario d = decodeScenario(kCluster, {});
  ASSERT_TRUE(d.scenario.has_value());
  auto sim = Simulation::create(*d.scenario);
  ASSERT_TRUE(sim.has_value()) << sim.error().toString();
  ASSERT_TRUE((*sim)->runFor(10min).has_value());
  const RiskTotals r = (*sim)->totals().risk;
  // The pods are created, bound and started in tick 1 and run from tick 2: 3 containers × 9
  // ticks.
  EXPECT_EQ(r.samples, 27);
  // The node's 2 cores are short of 1.5 + 1.5 + 0.2: calm (weight 1024 of 2048) wants less than
  // its fair 1 core and gets its 0.2; the hot pods split the other 1.8: 0.9 each, 0.6 short.
  // Above request: the hot samples (0.9 > 0.5), 18 of 27.
  EXPECT_EQ(r.cpuAboveRequestSamples, 18);
  EXPECT_NEAR(r.sharePct(r.cpuAboveRequestSamples), 200.0 / 3, 1e-9);
  // 2 pods × 0.6 cores × 60 s × 9 ticks = 648 core-s.
  EXPECT_NEAR(r.cpuShortCoreSeconds, 648.0, 1e-6);
  // 2 × (0.9 − 0.5) × 60 × 9 = 432 core-s.
  EXPECT_NEAR(r.cpuAboveRequestCoreSeconds, 432.0, 1e-6);
  // Memory: hot's 300Mi is above its 256Mi request (18 samples); calm's 256Mi is at its limit
  // and not above its request (9 samples); nobody is OOM-killed (not above the limit).
  EXPECT_EQ(r.memoryAboveRequestSamples, 18);
  EXPECT_EQ(r.memoryAtLimitSamples, 9);
  EXPECT_EQ((*sim)->totals().oomKills, 0u);
  // `big` is pending at the end of all 10 ticks: 600 pod-s, at most 1 at once.
  EXPECT_DOUBLE_EQ(r.pendingPodSeconds, 600.0);
  EXPECT_EQ(r.pendingPodsMax, 1);
  // PSI waiting is the same unmet demand (no CPU limits, so no throttling).
  EXPECT_NEAR((*sim)->totals().psiWaitingSeconds, 648.0, 1e-6);
}

}  // namespace
}  // namespace attune::sim
