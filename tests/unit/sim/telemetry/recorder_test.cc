// The recorder's storage: samples of running containers as counter increases, change logs of
// status and resources, OOM events, owners, and retention.
#include "sim/telemetry/recorder.h"

#include <gtest/gtest.h>

#include "telemetry_fixture.h"

namespace attune::sim {
namespace {

using namespace attune::literals;
using testing::PodBuilder;
using testing::resources;
using testing::TelemetryFixture;

// The absolute cpu counter at each sample of `c`.
std::vector<double> cpuCounter(const RecordedContainer& c) {
  std::vector<double> out;
  double value = c.bases.cpuSeconds;
  for (const auto& s : c.samples) out.push_back(value += s.cpuSeconds);
  return out;
}

const RecordedContainer& only(const Recorder& r, std::string_view pod, std::string_view name) {
  for (const auto& c : r.containers()) {
    if (r.str(r.pods()[c.pod].name) == pod && r.str(c.name) == name) return c;
  }
  throw std::out_of_range("no recorded container");
}

TEST(RecorderTest, SamplesStayCompact) {
  static_assert(sizeof(ContainerSample) <= 32);
  static_assert(sizeof(NodeSample) <= 32);
  SUCCEED();
}

TEST(RecorderTest, RunningContainersAreSampledAsCounterIncreases) {
  TelemetryFixture f;
  f.addPod(testing::burstablePod());
  ContainerRuntime& app = f.container("team", "api", "app");
  ContainerRuntime& sidecar = f.container("team", "api", "sidecar");
  app.cpuUsageSecondsTotal = 1000;  // the kubelet ran it before recording started
  for (int minute = 1; minute <= 4; ++minute) {
    TelemetryFixture::run(app, 0.5, 64_Mi, 60, 0.1);
    sidecar.running = minute != 3;
    if (sidecar.running) TelemetryFixture::run(sidecar, 0.25, 8_Mi);
    f.tick();
  }
  const Recorder& r = f.recorder;
  ASSERT_EQ(r.endTick() - r.firstTick(), 4u);
  EXPECT_EQ(r.tickTime(0), TelemetryFixture::at(1));
  const RecordedContainer& a = only(r, "api", "app");
  ASSERT_EQ(a.samples.size(), 4u);
  EXPECT_EQ(cpuCounter(a), (std::vector<double>{1030, 1060, 1090, 1120}));
  EXPECT_EQ(a.samples[1].periods, 600u);
  EXPECT_EQ(a.samples[1].throttled, 60u);
  EXPECT_FLOAT_EQ(a.samples[1].psiWaitingSeconds, 6.0f);
  EXPECT_EQ(a.samples[2].memoryBytes, static_cast<float>((64_Mi).value()));

  const RecordedContainer& s = only(r, "api", "sidecar");
  ASSERT_EQ(s.samples.size(), 3u) << "no sample while not running";
  EXPECT_EQ(s.samples[2].tick, 3u);
  EXPECT_EQ(cpuCounter(s), (std::vector<double>{15, 30, 45}));
  EXPECT_EQ(r.sampleCount(), 7u);
}

TEST(RecorderTest, PodsThatLeaveKeepTheirHistoryAndNewOnesAreAdded) {
  TelemetryFixture f;
  f.addPod(PodBuilder("team", "a").container("app", {}).build());
  f.tick();
  f.pods.clear();
  f.addPod(PodBuilder("team", "b").container("app", {}).build());
  f.tick();
  f.tick();
  const Recorder& r = f.recorder;
  ASSERT_EQ(r.pods().size(), 2u);
  EXPECT_EQ(r.pods()[0].firstTick, 0u);
  EXPECT_EQ(r.pods()[0].lastTick, 0u);
  EXPECT_EQ(r.pods()[1].firstTick, 1u);
  EXPECT_EQ(r.pods()[1].lastTick, 2u);
  EXPECT_EQ(only(r, "a", "app").samples.size(), 1u);
  EXPECT_EQ(only(r, "b", "app").samples.size(), 2u);
}

TEST(RecorderTest, StatusResourcesAndOomKillsAreLoggedOnChange) {
  TelemetryFixture f;
  f.addPod(PodBuilder("team", "web").container("app", resources("100m", "64Mi", "", "")).build());
  ContainerRuntime& app = f.container("team", "web", "app");
  f.tick();
  f.tick();
  ASSERT_TRUE(f.state.pods.modify("team", "web", "", [](api::Pod& pod) {
    auto& s = pod.status.containerStatuses[0];
    s.restartCount = 1;
    s.lastState.terminated = api::ContainerStateTerminated{137, "OOMKilled", "", {}, {}};
    pod.spec.containers[0].resources.requests.cpu = Quantity::parse("250m").value();
    return Result<Change>(Change::kSpec);
  }));
  app.lastOomKillAt = f.clock.now();
  app.memoryAtLastOomKill = 70_Mi;
  f.tick();
  f.tick();
  const RecordedContainer& c = only(f.recorder, "web", "app");
  ASSERT_EQ(c.status.size(), 2u);
  EXPECT_EQ(c.status[0].tick, 0u);
  EXPECT_EQ(c.status[0].restarts, 0);
  EXPECT_FALSE(c.status[0].lastTerminatedReason);
  EXPECT_EQ(c.status[1].tick, 2u);
  EXPECT_EQ(c.status[1].restarts, 1);
  EXPECT_EQ(f.recorder.str(*c.status[1].lastTerminatedReason), "OOMKilled");
  ASSERT_EQ(c.resources.size(), 2u);
  EXPECT_EQ(c.resources[0].cpuRequest, 100_m);
  EXPECT_EQ(c.resources[0].memoryRequest, 64_Mi);
  EXPECT_FALSE(c.resources[0].cpuLimit);
  EXPECT_EQ(c.resources[1].cpuRequest, 250_m);
  ASSERT_EQ(c.ooms.size(), 1u);
  EXPECT_EQ(c.ooms[0].memoryAtKill, 70_Mi);
}

TEST(RecorderTest, OwnersAreRecordedWhenPodsAreFirstSeen) {
  TelemetryFixture f;
  api::ReplicaSet rs;
  rs.metadata.namespace_ = "shop";
  rs.metadata.name = "web-1";
  rs.metadata.ownerReferences.push_back({"apps/v1", "Deployment", "web", "u1", true});
  ASSERT_TRUE(f.state.replicaSets.create(rs));
  api::Pod pod = PodBuilder("shop", "web-1-a").container("app", {}).build();
  pod.metadata.ownerReferences.push_back({"apps/v1", "ReplicaSet", "web-1", "u2", true});
  f.addPod(pod);
  f.addPod(PodBuilder("shop", "lonely").container("app", {}).build());
  f.tick();
  const Recorder& r = f.recorder;
  ASSERT_EQ(r.pods().size(), 2u);
  for (const auto& p : r.pods()) {
    ASSERT_TRUE(p.owner);
    if (r.str(p.name) == "lonely") {
      EXPECT_EQ(r.str(p.owner->kind), "");
    } else {
      EXPECT_EQ(r.str(p.owner->kind), "ReplicaSet");
      EXPECT_TRUE(p.owner->controller);
    }
  }
  ASSERT_EQ(r.parents().size(), 1u);
  EXPECT_EQ(r.str(r.parents().begin()->second.kind), "Deployment");
  EXPECT_EQ(r.str(r.parents().begin()->second.name), "web");
}

TEST(RecorderTest, RetentionDropsOldSamplesAndKeepsCountersAbsolute) {
  TelemetryFixture f(RecorderOptions{std::chrono::minutes(16)});
  f.addPod(PodBuilder("team", "web").container("app", {}).build());
  f.addNode("n1");
  ContainerRuntime& app = f.container("team", "web", "app");
  for (int minute = 1; minute <= 60; ++minute) {
    TelemetryFixture::run(app, 0.5, 1_Mi);
    f.nodes["n1"].cpuSecondsTotal += 60;
    if (minute == 10) {
      app.lastOomKillAt = f.clock.now();
      app.memoryAtLastOomKill = 2_Mi;
    }
    f.tick();
  }
  const Recorder& r = f.recorder;
  // Pruned in batches once 2 minutes (an eighth) beyond the 16 minutes have expired.
  EXPECT_GE(r.tickTime(r.firstTick()), TelemetryFixture::at(60) - std::chrono::minutes(18));
  EXPECT_LE(r.endTick() - r.firstTick(), 19u);
  const RecordedContainer& c = only(r, "web", "app");
  ASSERT_FALSE(c.samples.empty());
  EXPECT_EQ(c.samples.front().tick, r.firstTick());
  // The counter at the first kept sample is what the kubelet reported then: 30 s per minute.
  const int firstMinute = static_cast<int>(r.firstTick()) + 1;
  EXPECT_DOUBLE_EQ(cpuCounter(c).front(), 30.0 * firstMinute);
  EXPECT_DOUBLE_EQ(cpuCounter(c).back(), 30.0 * 60);
  EXPECT_TRUE(c.ooms.empty()) << "the kill at minute 10 is older than the retention";
  const RecordedNode& node = r.nodes().front();
  double nodeCpu = node.cpuSecondsBase;
  for (const auto& s : node.samples) nodeCpu += s.cpuSeconds;
  EXPECT_DOUBLE_EQ(nodeCpu, 3600.0);
}

}  // namespace
}  // namespace attune::sim
