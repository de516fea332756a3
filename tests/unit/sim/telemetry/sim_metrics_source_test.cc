// SimMetricsSource over hand-filled kubelet counters: the PromQL-like semantics at each step.
#include "sim/telemetry/sim_metrics_source.h"

#include <gtest/gtest.h>

#include "telemetry_fixture.h"

namespace attune::sim {
namespace {

using namespace attune::literals;
using metrics::ContainerId;
using metrics::Range;
using metrics::Scope;
using testing::PodBuilder;
using testing::resources;
using testing::TelemetryFixture;

Time at(int minutes) { return TelemetryFixture::at(minutes); }

// The value of `series` at `t`, or nullopt when it has no point there.
std::optional<double> valueAt(const metrics::ContainerSeries& series, Time t) {
  for (const auto& p : series.points) {
    if (p.time == t) return p.value;
  }
  return std::nullopt;
}

class SimMetricsSourceTest : public ::testing::Test {
 protected:
  TelemetryFixture f;
  SimMetricsSource source{f.recorder, f.state};
};

TEST_F(SimMetricsSourceTest, CpuUsageIsTheRateOverTheWindowEndingAtEachStep) {
  f.addPod(PodBuilder("shop", "web").container("app", resources("500m", "", "", "")).build());
  ContainerRuntime& app = f.container("shop", "web", "app");
  for (int minute = 1; minute <= 10; ++minute) {
    TelemetryFixture::run(app, minute <= 5 ? 0.5 : 1.5, 100_Mi);
    f.tick();  // sample at `minute`
  }
  // Windows of 5 minutes tile the time line: [0, 5m] holds minutes 1..5, [5m, 10m] 5..10.
  auto cpu = source.cpuUsage(Scope{}, Range{at(0), at(10), std::chrono::minutes(5)});
  ASSERT_TRUE(cpu) << cpu.error().toString();
  ASSERT_EQ(cpu->size(), 1u);
  const auto& series = cpu->front();
  EXPECT_EQ(series.id, (ContainerId{"shop", "web", "app"}));
  ASSERT_EQ(series.points.size(), 2u);  // at 0 there is no sample at all
  EXPECT_EQ(series.points[0].time, at(5));
  EXPECT_DOUBLE_EQ(series.points[0].value, 0.5);
  EXPECT_EQ(series.points[1].time, at(10));
  EXPECT_DOUBLE_EQ(series.points[1].value, 1.5);

  // A 1-minute step still uses a 5-minute window; one sample alone makes no point.
  auto fine = source.cpuUsage(Scope{}, Range{at(0), at(10), std::chrono::minutes(1)});
  ASSERT_TRUE(fine);
  const auto& points = fine->front().points;
  EXPECT_FALSE(valueAt(fine->front(), at(1)));
  EXPECT_DOUBLE_EQ(*valueAt(fine->front(), at(2)), 0.5);
  // [2m, 7m]: samples 2..7, increases 30+30+30+90+90 over 300 s.
  EXPECT_DOUBLE_EQ(*valueAt(fine->front(), at(7)), 270.0 / 300.0);
  EXPECT_EQ(points.size(), 9u);  // minutes 2..10
}

TEST_F(SimMetricsSourceTest, PressureWaitingIsARateToo) {
  f.addPod(PodBuilder("shop", "web").container("app", {}).build());
  ContainerRuntime& app = f.container("shop", "web", "app");
  for (int minute = 1; minute <= 5; ++minute) {
    TelemetryFixture::run(app, 1, 100_Mi, 0, 0.25);
    f.tick();
  }
  auto psi = source.cpuPressureWaiting(Scope{}, Range{at(5), at(5), std::chrono::minutes(5)});
  ASSERT_TRUE(psi);
  ASSERT_EQ(psi->size(), 1u);
  EXPECT_DOUBLE_EQ(psi->front().points.at(0).value, 0.25);
}

TEST_F(SimMetricsSourceTest, ThrottleRatioDividesThrottledByElapsedPeriods) {
  f.addPod(PodBuilder("shop", "web").container("app", resources("", "", "1", "")).build());
  f.addPod(PodBuilder("shop", "idle").container("app", {}).build());
  ContainerRuntime& app = f.container("shop", "web", "app");
  for (int minute = 1; minute <= 10; ++minute) {
    TelemetryFixture::run(app, 1, 100_Mi, minute <= 5 ? 150 : 300);
    f.container("shop", "idle", "app").memoryWorkingSet = 10_Mi;  // running, no periods
    f.tick();
  }
  auto ratio = source.cpuThrottleRatio(Scope{}, Range{at(5), at(10), std::chrono::minutes(5)});
  ASSERT_TRUE(ratio);
  ASSERT_EQ(ratio->size(), 1u) << "a container without elapsed periods has no ratio";
  EXPECT_EQ(ratio->front().id.pod, "web");
  EXPECT_DOUBLE_EQ(*valueAt(ratio->front(), at(5)), 0.25);
  EXPECT_DOUBLE_EQ(*valueAt(ratio->front(), at(10)), 0.5);
}

TEST_F(SimMetricsSourceTest, MemoryIsTheLastSampleWithinTheLookback) {
  f.addPod(PodBuilder("shop", "web").container("app", {}).build());
  ContainerRuntime& app = f.container("shop", "web", "app");
  for (int minute = 1; minute <= 12; ++minute) {
    app.running = minute <= 4;  // stops after minute 4: no samples from minute 5 on
    TelemetryFixture::run(app, 0.1, Bytes(minute * (1 << 20)));
    f.tick();
  }
  auto memory = source.memoryWorkingSet(Scope{}, Range{at(0), at(12), std::chrono::minutes(1)});
  ASSERT_TRUE(memory);
  ASSERT_EQ(memory->size(), 1u);
  const auto& s = memory->front();
  EXPECT_FALSE(valueAt(s, at(0)));
  EXPECT_DOUBLE_EQ(*valueAt(s, at(3)), 3 << 20);
  EXPECT_DOUBLE_EQ(*valueAt(s, at(8)), 4 << 20) << "minute 4 is within (3m, 8m]";
  EXPECT_FALSE(valueAt(s, at(9))) << "minute 4 is outside (4m, 9m]";
  EXPECT_EQ(s.points.size(), 8u);  // minutes 1..8
}

TEST_F(SimMetricsSourceTest, ContainersWithoutSamplesHaveNoSeries) {
  f.addPod(PodBuilder("shop", "web").container("app", {}).build());
  f.addPod(PodBuilder("shop", "waiting").container("app", {}).build());
  f.container("shop", "waiting", "app").running = false;
  for (int minute = 1; minute <= 5; ++minute) {
    TelemetryFixture::run(f.container("shop", "web", "app"), 0.2, 1_Mi);
    f.tick();
  }
  const Range range{at(0), at(5), std::chrono::minutes(5)};
  for (auto result : {source.cpuUsage(Scope{}, range), source.memoryWorkingSet(Scope{}, range),
                      source.cpuThrottleRatio(Scope{}, range)}) {
    ASSERT_TRUE(result);
    for (const auto& s : *result) EXPECT_NE(s.id.pod, "waiting");
  }
  // A range before anything was recorded is empty, not zeros.
  auto before = source.cpuUsage(Scope{}, Range{at(-60), at(-10), std::chrono::minutes(5)});
  ASSERT_TRUE(before);
  EXPECT_TRUE(before->empty());
}

TEST_F(SimMetricsSourceTest, AContainerGoneBeforeTheWindowHasNoSeriesOneAtItsEdgeHasItsPoint) {
  f.addPod(PodBuilder("shop", "old").container("app", {}).build());
  f.addPod(PodBuilder("shop", "new").container("app", {}).build());
  for (int minute = 1; minute <= 12; ++minute) {
    ContainerRuntime& old = f.container("shop", "old", "app");
    old.running = minute <= 4;  // its last sample is at minute 4
    TelemetryFixture::run(old, 0.5, 4_Mi);
    TelemetryFixture::run(f.container("shop", "new", "app"), 0.2, 1_Mi);
    f.tick();
  }
  const auto pods = [](const std::vector<metrics::ContainerSeries>& series) {
    std::vector<std::string> out;
    for (const auto& s : series) out.push_back(s.id.pod);
    return out;
  };
  // From minute 8 the 5-minute windows reach back to minute 3: minute 4 is still seen.
  const Range edge{at(8), at(12), std::chrono::minutes(1)};
  auto memory = source.memoryWorkingSet(Scope{}, edge);
  auto cpu = source.cpuUsage(Scope{}, edge);
  ASSERT_TRUE(memory);
  ASSERT_TRUE(cpu);
  EXPECT_EQ(pods(*memory), (std::vector<std::string>{"new", "old"}));
  EXPECT_EQ(pods(*cpu), (std::vector<std::string>{"new", "old"}));
  EXPECT_DOUBLE_EQ(*valueAt(memory->back(), at(8)), 4 << 20);
  EXPECT_EQ(memory->back().points.size(), 1u);
  // From minute 10 they start after it: the old pod has no series.
  const Range later{at(10), at(12), std::chrono::minutes(1)};
  for (auto result : {source.cpuUsage(Scope{}, later), source.memoryWorkingSet(Scope{}, later),
                      source.cpuThrottleRatio(Scope{}, later)}) {
    ASSERT_TRUE(result);
    EXPECT_EQ(pods(*result), (std::vector<std::string>{"new"}));
  }
}

TEST_F(SimMetricsSourceTest, ScopeSelectsNamespaces) {
  f.addPod(PodBuilder("a", "p").container("app", {}).build());
  f.addPod(PodBuilder("b", "p").container("app", {}).build());
  f.addPod(PodBuilder("c", "p").container("app", {}).build());
  for (int minute = 1; minute <= 5; ++minute) {
    for (const char* ns : {"a", "b", "c"})
      TelemetryFixture::run(f.container(ns, "p", "app"), 1, 1_Mi);
    f.tick();
  }
  auto cpu = source.cpuUsage(Scope{{"c", "a"}}, Range{at(5), at(5), std::chrono::minutes(5)});
  ASSERT_TRUE(cpu);
  ASSERT_EQ(cpu->size(), 2u);
  EXPECT_EQ(cpu->at(0).id.ns, "a");
  EXPECT_EQ(cpu->at(1).id.ns, "c");
  auto all = source.memoryWorkingSet(Scope{}, Range{at(5), at(5), std::chrono::minutes(5)});
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 3u);
  auto restarts = source.restartCounts(Scope{{"b"}}, f.clock.now());
  ASSERT_TRUE(restarts);
  ASSERT_EQ(restarts->size(), 1u);
  EXPECT_EQ(restarts->front().id.ns, "b");
}

TEST_F(SimMetricsSourceTest, ExcludedContainersAreNeverReturned) {
  f.addPod(PodBuilder("shop", "web")
               .container("app", resources("100m", "", "64Mi", ""))
               .container("istio-proxy", resources("10m", "", "32Mi", ""))
               .build());
  f.addPod(
      PodBuilder("shop", "mesh").container("istio-proxy", resources("10m", "", "", "")).build());
  for (int minute = 1; minute <= 5; ++minute) {
    for (const auto& [pod, name] :
         {std::pair{"web", "app"}, {"web", "istio-proxy"}, {"mesh", "istio-proxy"}}) {
      ContainerRuntime& c = f.container("shop", pod, name);
      TelemetryFixture::run(c, 0.5, 10_Mi, 60, 0.1);
      if (minute == 3) {
        c.lastOomKillAt = at(minute) - std::chrono::seconds(10);
        c.memoryAtLastOomKill = 10_Mi;
      }
    }
    f.tick();
  }
  const Range range{at(0), at(5), std::chrono::minutes(5)};
  const ContainerId app{"shop", "web", "app"};
  const auto onlyApp = [&](const auto& result) {
    EXPECT_TRUE(result) << result.error().toString();
    std::vector<ContainerId> ids;
    for (const auto& x : *result) ids.push_back(x.id);
    return ids == std::vector<ContainerId>{app};
  };
  const Scope scope{{"shop"}, {"istio-proxy"}};
  EXPECT_EQ(source.cpuUsage(Scope{{"shop"}}, range)->size(), 3u);
  EXPECT_TRUE(onlyApp(source.cpuUsage(scope, range)));
  EXPECT_TRUE(onlyApp(source.cpuPressureWaiting(scope, range)));
  EXPECT_TRUE(onlyApp(source.memoryWorkingSet(scope, range)));
  EXPECT_TRUE(onlyApp(source.cpuThrottleRatio(scope, range)));
  EXPECT_EQ(source.oomKills(Scope{}, range)->size(), 3u);
  EXPECT_TRUE(onlyApp(source.oomKills(scope, range)));
  EXPECT_TRUE(onlyApp(source.restartCounts(scope, f.clock.now())));
  EXPECT_TRUE(onlyApp(source.resources(scope, f.clock.now())));
  // Owners are per pod: "mesh", whose only container is excluded, keeps its owner.
  EXPECT_EQ(source.podOwners(scope, f.clock.now())->size(), 2u);
}

TEST_F(SimMetricsSourceTest, PodsOfTheSameNameAreCombinedAsSumAndMax) {
  // A StatefulSet pod deleted and recreated: two uids, one (namespace, pod, container).
  f.addPod(PodBuilder("data", "db-0").container("pg", {}).build());
  for (int minute = 1; minute <= 3; ++minute) {
    TelemetryFixture::run(f.container("data", "db-0", "pg"), 1, 300_Mi);
    f.tick();
  }
  const std::string oldUid = f.pods.begin()->first;
  ASSERT_TRUE(f.state.pods.erase("data", "db-0"));
  f.pods.erase(oldUid);
  f.addPod(PodBuilder("data", "db-0").container("pg", {}).build());
  for (int minute = 4; minute <= 6; ++minute) {
    TelemetryFixture::run(f.container("data", "db-0", "pg"), 2, 100_Mi);
    f.tick();
  }
  auto cpu = source.cpuUsage(Scope{}, Range{at(6), at(6), std::chrono::minutes(5)});
  ASSERT_TRUE(cpu);
  ASSERT_EQ(cpu->size(), 1u);
  // [1m, 6m]: the old pod's samples 1..3 (rate 1) plus the new pod's 4..6 (rate 2).
  EXPECT_DOUBLE_EQ(cpu->front().points.at(0).value, 3.0);
  auto memory = source.memoryWorkingSet(Scope{}, Range{at(4), at(4), std::chrono::minutes(1)});
  ASSERT_TRUE(memory);
  EXPECT_DOUBLE_EQ(memory->front().points.at(0).value, static_cast<double>((300_Mi).value()));
}

TEST_F(SimMetricsSourceTest, OomKillsInTheRangeWithTheirMemory) {
  f.addPod(PodBuilder("shop", "web").container("app", resources("", "", "", "256Mi")).build());
  ContainerRuntime& app = f.container("shop", "web", "app");
  for (int minute = 1; minute <= 10; ++minute) {
    TelemetryFixture::run(app, 0.1, 200_Mi);
    if (minute == 4 || minute == 8) {
      app.lastOomKillAt = at(minute) - std::chrono::seconds(30);
      app.memoryAtLastOomKill = Bytes((256_Mi).value() + minute);
    }
    f.tick();  // the kill stays in lastOomKillAt on later ticks: recorded once
  }
  auto kills = source.oomKills(Scope{}, Range{at(0), at(10), std::chrono::minutes(5)});
  ASSERT_TRUE(kills);
  ASSERT_EQ(kills->size(), 2u);
  EXPECT_EQ(kills->at(0).id, (ContainerId{"shop", "web", "app"}));
  EXPECT_EQ(kills->at(0).time, at(4) - std::chrono::seconds(30));
  EXPECT_EQ(kills->at(0).memoryAtKill, Bytes((256_Mi).value() + 4));
  EXPECT_EQ(kills->at(1).time, at(8) - std::chrono::seconds(30));

  auto later = source.oomKills(Scope{}, Range{at(5), at(10), std::chrono::minutes(5)});
  ASSERT_TRUE(later);
  ASSERT_EQ(later->size(), 1u);
  auto elsewhere = source.oomKills(Scope{{"other"}}, Range{at(0), at(10), std::chrono::minutes(5)});
  ASSERT_TRUE(elsewhere);
  EXPECT_TRUE(elsewhere->empty());
}

TEST_F(SimMetricsSourceTest, RestartsAndResourcesComeFromTheState) {
  f.addPod(testing::burstablePod());
  ASSERT_TRUE(f.state.pods.modify("team", "api", "", [](api::Pod& pod) {
    pod.status.containerStatuses[0].restartCount = 3;
    return Result<Change>(Change::kMetadata);
  }));
  auto restarts = source.restartCounts(Scope{}, f.clock.now());
  ASSERT_TRUE(restarts);
  ASSERT_EQ(restarts->size(), 2u);
  EXPECT_EQ(restarts->at(0).id, (ContainerId{"team", "api", "app"}));
  EXPECT_EQ(restarts->at(0).restarts, 3);
  EXPECT_EQ(restarts->at(1).restarts, 0);

  auto res = source.resources(Scope{}, f.clock.now());
  ASSERT_TRUE(res);
  ASSERT_EQ(res->size(), 2u);
  const auto& app = res->at(0);
  EXPECT_EQ(app.id.container, "app");
  EXPECT_EQ(app.cpuRequest, 250_m);
  EXPECT_EQ(app.cpuLimit, 1000_m);
  EXPECT_EQ(app.memoryRequest, 128_Mi);
  EXPECT_EQ(app.memoryLimit, 512_Mi);
  const auto& sidecar = res->at(1);
  EXPECT_EQ(sidecar.id.container, "sidecar");
  EXPECT_EQ(sidecar.cpuRequest, 50_m);
  EXPECT_FALSE(sidecar.cpuLimit);
  EXPECT_FALSE(sidecar.memoryLimit);
}

TEST_F(SimMetricsSourceTest, OwnersResolveToTheTopLevelWorkload) {
  const auto owned = [](std::string ns, std::string name, std::string kind, std::string owner) {
    api::Pod pod = PodBuilder(std::move(ns), std::move(name)).container("app", {}).build();
    pod.metadata.ownerReferences.push_back({"v1", std::move(kind), std::move(owner), "u", true});
    return pod;
  };
  api::Deployment web;
  web.metadata = {.name = "web", .namespace_ = "shop"};
  ASSERT_TRUE(f.state.deployments.create(web));
  api::ReplicaSet rs;
  rs.metadata = {.name = "web-7d9c5", .namespace_ = "shop"};
  rs.metadata.ownerReferences.push_back({"apps/v1", "Deployment", "web", "u", true});
  ASSERT_TRUE(f.state.replicaSets.create(rs));
  api::ReplicaSet bare;
  bare.metadata = {.name = "legacy-5f6g7", .namespace_ = "shop"};
  ASSERT_TRUE(f.state.replicaSets.create(bare));
  api::Job nightly;
  nightly.metadata = {.name = "nightly-1", .namespace_ = "batch"};
  nightly.metadata.ownerReferences.push_back({"batch/v1", "CronJob", "nightly", "u", true});
  ASSERT_TRUE(f.state.jobs.create(nightly));
  api::Job migrate;
  migrate.metadata = {.name = "migrate", .namespace_ = "batch"};
  ASSERT_TRUE(f.state.jobs.create(migrate));

  f.addPod(owned("shop", "web-7d9c5-abcde", "ReplicaSet", "web-7d9c5"));
  f.addPod(owned("shop", "legacy-5f6g7-x", "ReplicaSet", "legacy-5f6g7"));
  f.addPod(owned("batch", "nightly-1-q", "Job", "nightly-1"));
  f.addPod(owned("batch", "migrate-k", "Job", "migrate"));
  f.addPod(owned("data", "db-0", "StatefulSet", "db"));
  f.addPod(PodBuilder("data", "lonely").container("app", {}).build());

  auto owners = source.podOwners(Scope{}, f.clock.now());
  ASSERT_TRUE(owners);
  std::map<std::string, api::WorkloadRef> byPod;
  for (const auto& o : *owners) byPod[o.pod] = o.workload;
  EXPECT_EQ(byPod["web-7d9c5-abcde"], (api::WorkloadRef{"shop", "Deployment", "web"}));
  EXPECT_EQ(byPod["legacy-5f6g7-x"], (api::WorkloadRef{"shop", "ReplicaSet", "legacy-5f6g7"}));
  EXPECT_EQ(byPod["nightly-1-q"], (api::WorkloadRef{"batch", "CronJob", "nightly"}));
  EXPECT_EQ(byPod["migrate-k"], (api::WorkloadRef{"batch", "Job", "migrate"}));
  EXPECT_EQ(byPod["db-0"], (api::WorkloadRef{"data", "StatefulSet", "db"}));
  EXPECT_EQ(byPod["lonely"], (api::WorkloadRef{"data", "Pod", "lonely"}));
  EXPECT_EQ(owners->size(), 6u);

  auto shop = source.podOwners(Scope{{"shop"}}, f.clock.now());
  ASSERT_TRUE(shop);
  EXPECT_EQ(shop->size(), 2u);
}

TEST_F(SimMetricsSourceTest, NodeLoadAndCapacity) {
  ASSERT_TRUE(f.state.nodes.create(testing::readyNode("n1", "4", "16Gi")));  // allocatable only
  api::Node n2 = testing::readyNode("n2", "7500m", "30Gi");
  n2.status.capacity.cpu = Quantity::parse("8").value();
  n2.status.capacity.memory = Quantity::parse("32Gi").value();
  ASSERT_TRUE(f.state.nodes.create(n2));
  api::Node bare;
  bare.metadata.name = "n3";  // reports nothing
  ASSERT_TRUE(f.state.nodes.create(bare));
  NodeRuntime& n1 = f.addNode("n1");
  for (int minute = 1; minute <= 3; ++minute) {
    n1.load1 = 0.5 * minute;
    f.tick();
  }
  auto load = source.nodeLoad(Range{at(0), at(3), std::chrono::minutes(1)});
  ASSERT_TRUE(load);
  ASSERT_EQ(load->size(), 1u);
  EXPECT_EQ(load->front().node, "n1");
  ASSERT_EQ(load->front().points.size(), 3u);
  EXPECT_DOUBLE_EQ(load->front().points[2].value, 1.5);

  auto capacity = source.nodeCapacity(f.clock.now());
  ASSERT_TRUE(capacity);
  ASSERT_EQ(capacity->size(), 2u);
  EXPECT_EQ(capacity->at(0).node, "n1");
  EXPECT_EQ(capacity->at(0).cpu, 4000_m);
  EXPECT_EQ(capacity->at(0).memory, 16_Gi);
  EXPECT_EQ(capacity->at(1).cpu, 8000_m);
  EXPECT_EQ(capacity->at(1).memory, 32_Gi);
}

TEST_F(SimMetricsSourceTest, InvalidRangesAreErrors) {
  auto zeroStep = source.cpuUsage(Scope{}, Range{at(0), at(10), Duration::zero()});
  ASSERT_FALSE(zeroStep);
  EXPECT_EQ(zeroStep.error().code, ErrorCode::kInvalidArgument);
  auto backwards = source.memoryWorkingSet(Scope{}, Range{at(10), at(0), testing::kTick});
  ASSERT_FALSE(backwards);
  EXPECT_EQ(backwards.error().field, "end");
}

}  // namespace
}  // namespace attune::sim
