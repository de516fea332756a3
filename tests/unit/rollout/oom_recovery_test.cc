#include "rollout/oom_recovery.h"

#include <gtest/gtest.h>

#include "support/pod_builder.h"

namespace attune::rollout {
namespace {

using namespace std::chrono_literals;
using testing::PodBuilder;
using testing::resources;
using Outcome = OomDecision::Outcome;

const Time kNow = Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5)) + 10h;

// A ready pod of Deployment web whose container `app` (limit 512Mi) was OOM-killed at `killedAt`.
api::Pod oomKilledPod(std::string name, Time killedAt) {
  api::Pod pod = PodBuilder("shop", std::move(name))
                     .container("app", resources("250m", "256Mi", "", "512Mi"))
                     .ready(killedAt, 1)
                     .build();
  pod.metadata.uid = "uid-" + pod.metadata.name;
  pod.status.containerStatuses[0].lastState.terminated =
      api::ContainerStateTerminated{.exitCode = 137, .reason = "OOMKilled", .finishedAt = killedAt};
  return pod;
}

struct Fixture {
  api::ObjectMeta workloadMeta;
  std::vector<api::Pod> pods;
  bool memoryManaged = true;
  std::vector<bool> observed;

  OomWorkload workload() const {
    OomWorkload w{.ref = {"shop", "Deployment", "web"},
                  .meta = &workloadMeta,
                  .memoryManaged = memoryManaged};
    for (std::size_t i = 0; i < pods.size(); ++i) {
      w.pods.push_back({&pods[i], i < observed.size() && observed[i]});
    }
    return w;
  }
};

TEST(OomRecovery, AnOomKilledPodIsEvictedAfterItsMemoryIsRecorded) {
  Fixture f{.pods = {oomKilledPod("web-1", kNow - 1min), PodBuilder("shop", "web-2").build()}};
  OomCooldowns cooldowns;
  Plan plan;
  const auto decisions = planOomRecovery(f.workload(), cooldowns, kNow, {}, plan);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].outcome, Outcome::kEvict);
  EXPECT_EQ(decisions[0].memoryAtKill, Bytes(512LL << 20));
  const auto evictions = plan.all<EvictAction>();
  ASSERT_EQ(evictions.size(), 1u);
  const EvictAction& e = *evictions[0];
  EXPECT_EQ(e.pod, "web-1");
  EXPECT_EQ(e.podUid, "uid-web-1");
  EXPECT_EQ(e.cause, "OOMKilled");
  EXPECT_EQ(e.container, "app");
  EXPECT_EQ(e.workloadAnnotations.at("attune.io/oom-memory.app"), std::to_string(512LL << 20));
  EXPECT_EQ(e.message,
            "evicted for recreation with a higher memory limit: app OOM-killed at its memory "
            "limit 512Mi");
  EXPECT_TRUE(cooldowns.contains("web-1/app"));
}

TEST(OomRecovery, ThePodsOfTheSafetyMonitorAreLeftToIt) {
  // A pod under observation after an Attune resize: the monitor reverts it in place.
  Fixture f{.pods = {oomKilledPod("web-1", kNow - 1min)}, .observed = {true}};
  OomCooldowns cooldowns;
  Plan plan;
  auto decisions = planOomRecovery(f.workload(), cooldowns, kNow, {}, plan);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].outcome, Outcome::kLeftToSafetyMonitor);
  EXPECT_TRUE(plan.actions.empty());

  // The monitor reverted it (the record is gone) while its status still shows that kill: the
  // kill was the monitor's, so it is not evicted for it as well.
  f.observed = {false};
  Plan afterRevert;
  decisions = planOomRecovery(f.workload(), cooldowns, kNow + 1min, {}, afterRevert);
  EXPECT_EQ(decisions[0].outcome, Outcome::kAlreadyHandled);
  EXPECT_TRUE(afterRevert.actions.empty());

  // A new kill at the original resources, minutes later, is OOM recovery's: no cooldown started
  // with the monitor's kill.
  f.pods[0] = oomKilledPod("web-1", kNow + 5min);
  Plan next;
  decisions = planOomRecovery(f.workload(), cooldowns, kNow + 6min, {}, next);
  EXPECT_EQ(decisions[0].outcome, Outcome::kEvict);
  EXPECT_EQ(next.all<EvictAction>().size(), 1u);
}

TEST(OomRecovery, ASecondKillInsideTheCooldownIsNotEvictedAgain) {
  Fixture f{.pods = {oomKilledPod("web-1", kNow - 1min)}};
  OomCooldowns cooldowns;
  Plan first;
  planOomRecovery(f.workload(), cooldowns, kNow, {}, first);
  ASSERT_EQ(first.all<EvictAction>().size(), 1u);
  // The same kill seen again (the eviction was refused, or not yet done): handled already.
  Plan again;
  auto decisions = planOomRecovery(f.workload(), cooldowns, kNow + 1min, {}, again);
  EXPECT_EQ(decisions[0].outcome, Outcome::kAlreadyHandled);
  EXPECT_TRUE(again.actions.empty());
  // A second kill of the same pod 10 minutes later: inside the 30-minute cooldown.
  f.pods[0] = oomKilledPod("web-1", kNow + 10min);
  Plan second;
  decisions = planOomRecovery(f.workload(), cooldowns, kNow + 11min, {}, second);
  EXPECT_EQ(decisions[0].outcome, Outcome::kCooldown);
  EXPECT_TRUE(second.actions.empty());
  // After the cooldown the next kill is handled.
  f.pods[0] = oomKilledPod("web-1", kNow + 40min);
  Plan third;
  decisions = planOomRecovery(f.workload(), cooldowns, kNow + 41min, {}, third);
  EXPECT_EQ(decisions[0].outcome, Outcome::kEvict);
  EXPECT_EQ(third.all<EvictAction>().size(), 1u);
}

TEST(OomRecovery, TheCooldownIsKeyedByPodAndContainer) {
  // web-1's app is killed and evicted; 5 minutes later, inside that cooldown, its replacement
  // web-2 (a new pod name) and another container of web-1 are killed: neither is in a cooldown.
  Fixture f{.pods = {oomKilledPod("web-1", kNow - 1min)}};
  OomCooldowns cooldowns;
  Plan first;
  planOomRecovery(f.workload(), cooldowns, kNow, {}, first);
  ASSERT_EQ(first.all<EvictAction>().size(), 1u);

  Fixture replacement{.pods = {oomKilledPod("web-2", kNow + 4min)}};
  Plan second;
  auto decisions = planOomRecovery(replacement.workload(), cooldowns, kNow + 5min, {}, second);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].outcome, Outcome::kEvict);
  EXPECT_EQ(second.all<EvictAction>().size(), 1u);

  // web-1 still runs (say its eviction was refused): its app container's kill is the one already
  // handled, its sidecar's kill is new and evicts the pod.
  api::Pod twoContainers = oomKilledPod("web-1", kNow - 1min);
  twoContainers.spec.containers.push_back(twoContainers.spec.containers[0]);
  twoContainers.spec.containers[1].name = "side";
  twoContainers.status.containerStatuses.push_back(twoContainers.status.containerStatuses[0]);
  twoContainers.status.containerStatuses[1].name = "side";
  twoContainers.status.containerStatuses[1].lastState.terminated->finishedAt = kNow + 4min;
  Fixture sidecar{.pods = {twoContainers}};
  Plan third;
  decisions = planOomRecovery(sidecar.workload(), cooldowns, kNow + 5min, {}, third);
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_EQ(decisions[0].container, "app");
  EXPECT_EQ(decisions[0].outcome, Outcome::kAlreadyHandled);
  EXPECT_EQ(decisions[1].container, "side");
  EXPECT_EQ(decisions[1].outcome, Outcome::kEvict);
  const auto evictions = third.all<EvictAction>();
  ASSERT_EQ(evictions.size(), 1u);
  EXPECT_EQ(evictions[0]->container, "side");
}

TEST(OomRecovery, OptedOutPodsAndUnmanagedMemoryAreNeverEvicted) {
  Fixture podOptOut{.pods = {oomKilledPod("web-1", kNow - 1min)}};
  podOptOut.pods[0].metadata.annotations["attune.io/skip"] = "true";
  Fixture workloadOptOut{.pods = {oomKilledPod("web-1", kNow - 1min)}};
  workloadOptOut.workloadMeta.annotations["attune.io/skip"] = "true";
  Fixture unmanaged{.pods = {oomKilledPod("web-1", kNow - 1min)}, .memoryManaged = false};
  for (const Fixture* f : {&podOptOut, &workloadOptOut, &unmanaged}) {
    OomCooldowns cooldowns;
    Plan plan;
    const auto decisions = planOomRecovery(f->workload(), cooldowns, kNow, {}, plan);
    ASSERT_EQ(decisions.size(), 1u);
    EXPECT_EQ(decisions[0].outcome, Outcome::kOptedOut);
    EXPECT_TRUE(plan.actions.empty());
  }
}

TEST(OomRecovery, TheRecordedMemoryOnlyGoesUp) {
  Fixture f{.pods = {oomKilledPod("web-1", kNow - 1min)}};
  f.workloadMeta.annotations["attune.io/oom-memory.app"] = std::to_string(1LL << 30);
  EXPECT_EQ(recordedOomMemory(f.workloadMeta.annotations, "app"), Bytes(1LL << 30));
  OomCooldowns cooldowns;
  Plan plan;
  planOomRecovery(f.workload(), cooldowns, kNow, {}, plan);
  const auto evictions = plan.all<EvictAction>();
  ASSERT_EQ(evictions.size(), 1u);
  // 512Mi is below the 1Gi already recorded: the pod is evicted, the record kept.
  EXPECT_TRUE(evictions[0]->workloadAnnotations.empty());
  EXPECT_EQ(recordedOomMemory({{"attune.io/oom-memory.app", "lots"}}, "app"), Bytes(0));
  EXPECT_EQ(recordedOomMemory({}, "app"), Bytes(0));
}

TEST(OomRecovery, OtherTerminationsAreNotOomKills) {
  Fixture f{.pods = {oomKilledPod("web-1", kNow - 1min)}};
  f.pods[0].status.containerStatuses[0].lastState.terminated->reason = "Error";
  OomCooldowns cooldowns;
  Plan plan;
  EXPECT_TRUE(planOomRecovery(f.workload(), cooldowns, kNow, {}, plan).empty());
  EXPECT_TRUE(plan.actions.empty());
}

}  // namespace
}  // namespace attune::rollout
