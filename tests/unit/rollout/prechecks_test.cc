// The pre-checks before a resize, one rule per test: opt-out annotations, excluded containers,
// active rollouts, QoS preservation, LimitRange, ResourceQuota, node capacity, HPA conflicts.
#include "rollout/prechecks.h"

#include <gtest/gtest.h>

#include "rollout/planner.h"
#include "rollout_testing.h"

namespace attune::rollout {
namespace {

using namespace testing;

const api::AttunePolicy kAuto = policy(api::UpdateMode::kAuto);

TEST(OptOut, SkipAnnotationOnThePodSkipsThatPod) {
  auto ps = pods(2);
  ps[0].metadata.annotations["attune.io/skip"] = "true";
  ps[1].metadata.annotations["attune.io/skip"] = "false";  // only "true" opts out
  Plan plan = planRollout(kAuto, {{web(ps)}}, t0());
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-1"}));
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web-0:OptOut"}));
}

TEST(OptOut, SkipAnnotationOnTheWorkloadSkipsEveryPod) {
  auto ps = pods(2);
  WorkloadInput w = web(ps);
  w.metadata.annotations["attune.io/skip"] = "true";
  Plan plan = planRollout(kAuto, {{w}}, t0());
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web:OptOut"}));
}

TEST(Exclusion, ExcludedContainersAreNeverResized) {
  auto ps = pods(1);
  addContainer(ps[0], "istio-proxy", resources("100m", "128Mi"));
  addContainer(ps[0], "log-agent", resources("100m", "128Mi"));
  WorkloadInput w = web(ps);
  w.targets["istio-proxy"] = target(50_m, 64_Mi);  // a known sidecar
  w.targets["log-agent"] = target(50_m, 64_Mi);
  api::AttunePolicy p = kAuto;
  p.spec.excludedContainers = {"log-agent"};
  Plan plan = planRollout(p, {{w}}, t0());
  ASSERT_EQ(plan.all<ResizeAction>().size(), 1u);
  const ResizeAction& r = *plan.all<ResizeAction>()[0];
  ASSERT_EQ(r.containers.size(), 1u);
  EXPECT_EQ(r.containers[0].name, "app");
  EXPECT_EQ(r.record.containers.size(), 1u);

  // Only excluded containers differ from their target: nothing to do.
  w.targets.erase("app");
  EXPECT_TRUE(planRollout(p, {{w}}, t0()).actions.empty());
}

TEST(ActiveRollout, DefersTheWholeWorkload) {
  auto ps = pods(3);
  WorkloadInput w = web(ps);
  w.updatedReplicas = 2;
  Plan plan = planRollout(kAuto, {{w}}, t0());
  EXPECT_TRUE(resized(plan).empty());
  ASSERT_EQ(plan.all<DeferAction>().size(), 1u);
  EXPECT_EQ(plan.all<DeferAction>()[0]->reason, DeferReason::kActiveRollout);
}

TEST(Qos, GuaranteedPodUnderRequestsOnlyIsBlocked) {
  auto ps = std::deque<api::Pod>{pod("web-0", resources("500m", "512Mi", "500m", "512Mi"))};
  Plan plan = planRollout(kAuto, {{web(ps)}}, t0());
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web-0:QoSChange"}));
}

TEST(Qos, GuaranteedPodMovesRequestsAndLimitsTogether) {
  auto ps = std::deque<api::Pod>{pod("web-0", resources("500m", "512Mi", "500m", "512Mi"))};
  api::AttunePolicy p = kAuto;
  p.spec.cpu.controlledValues = api::ControlledValues::kRequestsAndLimits;
  p.spec.memory.controlledValues = api::ControlledValues::kRequestsAndLimits;
  // The memory limit decreases: a server that lowers it in place, and usage well below it.
  RolloutInput input{{web(ps)}};
  input.serverVersion = *api::parseServerVersion("v1.34.0");
  input.memoryUsage = [](const api::Pod& pod, std::string_view c) -> std::optional<Bytes> {
    if (pod.metadata.name != "web-0" || c != "app") return std::nullopt;
    return 100_Mi;
  };
  Plan plan = planRollout(p, input, t0());
  ASSERT_EQ(plan.all<ResizeAction>().size(), 1u);
  EXPECT_EQ(plan.all<ResizeAction>()[0]->containers[0].resources,
            resources("250m", "384Mi", "250m", "384Mi"));
}

TEST(Qos, CheckComparesTheWouldBeClass) {
  api::Pod p = pod("web-0", resources("500m", "512Mi", "500m", "512Mi"));
  api::PodSpec after = p.spec;
  EXPECT_FALSE(checkQos(p, after));
  after.containers[0].resources = resources("250m", "512Mi", "500m", "512Mi");
  EXPECT_TRUE(checkQos(p, after));
}

api::LimitRange limitRange(std::string_view minCpu, std::string_view maxMemory) {
  api::LimitRange lr;
  lr.metadata.namespace_ = "team";
  lr.metadata.name = "limits";
  api::LimitRangeItem item;
  item.type = "Container";
  if (!minCpu.empty()) item.min.cpu = q(minCpu);
  if (!maxMemory.empty()) item.max.memory = q(maxMemory);
  lr.limits.push_back(item);
  return lr;
}

TEST(LimitRange, TargetBelowTheMinimumIsSkipped) {
  auto ps = pods(1);
  std::vector<api::LimitRange> lrs{limitRange("300m", "")};
  RolloutInput in{{web(ps)}};
  in.limitRanges = lrs;
  EXPECT_EQ(skips(planRollout(kAuto, in, t0())), (std::vector<std::string>{"web-0:LimitRange"}));

  lrs[0].metadata.namespace_ = "elsewhere";  // another namespace's LimitRange does not apply
  EXPECT_EQ(resized(planRollout(kAuto, in, t0())).size(), 1u);
  lrs = {limitRange("200m", "")};
  in.limitRanges = lrs;
  EXPECT_EQ(resized(planRollout(kAuto, in, t0())).size(), 1u);
}

api::ResourceQuota quota(std::string_view hardCpu, std::string_view usedCpu) {
  api::ResourceQuota rq;
  rq.metadata.namespace_ = "team";
  rq.metadata.name = "compute";
  rq.hard.set("requests.cpu", q(hardCpu));
  rq.used.set("requests.cpu", q(usedCpu));
  return rq;
}

TEST(ResourceQuota, IncreaseBeyondHeadroomIsSkipped) {
  auto ps = pods(2);
  WorkloadInput w = web(ps);
  w.targets["app"] = target(800_m, 512_Mi);                     // +300m per pod
  std::vector<api::ResourceQuota> quotas{quota("4", "3500m")};  // 500m left
  RolloutInput in{{w}};
  in.quotas = quotas;
  Plan plan = planRollout(kAuto, in, t0());
  // The first increase fits; the second does not fit in what the first left.
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-0"}));
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web-1:ResourceQuota"}));
}

TEST(ResourceQuota, DecreasesAreNeverBlocked) {
  auto ps = pods(2);
  std::vector<api::ResourceQuota> quotas{quota("4", "4")};  // exhausted
  RolloutInput in{{web(ps)}};                               // 500m -> 250m
  in.quotas = quotas;
  EXPECT_EQ(resized(planRollout(kAuto, in, t0())).size(), 2u);
}

TEST(NodeCapacity, RequestsAboveAllocatableAreSkipped) {
  auto ps = pods(1);
  addContainer(ps[0], "worker", resources("1500m", "256Mi"));
  WorkloadInput w = web(ps);
  w.targets["app"] = target(800_m, 512_Mi);  // pod total 1500m + 800m = 2300m
  std::vector<api::Node> nodes{node("n1", "2", "8Gi")};
  RolloutInput in{{w}};
  in.nodes = nodes;
  EXPECT_EQ(skips(planRollout(kAuto, in, t0())), (std::vector<std::string>{"web-0:NodeCapacity"}));

  nodes = {node("n1", "4", "8Gi")};
  in.nodes = nodes;
  EXPECT_EQ(resized(planRollout(kAuto, in, t0())).size(), 1u);
}

TEST(NodeCapacity, UnknownNodeProceeds) {
  auto ps = pods(1);
  WorkloadInput w = web(ps);
  w.targets["app"] = target(64000_m, 512_Mi);
  std::vector<api::Node> nodes{node("other", "2", "8Gi")};
  RolloutInput in{{w}};
  in.nodes = nodes;
  EXPECT_EQ(resized(planRollout(kAuto, in, t0())).size(), 1u);
}

TEST(Hpa, CpuOrMemoryHpaGivesAConflictEventAndTheResizeProceeds) {
  auto ps = pods(1);
  api::HorizontalPodAutoscaler hpa;
  hpa.metadata.namespace_ = "team";
  hpa.metadata.name = "web";
  hpa.spec.scaleTargetRef = {"apps/v1", "Deployment", "web"};
  api::MetricSpec m;
  m.type = "ContainerResource";
  m.containerResource = api::ContainerResourceMetricSource{"cpu", "app", {}};
  hpa.spec.metrics.push_back(m);
  std::vector<api::HorizontalPodAutoscaler> hpas{hpa};
  RolloutInput in{{web(ps)}};
  in.hpas = hpas;
  Plan plan = planRollout(kAuto, in, t0());
  ASSERT_EQ(plan.all<EventAction>().size(), 1u);
  EXPECT_EQ(plan.all<EventAction>()[0]->reason, "HPAConflict");
  EXPECT_EQ(resized(plan).size(), 1u);

  // An HPA on a custom metric, or on another workload, is no conflict.
  hpas[0].spec.metrics[0].containerResource.reset();
  hpas[0].spec.metrics[0].type = "Pods";
  EXPECT_TRUE(planRollout(kAuto, in, t0()).all<EventAction>().empty());
}

TEST(PodState, NotReadyAndPendingResizesWait) {
  auto ps = pods(3);
  ps[0].status.conditions[0].status = "False";
  ps[1].status.conditions.push_back({"PodResizePending", "True", "Deferred", "", t0(), 0});
  ps[2].status.phase = "Pending";  // not running: ignored
  Plan plan = planRollout(kAuto, {{web(ps)}}, t0());
  EXPECT_TRUE(resized(plan).empty());
  auto defers = plan.all<DeferAction>();
  ASSERT_EQ(defers.size(), 2u);
  EXPECT_EQ(defers[0]->reason, DeferReason::kPodNotReady);
  EXPECT_EQ(defers[1]->reason, DeferReason::kResizePending);
  ASSERT_TRUE(plan.resizeBlocked);
  EXPECT_EQ(plan.resizeBlocked->reason, "PodsDeferred");
}

}  // namespace
}  // namespace attune::rollout
