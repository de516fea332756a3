// How a recommendation becomes a pod's new resources, and what a Resize action carries.
#include "rollout/pod_targets.h"

#include <gtest/gtest.h>

#include "rollout/planner.h"
#include "rollout_testing.h"
#include "safety/resize_record.h"

namespace attune::rollout {
namespace {

using namespace testing;
using CV = api::ControlledValues;

TEST(DeriveTarget, RequestsAndLimitsKeepsTheRatio) {
  const api::ResourceValues current{500_m, 1000_m, 512_Mi, 1_Gi};
  const api::ResourceValues t =
      deriveTarget(current, target(333_m, 384_Mi), CV::kRequestsAndLimits, false);
  EXPECT_EQ(t, (api::ResourceValues{333_m, 666_m, 384_Mi, 768_Mi}));
  // Rounded up: 333 × 3/2 = 499.5 → 500.
  EXPECT_EQ(deriveTarget({200_m, 300_m, {}, {}}, target(333_m, 0_B), CV::kRequestsAndLimits, false)
                .cpuLimit,
            500_m);
}

TEST(DeriveTarget, RequestsOnlyKeepsTheLimitAndCapsTheRequestAtIt) {
  const api::ResourceValues current{500_m, 1000_m, 512_Mi, 1_Gi};
  EXPECT_EQ(deriveTarget(current, target(250_m, 2_Gi), CV::kRequestsOnly, false),
            (api::ResourceValues{250_m, 1000_m, 1_Gi, 1_Gi}));
}

TEST(DeriveTarget, NeverAddsARequestOrALimit) {
  const api::ResourceValues current{500_m, {}, {}, {}};
  EXPECT_EQ(deriveTarget(current, target(250_m, 256_Mi), CV::kRequestsAndLimits, false),
            (api::ResourceValues{250_m, {}, {}, {}}));
}

TEST(ResizeAction, CarriesTheRecordToWriteFirstAndTheHistoryChanges) {
  auto ps = pods(1);
  ps[0].status.containerStatuses[0].restartCount = 4;
  api::AttunePolicy p = policy(api::UpdateMode::kAuto);
  p.spec.memory.controlledValues = CV::kRequestsAndLimits;
  // The memory limit decreases: a server that lowers it in place, and usage well below it.
  RolloutInput input{{web(ps)}};
  input.serverVersion = *api::parseServerVersion("v1.34.0");
  input.memoryUsage = [name = ps[0].metadata.name](const api::Pod& pod,
                                                   std::string_view c) -> std::optional<Bytes> {
    if (pod.metadata.name != name || c != "app") return std::nullopt;
    return 100_Mi;
  };
  Plan plan = planRollout(p, input, t0());
  ASSERT_EQ(plan.all<ResizeAction>().size(), 1u);
  const ResizeAction& r = *plan.all<ResizeAction>()[0];
  EXPECT_EQ(r.workload, api::workloadRef(api::WorkloadKind::kDeployment, "team", "web"));
  EXPECT_EQ(r.containers[0].resources, resources("250m", "384Mi", "1", "768Mi"));

  const safety::ContainerRecord& c = r.record.containers.at(0);
  EXPECT_EQ(r.record.resizedAt, t0());
  EXPECT_EQ(r.record.policy, "web-policy");
  EXPECT_EQ(c.original, (api::ResourceValues{500_m, 1000_m, 512_Mi, 1_Gi}));
  EXPECT_EQ(c.target, (api::ResourceValues{250_m, 1000_m, 384_Mi, 768_Mi}));
  EXPECT_EQ(c.restartCount, 4);
  EXPECT_EQ(r.annotations.at("attune.io/original-restart-count.app"), "4");
  EXPECT_EQ(r.annotations.at("attune.io/resized-at"), "2025-03-01T12:00:00Z");

  ASSERT_EQ(r.changes.size(), 2u);
  EXPECT_EQ(r.changes[0],
            (ResourceChange{"app", api::ResizedResource::kCpu, "500m", "250m", "1", "1"}));
  EXPECT_EQ(r.changes[1], (ResourceChange{"app", api::ResizedResource::kMemory, "512Mi", "384Mi",
                                          "1Gi", "768Mi"}));
  EXPECT_EQ(r.message, "app: cpu 500m -> 250m, app: memory 512Mi -> 384Mi (limit 1Gi -> 768Mi)");
}

}  // namespace
}  // namespace attune::rollout
