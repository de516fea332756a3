// rollout::planStartupBoost, pure: which pods are boosted, by how much, and how a boost ends.
#include "rollout/startup_boost.h"

#include <gtest/gtest.h>

#include "core/quantity.h"
#include "safety/resize_record.h"
#include "support/pod_builder.h"

namespace attune::rollout {
namespace {

using namespace std::chrono_literals;
using testing::PodBuilder;
using testing::resources;

const Time kNow = Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5)) + 10h;

api::AttunePolicy boostPolicy(api::ControlledValues controlled) {
  api::AttunePolicy p;
  p.metadata.namespace_ = "shop";
  p.metadata.name = "web";
  p.spec.updateStrategy.type = api::UpdateMode::kAuto;
  p.spec.cpu.controlledValues = controlled;
  p.spec.cpu.startupBoost = api::StartupBoost{.multiplier = "3", .duration = 2min};
  return p;
}

// A pod created `age` ago on node n1 (4 cores), container `app`.
api::Pod youngPod(Duration age, api::ResourceRequirements r) {
  api::Pod pod =
      PodBuilder("shop", "web-1").node("n1").container("app", r).ready(kNow - age).build();
  pod.metadata.creationTimestamp = kNow - age;
  return pod;
}

std::vector<api::Node> oneNode() {
  api::Node n;
  n.metadata.name = "n1";
  n.status.allocatable.cpu = Quantity::fromMillicores(Millicores(4000));
  return {n};
}

ContainerTargets steady(Millicores cpu) {
  api::ResourceValues v;
  v.cpuRequest = cpu;
  return {{"app", v}};
}

TEST(StartupBoostPlanTest, RequestsOnlyCapsTheBoostAtTheCpuLimit) {
  const api::Pod pod = youngPod(30s, resources("200m", "256Mi", "500m", "512Mi"));
  const BoostWorkload w{
      .ref = {"shop", "Deployment", "web"}, .pods = {&pod}, .targets = steady(Millicores(300))};
  Plan plan;
  const auto handled = planStartupBoost(boostPolicy(api::ControlledValues::kRequestsOnly),
                                        std::span(&w, 1), oneNode(), kNow, plan);
  EXPECT_TRUE(handled.contains("web-1"));
  const auto boosts = plan.all<StartupBoostAction>();
  ASSERT_EQ(boosts.size(), 1u);
  EXPECT_EQ(safety::resourceValuesOf(boosts[0]->containers[0].resources).cpuRequest,
            Millicores(500));
  EXPECT_EQ(safety::resourceValuesOf(boosts[0]->containers[0].resources).cpuLimit, Millicores(500));
  EXPECT_EQ(boosts[0]->annotations.at("attune.io/boost-cpu-request.app"), "200m");
  EXPECT_FALSE(boosts[0]->annotations.contains("attune.io/boost-cpu-limit.app"));
  EXPECT_EQ(plan.requeueAfter, 2min);
}

TEST(StartupBoostPlanTest, OldPodsPodsUnderObservationAndPendingResizesAreNotBoosted) {
  const auto policy = boostPolicy(api::ControlledValues::kRequestsOnly);
  api::Pod old = youngPod(3min, resources("200m", "256Mi", "", ""));
  api::Pod observed = youngPod(30s, resources("200m", "256Mi", "", ""));
  observed.metadata.annotations["attune.io/resized-at"] = formatRfc3339(kNow - 10s);
  api::Pod pending = youngPod(30s, resources("200m", "256Mi", "", ""));
  pending.status.conditions.push_back(
      {.type = std::string(api::kPodResizePending), .status = "True", .reason = "Deferred"});
  for (const api::Pod* pod : {&old, &observed, &pending}) {
    const BoostWorkload w{
        .ref = {"shop", "Deployment", "web"}, .pods = {pod}, .targets = steady(Millicores(300))};
    Plan plan;
    EXPECT_TRUE(planStartupBoost(policy, std::span(&w, 1), oneNode(), kNow, plan).empty());
    EXPECT_TRUE(plan.actions.empty());
  }
}

TEST(StartupBoostPlanTest, WithoutARecommendationTheBoostEndsAtTheRecordedCpu) {
  api::Pod pod = youngPod(5min, resources("900m", "256Mi", "1800m", ""));
  pod.metadata.annotations["attune.io/startup-boost-at"] = formatRfc3339(kNow - 3min);
  pod.metadata.annotations["attune.io/boost-cpu-request.app"] = "200m";
  pod.metadata.annotations["attune.io/boost-cpu-limit.app"] = "400m";
  const BoostWorkload w{.ref = {"shop", "Deployment", "web"}, .pods = {&pod}, .targets = {}};
  Plan plan;
  const auto handled = planStartupBoost(boostPolicy(api::ControlledValues::kRequestsAndLimits),
                                        std::span(&w, 1), oneNode(), kNow, plan);
  EXPECT_TRUE(handled.contains("web-1"));
  const auto ends = plan.all<EndStartupBoostAction>();
  ASSERT_EQ(ends.size(), 1u);
  const api::ResourceValues back = safety::resourceValuesOf(ends[0]->containers[0].resources);
  EXPECT_EQ(back.cpuRequest, Millicores(200));
  EXPECT_EQ(back.cpuLimit, Millicores(400));
  EXPECT_EQ(ends[0]->clearBoost.size(), 3u);
}

TEST(StartupBoostPlanTest, ABoostHeldUntilItsEndAndEndedWhenTheAnnotationDoesNotParse) {
  api::Pod pod = youngPod(1min, resources("600m", "256Mi", "", ""));
  pod.metadata.annotations["attune.io/startup-boost-at"] = formatRfc3339(kNow - 30s);
  pod.metadata.annotations["attune.io/boost-cpu-request.app"] = "200m";
  const BoostWorkload w{
      .ref = {"shop", "Deployment", "web"}, .pods = {&pod}, .targets = steady(Millicores(300))};
  const auto policy = boostPolicy(api::ControlledValues::kRequestsOnly);
  Plan held;
  EXPECT_TRUE(planStartupBoost(policy, std::span(&w, 1), oneNode(), kNow, held).contains("web-1"));
  EXPECT_TRUE(held.actions.empty());
  EXPECT_EQ(held.requeueAfter, 90s);

  pod.metadata.annotations["attune.io/startup-boost-at"] = "yesterday";
  Plan ended;
  planStartupBoost(policy, std::span(&w, 1), oneNode(), kNow, ended);
  const auto ends = ended.all<EndStartupBoostAction>();
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(safety::resourceValuesOf(ends[0]->containers[0].resources).cpuRequest, Millicores(300));
}

}  // namespace
}  // namespace attune::rollout
