// The simulated HPA controller: KEP-1610's worked example and user stories, the tolerance,
// min/max, stabilization and policies, invalid, missing and unready metrics, status. Pods are
// stored directly with the Deployment's labels; usage is what the metrics API would report.
#include "sim/control/hpa_controller.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "control_builders.h"
#include "core/clock.h"
#include "support/pod_builder.h"

namespace attune::sim {
namespace {

using namespace std::chrono_literals;
using testing::fixedTime;

constexpr std::string_view kNs = "shop";

struct ContainerLoad {
  std::string name;
  std::int64_t requestMilli;
  std::int64_t usageMilli;
};

api::MetricSpec containerCpu(std::string container, std::int32_t utilization) {
  api::MetricSpec m;
  m.type = "ContainerResource";
  m.containerResource = api::ContainerResourceMetricSource{
      "cpu", std::move(container), {"Utilization", {}, {}, utilization}};
  return m;
}

api::MetricSpec containerMemory(std::string container, std::int32_t utilization) {
  api::MetricSpec m = containerCpu(std::move(container), utilization);
  m.containerResource->name = "memory";
  return m;
}

api::MetricSpec podCpu(std::int32_t utilization) {
  api::MetricSpec m;
  m.type = "Resource";
  m.resource = api::ResourceMetricSource{"cpu", {"Utilization", {}, {}, utilization}};
  return m;
}

const api::Condition* findCondition(const api::HorizontalPodAutoscaler& hpa,
                                    std::string_view type) {
  for (const auto& c : hpa.status.conditions) {
    if (c.type == type) return &c;
  }
  return nullptr;
}

class HpaControllerTest : public ::testing::Test {
 protected:
  HpaControllerTest() {
    api::Deployment d;
    d.metadata.namespace_ = kNs;
    d.metadata.name = "mission-critical";
    d.spec.replicas = 4;
    d.spec.selector.matchLabels["app"] = "mission-critical";
    EXPECT_TRUE(state_.deployments.create(d));
  }

  // Stores ready pod `name` (started an hour ago) with the given containers, and its
  // usage. memory requests are 100Mi per container; memory usage `memoryMi` per container.
  void addPod(const std::string& name, const std::vector<ContainerLoad>& containers,
              bool ready = true, bool withMetrics = true, std::int64_t memoryMi = 50) {
    attune::testing::PodBuilder b(std::string(kNs), name);
    b = b.label("app", "mission-critical");
    for (const auto& c : containers) {
      b = b.container(c.name)
              .cpuRequest(Millicores(c.requestMilli))
              .memoryRequest(Bytes(100 << 20));
    }
    api::Pod pod = b.ready(clock_.now() - 1h).build();
    pod.status.startTime = clock_.now() - 1h;
    if (!ready) {
      pod.status.startTime = clock_.now() - 1min;
      pod.status.conditions[0].status = "False";
      pod.status.conditions[0].lastTransitionTime = clock_.now() - 1min;
    }
    ASSERT_TRUE(state_.pods.create(pod));
    if (!withMetrics) return;
    PodUsageSample sample{clock_.now(), 15s, {}};
    for (const auto& c : containers) {
      sample.containers.push_back({c.name, Millicores(c.usageMilli), Bytes(memoryMi << 20)});
    }
    usage_[podUsageKey(kNs, name)] = sample;
  }
  void addPods(int n, const std::vector<ContainerLoad>& containers) {
    for (int i = 0; i < n; ++i) addPod("pod-" + std::to_string(i), containers);
  }
  // Sets every container `name`'s CPU usage in every pod.
  void setUsage(const std::string& container, std::int64_t milli) {
    for (auto& [pod, sample] : usage_) {
      for (auto& c : sample.containers) {
        if (c.name == container) c.cpu = Millicores(milli);
      }
    }
  }
  // Creates the HPA over the Deployment, whose spec.replicas becomes the number of pods.
  void createHpa(std::vector<api::MetricSpec> metrics, std::int32_t maxReplicas = 10,
                 std::optional<std::int32_t> minReplicas = 1,
                 std::optional<api::HpaBehavior> behavior = std::nullopt) {
    api::HorizontalPodAutoscaler hpa;
    hpa.metadata.namespace_ = kNs;
    hpa.metadata.name = "mission-critical";
    hpa.spec.scaleTargetRef = {"apps/v1", "Deployment", "mission-critical"};
    hpa.spec.minReplicas = minReplicas;
    hpa.spec.maxReplicas = maxReplicas;
    hpa.spec.metrics = std::move(metrics);
    hpa.spec.behavior = std::move(behavior);
    ASSERT_TRUE(state_.hpas.create(hpa));
    std::int32_t pods = 0;
    state_.pods.forEach([&](const api::Pod&) { ++pods; });
    ASSERT_TRUE(state_.deployments.modify(kNs, "mission-critical", "", [&](api::Deployment& d) {
      d.spec.replicas = pods;
      return Change::kSpec;
    }));
  }
  void sync() { controller_.sync(state_, clock_.now(), usage_); }
  std::int32_t replicas() const {
    return state_.deployments.find(kNs, "mission-critical")->spec.replicas.value_or(1);
  }
  api::HorizontalPodAutoscaler hpa() const { return *state_.hpas.find(kNs, "mission-critical"); }

  SimulatedClock clock_{fixedTime()};
  ClusterState state_{clock_};
  HpaController controller_;
  PodUsageByName usage_;
};

// KEP-1610: application and log-shipper request 250m each and use 200m and 50m: the pod is at
// 50 %, the containers at 80 % and 20 %.
const std::vector<ContainerLoad> kKepPod = {{"application", 250, 200}, {"log-shipper", 250, 50}};

TEST_F(HpaControllerTest, KepExampleScalesOnTheContainerMetric) {
  addPods(4, kKepPod);
  createHpa({containerCpu("application", 60)});
  sync();
  EXPECT_EQ(replicas(), 6);  // ceil(80 / 60 × 4)
  const auto status = hpa().status;
  ASSERT_EQ(status.currentMetrics.size(), 1u);
  EXPECT_EQ(status.currentMetrics[0].containerResource->target.averageUtilization, 80);
  EXPECT_EQ(status.currentMetrics[0].containerResource->container, "application");
}

TEST_F(HpaControllerTest, KepExampleDoesNotScaleUpOnThePodMetric) {
  addPods(4, kKepPod);
  createHpa({podCpu(60)});
  sync();
  EXPECT_EQ(replicas(), 4);
  const auto status = hpa().status;
  ASSERT_EQ(status.currentMetrics.size(), 1u);
  EXPECT_EQ(status.currentMetrics[0].resource->target.averageUtilization, 50);
  EXPECT_EQ(status.desiredReplicas, 4);
}

// User story 3: the container metric added beside the pod metric scales out on the application.
TEST_F(HpaControllerTest, ContainerMetricBesideThePodMetricScalesOut) {
  addPods(4, kKepPod);
  createHpa({containerCpu("application", 50), podCpu(50)});
  sync();
  EXPECT_EQ(replicas(), 7);  // ceil(80 / 50 × 4): the pod metric (50 %) alone would keep 4
  // The log-shipper growing alone only scales when the blended usage passes the target.
  setUsage("application", 100);  // 40 %, pod (100 + 150) / 500 = 50 %
  setUsage("log-shipper", 150);
  clock_.advance(15s);
  sync();
  EXPECT_EQ(replicas(), 7);
}

// User story 1: five container metrics over three containers; the largest proposal wins.
TEST_F(HpaControllerTest, LargestProposalAcrossContainerMetricsWins) {
  addPods(2, {{"application", 1000, 250}, {"authnz-proxy", 200, 90}, {"log-shipping", 100, 90}});
  createHpa({containerCpu("application", 30), containerMemory("application", 80),
             containerCpu("authnz-proxy", 30), containerMemory("authnz-proxy", 80),
             containerCpu("log-shipping", 80)});
  sync();
  EXPECT_EQ(replicas(), 3);  // authnz-proxy at 45 % of 30 %: ceil(1.5 × 2)
  EXPECT_EQ(hpa().status.currentMetrics.size(), 5u);
}

// User story 2: only the application container counts; a busy sidecar changes nothing.
TEST_F(HpaControllerTest, OtherContainersAreIgnored) {
  addPods(4, {{"application", 1000, 300}, {"log-shipping", 100, 300}});
  createHpa({containerCpu("application", 30)});
  sync();
  EXPECT_EQ(replicas(), 4);
  EXPECT_EQ(findCondition(hpa(), "ScalingActive")->reason, "ValidMetricFound");
}

TEST_F(HpaControllerTest, RatioWithinToleranceKeepsReplicas) {
  addPods(4, {{"app", 1000, 648}});  // 64 % of 60 %: ratio 1.07
  createHpa({podCpu(60)});
  sync();
  EXPECT_EQ(replicas(), 4);
  setUsage("app", 672);  // 67 %: ratio 1.117
  clock_.advance(15s);
  sync();
  EXPECT_EQ(replicas(), 5);
}

TEST_F(HpaControllerTest, BehaviorToleranceReplacesTheDefault) {
  addPods(4, {{"app", 1000, 672}});  // ratio 1.117
  api::HpaBehavior behavior;
  behavior.scaleUp = api::HpaScalingRules{};
  behavior.scaleUp->tolerance = Quantity::parse("0.2").value();
  createHpa({podCpu(60)}, 10, 1, behavior);
  sync();
  EXPECT_EQ(replicas(), 4);
}

TEST_F(HpaControllerTest, MaxReplicasClamps) {
  addPods(4, {{"app", 100, 300}});  // 300 % of 60 %: 20 wanted
  createHpa({podCpu(60)}, 5);
  sync();
  EXPECT_EQ(replicas(), 5);
  const auto h = hpa();
  const api::Condition* limited = findCondition(h, "ScalingLimited");
  ASSERT_NE(limited, nullptr);
  EXPECT_EQ(limited->status, "True");
  EXPECT_EQ(limited->reason, "TooManyReplicas");
}

TEST_F(HpaControllerTest, MinReplicasClampsAfterTheWindow) {
  addPods(4, {{"app", 1000, 10}});  // 1 %: 1 wanted
  createHpa({podCpu(60)}, 10, 3);
  sync();
  EXPECT_EQ(replicas(), 4);  // stabilized
  clock_.advance(301s);
  sync();
  EXPECT_EQ(replicas(), 3);
  EXPECT_EQ(findCondition(hpa(), "ScalingLimited")->reason, "TooFewReplicas");
}

api::HpaBehavior immediateScaleDown() {
  api::HpaBehavior b;
  b.scaleDown = api::HpaScalingRules{};
  b.scaleDown->stabilizationWindowSeconds = 0;
  return b;
}

TEST_F(HpaControllerTest, MaxReplicasClampsWithBehavior) {
  addPods(4, {{"app", 100, 300}});  // 20 wanted; the default scale-up policies allow 8
  createHpa({podCpu(60)}, 5, 1, immediateScaleDown());
  sync();
  EXPECT_EQ(replicas(), 5);
  EXPECT_EQ(findCondition(hpa(), "ScalingLimited")->reason, "TooManyReplicas");
}

TEST_F(HpaControllerTest, MinReplicasClampsWithBehavior) {
  addPods(4, {{"app", 1000, 10}});  // 1 wanted; the default Percent 100 policy allows 0
  createHpa({podCpu(60)}, 10, 3, immediateScaleDown());
  sync();
  EXPECT_EQ(replicas(), 3);
  EXPECT_EQ(findCondition(hpa(), "ScalingLimited")->reason, "TooFewReplicas");
}

// A target outside [minReplicas, maxReplicas] is brought inside whatever the metrics say (the
// usage is at the target, which alone would keep 4).
TEST_F(HpaControllerTest, ATargetBelowMinReplicasIsScaledUpToIt) {
  addPods(4, {{"app", 1000, 600}});
  createHpa({podCpu(60)}, 10, 6, api::HpaBehavior{});
  sync();
  EXPECT_EQ(replicas(), 6);
  bool rescaled = false;
  state_.events.forEach([&](const api::Event& e) {
    rescaled |=
        e.reason == "SuccessfulRescale" &&
        e.message == "New size: 6; reason: Current number of replicas below Spec.MinReplicas";
  });
  EXPECT_TRUE(rescaled);
}

TEST_F(HpaControllerTest, ATargetAboveMaxReplicasIsScaledDownToIt) {
  addPods(4, {{"app", 1000, 600}});
  createHpa({podCpu(60)}, 3, 1, api::HpaBehavior{});
  sync();
  EXPECT_EQ(replicas(), 3);
  bool rescaled = false;
  state_.events.forEach([&](const api::Event& e) {
    rescaled |=
        e.reason == "SuccessfulRescale" &&
        e.message == "New size: 3; reason: Current number of replicas above Spec.MaxReplicas";
  });
  EXPECT_TRUE(rescaled);
}

TEST_F(HpaControllerTest, ScaleDownIsHeldForTheStabilizationWindow) {
  addPods(4, {{"app", 1000, 300}});  // 30 % of 60 %: 2 wanted
  createHpa({podCpu(60)});
  for (int i = 0; i <= 20; ++i) {  // 0 .. 300 s
    sync();
    EXPECT_EQ(replicas(), 4) << i * 15 << " s";
    EXPECT_EQ(findCondition(hpa(), "AbleToScale")->reason, "ScaleDownStabilized");
    clock_.advance(15s);
  }
  sync();  // 315 s: the first recommendation (4) has left the window
  EXPECT_EQ(replicas(), 2);
}

TEST_F(HpaControllerTest, BehaviorScaleDownWindowHoldsTheHighestRecommendation) {
  addPods(4, {{"app", 1000, 300}});  // 30 % of 60 %: 2 wanted
  api::HpaBehavior b;
  b.scaleDown = api::HpaScalingRules{};
  b.scaleDown->stabilizationWindowSeconds = 60;
  createHpa({podCpu(60)}, 10, 1, b);
  for (int i = 0; i < 4; ++i) {  // 0 .. 45 s
    sync();
    EXPECT_EQ(replicas(), 4) << i * 15 << " s";
    EXPECT_EQ(findCondition(hpa(), "AbleToScale")->reason, "ScaleDownStabilized");
    clock_.advance(15s);
  }
  sync();  // 60 s: the first recommendation (4) has left the window
  EXPECT_EQ(replicas(), 2);
}

TEST_F(HpaControllerTest, BehaviorScaleUpWindowHoldsTheLowestRecommendation) {
  addPods(4, {{"app", 1000, 900}});  // 90 % of 60 %: 6 wanted
  api::HpaBehavior b;
  b.scaleUp = api::HpaScalingRules{};
  b.scaleUp->stabilizationWindowSeconds = 60;
  createHpa({podCpu(60)}, 10, 1, b);
  for (int i = 0; i < 4; ++i) {  // 0 .. 45 s
    sync();
    EXPECT_EQ(replicas(), 4) << i * 15 << " s";
    EXPECT_EQ(findCondition(hpa(), "AbleToScale")->reason, "ScaleUpStabilized");
    clock_.advance(15s);
  }
  sync();  // 60 s: the first recommendation (4) has left the window
  EXPECT_EQ(replicas(), 6);
}

api::HpaBehavior scaleUpPolicies(std::string select) {
  api::HpaBehavior b;
  b.scaleUp = api::HpaScalingRules{};
  b.scaleUp->selectPolicy = std::move(select);
  b.scaleUp->policies = {{"Pods", 1, 60}, {"Percent", 100, 60}};
  return b;
}

TEST_F(HpaControllerTest, SelectPolicyMaxTakesTheLargestChange) {
  addPods(4, {{"app", 100, 300}});  // 20 wanted
  createHpa({podCpu(60)}, 50, 1, scaleUpPolicies("Max"));
  sync();
  EXPECT_EQ(replicas(), 8);  // Percent 100: 4 → 8
  EXPECT_EQ(findCondition(hpa(), "ScalingLimited")->reason, "ScaleUpLimit");
  clock_.advance(15s);
  sync();  // the period still holds the +4
  EXPECT_EQ(replicas(), 8);
  clock_.advance(60s);
  sync();
  EXPECT_EQ(replicas(), 16);
}

TEST_F(HpaControllerTest, SelectPolicyMinTakesTheSmallestChange) {
  addPods(4, {{"app", 100, 300}});
  createHpa({podCpu(60)}, 50, 1, scaleUpPolicies("Min"));
  sync();
  EXPECT_EQ(replicas(), 5);  // Pods 1
}

TEST_F(HpaControllerTest, SelectPolicyDisabledNeverScalesUp) {
  addPods(4, {{"app", 100, 300}});
  createHpa({podCpu(60)}, 50, 1, scaleUpPolicies("Disabled"));
  sync();
  EXPECT_EQ(replicas(), 4);
}

TEST_F(HpaControllerTest, ScaleDownPercentPolicyLimitsTheStep) {
  addPods(4, {{"app", 1000, 10}});
  api::HpaBehavior b;
  b.scaleDown = api::HpaScalingRules{};
  b.scaleDown->stabilizationWindowSeconds = 0;
  b.scaleDown->policies = {{"Percent", 50, 60}};
  createHpa({podCpu(60)}, 10, 1, b);
  sync();
  EXPECT_EQ(replicas(), 2);
  EXPECT_EQ(findCondition(hpa(), "ScalingLimited")->reason, "ScaleDownLimit");
}

// 1 wanted of 4: Pods 1 allows 3, Percent 50 allows 2.
api::HpaBehavior scaleDownPolicies(std::string select) {
  api::HpaBehavior b = immediateScaleDown();
  b.scaleDown->selectPolicy = std::move(select);
  b.scaleDown->policies = {{"Pods", 1, 60}, {"Percent", 50, 60}};
  return b;
}

TEST_F(HpaControllerTest, ScaleDownSelectPolicyMaxRemovesTheMost) {
  addPods(4, {{"app", 1000, 10}});
  createHpa({podCpu(60)}, 10, 1, scaleDownPolicies("Max"));
  sync();
  EXPECT_EQ(replicas(), 2);
}

TEST_F(HpaControllerTest, ScaleDownSelectPolicyMinRemovesTheLeast) {
  addPods(4, {{"app", 1000, 10}});
  createHpa({podCpu(60)}, 10, 1, scaleDownPolicies("Min"));
  sync();
  EXPECT_EQ(replicas(), 3);
}

TEST_F(HpaControllerTest, ScaleDownSelectPolicyDisabledNeverScalesDown) {
  addPods(4, {{"app", 1000, 10}});
  createHpa({podCpu(60)}, 10, 1, scaleDownPolicies("Disabled"));
  sync();
  EXPECT_EQ(replicas(), 4);
}

TEST_F(HpaControllerTest, MissingContainerBlocksScaleDown) {
  addPods(4, {{"app", 1000, 100}});  // the pod metric wants 1
  api::HpaBehavior b;
  b.scaleDown = api::HpaScalingRules{};
  b.scaleDown->stabilizationWindowSeconds = 0;
  createHpa({containerCpu("renamed", 60), podCpu(60)}, 10, 1, b);
  sync();
  EXPECT_EQ(replicas(), 4);
  const auto h = hpa();
  const api::Condition* active = findCondition(h, "ScalingActive");
  EXPECT_EQ(active->status, "False");
  EXPECT_EQ(active->reason, "FailedGetContainerResourceMetric");
}

TEST_F(HpaControllerTest, MissingContainerDoesNotBlockScaleUp) {
  addPods(4, {{"app", 1000, 900}});  // the pod metric wants 6
  createHpa({containerCpu("renamed", 60), podCpu(60)});
  sync();
  EXPECT_EQ(replicas(), 6);
  EXPECT_EQ(findCondition(hpa(), "ScalingActive")->status, "True");
}

TEST_F(HpaControllerTest, UnreadyPodsCountZeroOnScaleUp) {
  addPod("ready-0", {{"app", 100, 200}});
  addPod("ready-1", {{"app", 100, 200}});
  addPod("starting-0", {{"app", 100, 300}}, /*ready=*/false);
  addPod("starting-1", {{"app", 100, 300}}, /*ready=*/false);
  createHpa({podCpu(60)}, 20);
  sync();
  // Ready pods at 200 %, unready ones counted 0: (200 + 200) / 4 = 100 %, ceil(1.67 × 4) = 7.
  // With the unready pods' own 300 % it would be 17 (clamped to 8).
  EXPECT_EQ(replicas(), 7);
}

TEST_F(HpaControllerTest, UnreadyPodsAtZeroDoNotTurnAScaleUpIntoAScaleDown) {
  addPod("ready-0", {{"app", 100, 78}});
  addPod("ready-1", {{"app", 100, 78}});
  addPod("starting-0", {{"app", 100, 10}}, /*ready=*/false);
  addPod("starting-1", {{"app", 100, 10}}, /*ready=*/false);
  createHpa({podCpu(60)}, 10, 1, immediateScaleDown());
  sync();
  // The ready pods at 78 % of 60 % alone would want ceil(1.3 × 2) = 3; with the unready pods at
  // 0 the ratio is 0.65, below 1 where the first was above: the count stays.
  EXPECT_EQ(replicas(), 4);
}

TEST_F(HpaControllerTest, MissingPodsCountZeroOnScaleUp) {
  addPod("pod-0", {{"app", 1000, 840}});
  addPod("pod-1", {{"app", 1000, 840}});
  addPod("pod-2", {{"app", 1000, 840}});
  addPod("no-metrics", {{"app", 1000, 0}}, true, /*withMetrics=*/false);
  createHpa({podCpu(60)});
  sync();
  // 84 % on three pods would want ceil(1.4 × 3) = 5; the missing pod at 0 gives 63 %, a ratio
  // of 1.05, within the tolerance: 4.
  EXPECT_EQ(replicas(), 4);
}

TEST_F(HpaControllerTest, FailedAndDeletingPodsAreIgnored) {
  addPods(4, {{"app", 1000, 600}});  // at the target
  addPod("failed", {{"app", 1000, 3000}});
  addPod("deleting", {{"app", 1000, 3000}});
  ASSERT_TRUE(state_.pods.modify(kNs, "failed", "", [](api::Pod& p) {
    p.status.phase = "Failed";
    return Change::kMetadata;
  }));
  ASSERT_TRUE(state_.pods.modify(kNs, "deleting", "", [&](api::Pod& p) {
    p.metadata.deletionTimestamp = clock_.now();
    return Change::kMetadata;
  }));
  createHpa({podCpu(60)});
  sync();
  // The four others are at the target; counted, the two at 300 % would take it to 10.
  EXPECT_EQ(replicas(), 6);
}

TEST_F(HpaControllerTest, MissingPodsCountFullOnScaleDown) {
  addPod("pod-0", {{"app", 1000, 300}});
  addPod("pod-1", {{"app", 1000, 300}});
  addPod("pod-2", {{"app", 1000, 300}});
  addPod("no-metrics", {{"app", 1000, 0}}, true, /*withMetrics=*/false);
  api::HpaBehavior b;
  b.scaleDown = api::HpaScalingRules{};
  b.scaleDown->stabilizationWindowSeconds = 0;
  createHpa({podCpu(60)}, 10, 1, b);
  sync();
  // 30 % on three pods would want 2; the missing pod at 100 % gives 47 %: ceil(0.78 × 4) = 4.
  EXPECT_EQ(replicas(), 4);
}

TEST_F(HpaControllerTest, AverageValueTarget) {
  addPods(4, {{"app", 1000, 300}});  // memory 50Mi per container
  api::MetricSpec m;
  m.type = "Resource";
  m.resource = api::ResourceMetricSource{"memory",
                                         {"AverageValue", {}, Quantity::parse("25Mi").value(), {}}};
  createHpa({m});
  sync();
  EXPECT_EQ(replicas(), 8);
  EXPECT_EQ(hpa().status.currentMetrics[0].resource->target.averageValue,
            Quantity::parse("50Mi").value());
}

TEST_F(HpaControllerTest, StatusAndConditionsAfterARescale) {
  addPods(4, kKepPod);
  createHpa({containerCpu("application", 60)});
  sync();
  const auto h = hpa();
  EXPECT_EQ(h.status.currentReplicas, 4);
  EXPECT_EQ(h.status.desiredReplicas, 6);
  EXPECT_EQ(h.status.lastScaleTime, clock_.now());
  EXPECT_EQ(findCondition(h, "AbleToScale")->reason, "SucceededRescale");
  EXPECT_EQ(findCondition(h, "ScalingActive")->reason, "ValidMetricFound");
  const api::Condition* limited = findCondition(h, "ScalingLimited");
  EXPECT_EQ(limited->status, "False");
  EXPECT_EQ(limited->reason, "DesiredWithinRange");
  bool rescaleEvent = false;
  state_.events.forEach([&](const api::Event& e) {
    rescaleEvent |= e.reason == "SuccessfulRescale" && e.message.starts_with("New size: 6");
  });
  EXPECT_TRUE(rescaleEvent);
}

TEST_F(HpaControllerTest, MissingTargetCannotScale) {
  api::HorizontalPodAutoscaler h;
  h.metadata.namespace_ = kNs;
  h.metadata.name = "orphan";
  h.spec.scaleTargetRef = {"apps/v1", "Deployment", "gone"};
  h.spec.maxReplicas = 3;
  ASSERT_TRUE(state_.hpas.create(h));
  sync();
  const api::Condition* able = nullptr;
  for (const auto& c : state_.hpas.find(kNs, "orphan")->status.conditions) {
    if (c.type == "AbleToScale") able = &c;
  }
  ASSERT_NE(able, nullptr);
  EXPECT_EQ(able->reason, "FailedGetScale");
}

TEST_F(HpaControllerTest, SyncsEveryFifteenSeconds) {
  addPods(4, kKepPod);
  createHpa({containerCpu("application", 60)});
  EXPECT_TRUE(controller_.due(state_, clock_.now()));
  controller_.tick(state_, clock_.now(), [&] { return usage_; });
  EXPECT_EQ(replicas(), 6);
  clock_.advance(10s);
  EXPECT_FALSE(controller_.due(state_, clock_.now()));
  clock_.advance(5s);
  EXPECT_TRUE(controller_.due(state_, clock_.now()));
}

}  // namespace
}  // namespace attune::sim
