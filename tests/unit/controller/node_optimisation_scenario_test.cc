// Continuous node optimisation in the controller over the simulated cluster
// (spec.nodeOptimization, controller/node_optimiser.h): the pods are sized node by node, sharing
// the node's largest headroom; a node that cannot hold its pods has one evicted through the
// Eviction API (a PodDisruptionBudget refusing keeps it); DaemonSets are never evicted; the memory
// limit covers an OOM kill recorded on the workload; a node-optimised resize is reverted by the
// safety monitor like any other.
#include <gtest/gtest.h>

#include "rollout/node_optimisation.h"
#include "rollout/oom_recovery.h"
#include "scenario_harness.h"

namespace attune::controller {
namespace {

using namespace testing;
using namespace attune::literals;
using std::chrono::minutes;

constexpr std::string_view kSmallNode = "{name: node, count: 1, cpu: \"4\", memory: 8Gi}";
constexpr std::string_view kNodeOptimisation = "      nodeOptimization: {enabled: true}\n";

// A policy for Deployment `name` with node optimisation on (memory limits managed).
std::string optimisedPolicy(const std::string& name, std::string updateStrategy = "{type: Auto}") {
  return policyYaml({.name = name,
                     .target = name,
                     .updateStrategy = std::move(updateStrategy),
                     .extra = std::string(kNodeOptimisation)});
}

Millicores cpuRequest(const api::Pod& pod) { return *specResources(pod, "app").cpuRequest; }

TEST(NodeOptimisationScenarioTest, PodsAreSizedByNodeSharingTheLargestHeadroom) {
  // Two bursty workloads under the cruisekube strategy: alone each would get base + its own
  // headroom (the recommendation in the policy status); on one node they share the larger
  // headroom, so together they get clearly less.
  const std::string bursty =
      "{kind: bursty, cpuCores: 200m, memoryBytes: 200Mi, spikeProbability: 0.25, "
      "spikeFactor: 4, noise: 0}";
  const std::string cruisekube = "      strategy: cruisekube\n";
  auto policy = [&](const std::string& name) {
    return policyYaml(
        {.name = name, .target = name, .extra = cruisekube + std::string(kNodeOptimisation)});
  };
  auto workload = [&](const std::string& name) {
    return workloadYaml({.name = name,
                         .requests = "{cpu: \"2\", memory: 512Mi}",
                         .limits = "{memory: 2Gi}",
                         .model = bursty});
  };
  ScenarioHarness h(scenarioYaml(workload("a") + workload("b"), policy("a") + policy("b"), {},
                                 "{name: node, count: 1, cpu: \"8\", memory: 16Gi}"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(30);
  Millicores alone;
  Millicores shared;
  for (const std::string name : {"a", "b"}) {
    const api::Pod pod = h.pod("apps", name);
    EXPECT_LT(cpuRequest(pod), 2000_m) << name << ": resized by the node optimiser";
    // The CPU limit is never set: there was none and there is none.
    EXPECT_FALSE(specResources(pod, "app").cpuLimit) << name;
    shared += cpuRequest(pod);
    const api::AttunePolicy p = h.policy("apps", name);
    ASSERT_EQ(p.status.recommendations.size(), 1u);
    alone += *p.status.recommendations[0].containers[0].recommended.cpuRequest;
  }
  EXPECT_GE(h.actions(ActionRecord::Kind::kResized).size(), 2u);
  // Sharing one headroom saves at least a tenth of what each alone would get.
  EXPECT_LT(shared.value() * 10, alone.value() * 9)
      << "shared " << shared.value() << "m, alone " << alone.value() << "m";
}

// An unoptimised pod holds 3 of the node's 4 cores; the optimised `web` uses 1.5 cores: it cannot
// fit its steady state in the core left.
std::string crowdedNode(std::string_view webKind, std::string_view extra = {},
                        std::string_view webAnnotations = {},
                        std::string updateStrategy = "{type: Auto}") {
  std::string web = workloadYaml({.name = "web",
                                  .requests = "{cpu: 500m, memory: 512Mi}",
                                  .limits = "{memory: 2Gi}",
                                  .model = "{kind: steady, cpuCores: 1500m, memoryBytes: 200Mi, "
                                           "noise: 0}",
                                  .workloadExtra = std::string(webAnnotations)});
  std::string policy = optimisedPolicy("web", std::move(updateStrategy));
  if (webKind != "Deployment") {
    web.replace(web.find("kind: Deployment"), 16, "kind: " + std::string(webKind));
    web.replace(web.find("    replicas: 1\n"), 16, "");
    policy.replace(policy.find("kind: Deployment"), 16, "kind: " + std::string(webKind));
  }
  const std::string db = workloadYaml({.name = "db",
                                       .requests = "{cpu: \"3\", memory: 1Gi}",
                                       .limits = "",
                                       .model = "{kind: steady, cpuCores: 100m, memoryBytes: "
                                                "100Mi, noise: 0}"});
  return scenarioYaml(db + web, policy, extra, kSmallNode);
}

constexpr std::string_view kCpuShortEvicted =
    R"(attune_eviction_total{namespace="apps",workload="web",result="success",cause="NodeCPUShortage"})";

TEST(NodeOptimisationScenarioTest, APodTheNodeCannotHoldIsEvictedThroughTheEvictionApi) {
  ScenarioHarness h(crowdedNode("Deployment"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const std::string first = h.pod("apps", "web").metadata.name;
  ASSERT_TRUE(h.runUntil([&] { return !h.events(rollout::kEvictedReason).empty(); }, minutes(60)));
  // Not before the pod is 30 minutes old.
  EXPECT_GE(h.elapsed(), minutes(30));
  const api::Event e = h.events(rollout::kEvictedReason)[0];
  EXPECT_EQ(e.involvedObject.name, first);
  EXPECT_NE(e.message.find("cannot hold its optimised pods' cpu"), std::string::npos) << e.message;
  EXPECT_EQ(h.metric(kCpuShortEvicted), 1);
  bool inHistory = false;
  for (const auto& entry : h.policy("apps", "web").status.resizeHistory) {
    inHistory |= entry.pod == first && entry.method == api::ResizeMethod::kEviction &&
                 entry.reason == rollout::kNodeCpuCause;
  }
  EXPECT_TRUE(inHistory);
  // The pod is gone and the Deployment made another; the other workload was never touched.
  h.runMinutes(2);
  const auto pods = h.pods("apps", "web", /*all=*/true);
  for (const auto& pod : pods) EXPECT_NE(pod.metadata.name, first);
  EXPECT_EQ(cpuRequest(h.pod("apps", "db")), 3000_m);
}

TEST(NodeOptimisationScenarioTest, EvictionsFollowTheRankingLowThenMediumThenHigh) {
  // An unoptimised pod holds 3 of the node's 4 cores; three optimised workloads use 600m each
  // (1.8 cores in the one core left). Low goes first, then Medium; then High fits and stays.
  // Their names sort in another order (high, low, medium).
  std::string workloads = workloadYaml({.name = "db",
                                        .requests = "{cpu: \"3\", memory: 1Gi}",
                                        .limits = "",
                                        .model = "{kind: steady, cpuCores: 100m, memoryBytes: "
                                                 "100Mi, noise: 0}"});
  std::string policies;
  for (const std::string ranking : {"High", "Low", "Medium"}) {
    std::string name = ranking;
    name[0] = static_cast<char>(name[0] - 'A' + 'a');
    workloads += workloadYaml(
        {.name = name,
         .requests = "{cpu: 200m, memory: 256Mi}",
         .limits = "{memory: 1Gi}",
         .model = "{kind: steady, cpuCores: 600m, memoryBytes: 100Mi, noise: 0}",
         .workloadExtra = "    annotations: {attune.io/eviction-ranking: " + ranking + "}\n"});
    policies += optimisedPolicy(name);
  }
  ScenarioHarness h(scenarioYaml(workloads, policies, {}, kSmallNode));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(
      h.runUntil([&] { return h.events(rollout::kEvictedReason).size() >= 2; }, minutes(60)));
  const auto evicted = h.events(rollout::kEvictedReason);
  EXPECT_EQ(evicted[0].involvedObject.name.rfind("low-", 0), 0u) << evicted[0].involvedObject.name;
  EXPECT_EQ(evicted[1].involvedObject.name.rfind("medium-", 0), 0u)
      << evicted[1].involvedObject.name;
  for (const api::Event& e : evicted) {
    EXPECT_NE(e.involvedObject.name.rfind("high-", 0), 0u) << "High was evicted";
  }
}

// The one core left beside `db` (3 of the node's 4) for two optimised workloads of one ranking,
// `calm` and `spiky`, each with its usage model.
std::string twoLowPods(const std::string& calmModel, const std::string& spikyModel) {
  std::string workloads = workloadYaml({.name = "db",
                                        .requests = "{cpu: \"3\", memory: 6Gi}",
                                        .limits = "",
                                        .model = "{kind: steady, cpuCores: 100m, memoryBytes: "
                                                 "100Mi, noise: 0}"});
  std::string policies;
  for (const auto& [name, model] :
       {std::pair{std::string("calm"), calmModel}, std::pair{std::string("spiky"), spikyModel}}) {
    workloads +=
        workloadYaml({.name = name,
                      .requests = "{cpu: 200m, memory: 256Mi}",
                      .limits = "{memory: 2Gi}",
                      .model = model,
                      .workloadExtra = "    annotations: {attune.io/eviction-ranking: Low}\n"});
    policies += optimisedPolicy(name);
  }
  return scenarioYaml(workloads, policies, {}, kSmallNode);
}

TEST(NodeOptimisationScenarioTest, ATieInRankingEvictsTheLargerHeadroomFirst) {
  // Both use 600m most of the time; `spiky` peaks at 1.2 cores. 1.2 cores of bases plus the
  // largest headroom do not fit in one core: the larger headroom goes, though `calm` sorts first.
  ScenarioHarness h(
      twoLowPods("{kind: steady, cpuCores: 600m, memoryBytes: 100Mi, noise: 0}",
                 "{kind: jvm, cpuCores: 600m, heapBytes: 150Mi, floorBytes: 100Mi, "
                 "gcPeriodSeconds: 300, gcDurationSeconds: 60, gcCpuCores: 600m, noise: 0}"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events(rollout::kEvictedReason).empty(); }, minutes(60)));
  const api::Event first = h.events(rollout::kEvictedReason)[0];
  EXPECT_EQ(first.involvedObject.name.rfind("spiky-", 0), 0u) << first.involvedObject.name;
}

TEST(NodeOptimisationScenarioTest, MemoryIsMadeToFitBeforeCpu) {
  // Neither resource fits in what `db` leaves (1 core, 2Gi). `calm` has the larger CPU headroom,
  // `spiky` the larger memory headroom. Memory first: `spiky` is evicted for memory (then `calm`
  // for CPU). CPU first would evict `calm` alone, after which memory fits.
  ScenarioHarness h(
      twoLowPods("{kind: bursty, cpuCores: 600m, memoryBytes: 900Mi, spikeProbability: 0.2, "
                 "spikeFactor: 2, spikeMemoryFactor: 1, noise: 0}",
                 "{kind: bursty, cpuCores: 600m, memoryBytes: 900Mi, spikeProbability: 0.2, "
                 "spikeFactor: 1, spikeMemoryFactor: 2, noise: 0}"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events(rollout::kEvictedReason).empty(); }, minutes(60)));
  bool spikyForMemory = false;
  for (const api::Event& e : h.events(rollout::kEvictedReason)) {
    if (e.involvedObject.name.rfind("spiky-", 0) == 0) {
      spikyForMemory |= e.message.find("optimised pods' memory") != std::string::npos;
    }
  }
  EXPECT_TRUE(spikyForMemory);
}

TEST(NodeOptimisationScenarioTest, APodUnderObservationIsNotEvicted) {
  // The memory resize of the first minutes is observed for an hour: no eviction before it ends.
  ScenarioHarness h(
      crowdedNode("Deployment", {}, {}, "{type: Auto, safetyObservationPeriod: 60m}"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Resized").empty(); }, minutes(10)));
  ASSERT_TRUE(h.runUntil([&] { return !h.events(rollout::kEvictedReason).empty(); }, minutes(90)));
  EXPECT_GE(h.elapsed(), minutes(60));
}

TEST(NodeOptimisationScenarioTest, APodDisruptionBudgetKeepsThePod) {
  ScenarioHarness h(crowdedNode("Deployment",
                                "  podDisruptionBudgets:\n  - namespace: apps\n    name: web\n"
                                "    minAvailable: 1\n"
                                "    selector: {matchLabels: {app.kubernetes.io/name: web}}\n"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const std::string first = h.pod("apps", "web").metadata.name;
  ASSERT_TRUE(
      h.runUntil([&] { return !h.events(rollout::kEvictionBlockedReason).empty(); }, minutes(60)));
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  EXPECT_EQ(h.pod("apps", "web").metadata.name, first);
}

TEST(NodeOptimisationScenarioTest, NoEvictionRankingKeepsThePod) {
  ScenarioHarness h(
      crowdedNode("Deployment", {}, "    annotations: {attune.io/eviction-ranking: NoEviction}\n"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const std::string first = h.pod("apps", "web").metadata.name;
  h.runMinutes(60);
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  EXPECT_EQ(h.pod("apps", "web").metadata.name, first);
}

TEST(NodeOptimisationScenarioTest, ADaemonSetPodIsNeverEvicted) {
  ScenarioHarness h(crowdedNode("DaemonSet"));
  ASSERT_TRUE(h.usable());
  h.runMinutes(1);
  const auto before = h.pods("apps", "web");
  ASSERT_EQ(before.size(), 1u);
  h.runMinutes(60);
  EXPECT_TRUE(h.events(rollout::kEvictedReason).empty());
  const auto after = h.pods("apps", "web");
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].metadata.name, before[0].metadata.name);
}

// One steady pod whose memory limits Attune manages; `annotations` on its Deployment.
std::string steadyPod(std::string_view annotations = {}) {
  return scenarioYaml(workloadYaml({.name = "web",
                                    .requests = "{cpu: 500m, memory: 512Mi}",
                                    .limits = "{memory: 4Gi}",
                                    .workloadExtra = std::string(annotations)}),
                      optimisedPolicy("web"), {}, kSmallNode);
}

TEST(NodeOptimisationScenarioTest, TheMemoryLimitIsTwiceTheWeeksMaximum) {
  ScenarioHarness h(steadyPod());
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Resized").empty(); }, minutes(30)));
  h.runMinutes(2);
  const api::ResourceValues r = specResources(h.pod("apps", "web"), "app");
  EXPECT_TRUE(near(r.memoryRequest, 200_Mi, 0.05)) << describe(r);
  EXPECT_TRUE(near(r.memoryLimit, 400_Mi, 0.05)) << describe(r);
}

TEST(NodeOptimisationScenarioTest, TheMemoryLimitCoversTheMemoryAtAnOomKill) {
  // 1.5Gi recorded at an OOM kill (OOM recovery's workload annotation): the limit is 3Gi.
  ScenarioHarness h(steadyPod("    annotations: {attune.io/oom-memory.app: \"1610612736\"}\n"));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Resized").empty(); }, minutes(30)));
  h.runMinutes(2);
  const api::ResourceValues r = specResources(h.pod("apps", "web"), "app");
  EXPECT_EQ(r.memoryLimit, 3_Gi) << describe(r);
}

TEST(NodeOptimisationScenarioTest, ANodeOptimisedResizeIsRevertedLikeAnyOther) {
  // Memory leaks toward the 1Gi limit (RequestsOnly: the limit stays), OOM-killed about 41
  // minutes in, inside the hour of observation of the resize the node optimiser made.
  ScenarioHarness h(
      scenarioYaml(workloadYaml({.name = "leaky",
                                 .model = "{kind: memory-leak, cpuCores: 200m, memoryBytes: 200Mi, "
                                          "leakBytesPerHour: 1200Mi, noise: 0}"}),
                   policyYaml({.name = "leaky",
                               .target = "leaky",
                               .updateStrategy = "{type: Auto, safetyObservationPeriod: 60m}",
                               .controlledValues = "RequestsOnly",
                               .extra = std::string(kNodeOptimisation)}),
                   {}, kSmallNode));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Resized").empty(); }, minutes(30)));
  const api::Pod resized = h.pod("apps", "leaky");
  EXPECT_LT(cpuRequest(resized), 500_m);
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Reverted").empty(); }, minutes(60)));
  h.runMinutes(2);
  const api::Pod reverted = h.pod("apps", "leaky");
  EXPECT_EQ(reverted.metadata.name, resized.metadata.name);
  EXPECT_EQ(cpuRequest(reverted), 500_m);
  EXPECT_FALSE(history(h.policy("apps", "leaky"), api::ResizeResult::kReverted, "oomkill").empty());
}

TEST(NodeOptimisationScenarioTest, WithoutTheFieldThePolicysStrategySizesThePods) {
  // The same steady pod without nodeOptimization: the attune strategy's 1.5 × usage.
  ScenarioHarness h(scenarioYaml(workloadYaml({.name = "web"}),
                                 policyYaml({.name = "web", .target = "web"}), {}, kSmallNode));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.events("Resized").empty(); }, minutes(30)));
  h.runMinutes(2);
  EXPECT_TRUE(near(specResources(h.pod("apps", "web"), "app").cpuRequest, 300_m));
  ScenarioHarness n(steadyPod());
  ASSERT_TRUE(n.usable());
  ASSERT_TRUE(n.runUntil([&] { return !n.events("Resized").empty(); }, minutes(30)));
  n.runMinutes(2);
  EXPECT_TRUE(near(specResources(n.pod("apps", "web"), "app").cpuRequest, 200_m));
}

}  // namespace
}  // namespace attune::controller
