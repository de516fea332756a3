// Rollout modes and pacing: Observe/Recommend/paused do nothing, OneShot resizes one pod per
// pass, Auto honours maxConcurrentResizes (counting pods under observation), Canary resizes
// its percentage first, then waits; cooldown spaces new targets.
#include <gtest/gtest.h>

#include "rollout/planner.h"
#include "rollout_testing.h"
#include "safety/annotations.h"
#include "safety/resize_record.h"

namespace attune::rollout {
namespace {

using namespace testing;

// Marks `p` as resized to the default target at `at` and still under observation.
void underObservation(api::Pod& p, Time at) {
  safety::ResizeRecord r;
  r.resizedAt = at;
  r.workload = "web";
  r.containers.push_back({"app", {500_m, 1000_m, 512_Mi, 1_Gi}, {250_m, 1000_m, 384_Mi, 1_Gi}, 1});
  const api::AnnotationChanges changes = safety::encodeResizeAnnotations(r).value();
  for (const auto& [k, v] : changes) {
    p.metadata.annotations[k] = *v;
  }
  p.spec.containers[0].resources = resources("250m", "384Mi", "1", "1Gi");
  p.status.containerStatuses[0].resources = p.spec.containers[0].resources;
}

// Marks `p` as already at the default target (resized earlier, declared safe).
void atTarget(api::Pod& p) {
  p.spec.containers[0].resources = resources("250m", "384Mi", "1", "1Gi");
  p.status.containerStatuses[0].resources = p.spec.containers[0].resources;
}

TEST(Modes, ObserveRecommendAndPausedPlanNothing) {
  auto ps = pods(3);
  RolloutInput in{{web(ps)}};
  for (api::UpdateMode mode : {api::UpdateMode::kObserve, api::UpdateMode::kRecommend}) {
    Plan plan = planRollout(policy(mode), in, t0());
    EXPECT_TRUE(plan.actions.empty()) << api::toString(mode);
  }
  api::AttunePolicy paused = policy(api::UpdateMode::kAuto);
  paused.spec.paused = true;
  EXPECT_TRUE(planRollout(paused, in, t0()).actions.empty());
  // The same input in Auto does resize: the emptiness above is the mode's doing.
  EXPECT_EQ(resized(planRollout(policy(api::UpdateMode::kAuto), in, t0())).size(), 3u);
}

TEST(Modes, OneShotResizesOnePodPerPass) {
  auto ps = pods(3);
  Plan plan = planRollout(policy(api::UpdateMode::kOneShot), {{web(ps)}}, t0());
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-0"}));
  EXPECT_EQ(plan.waiting, 2);
}

TEST(Modes, AutoRespectsMaxConcurrentResizesCountingObservedPods) {
  auto ps = pods(5);
  Plan plan = planRollout(policy(api::UpdateMode::kAuto, 2), {{web(ps)}}, t0());
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-0", "web-1"}));
  EXPECT_EQ(plan.waiting, 3);

  underObservation(ps[0], t0());
  plan = planRollout(policy(api::UpdateMode::kAuto, 2), {{web(ps)}}, t0() + 1min);
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-1"}));
  EXPECT_EQ(plan.underObservation, 1);

  // Resizes in flight the pods do not show yet count too.
  RolloutInput in{{web(ps)}};
  in.resizesInFlight = 2;
  EXPECT_TRUE(resized(planRollout(policy(api::UpdateMode::kAuto, 2), in, t0())).empty());
}

// A resize the kubelet has held Deferred (the node has no room) holds its slot for
// kDeferredResizeTimeout, then stops holding it: the pod stays under observation and reported,
// and the other pods of the policy are resized again.
TEST(Modes, AResizeDeferredPastTheTimeoutNoLongerHoldsASlot) {
  auto ps = pods(3);
  underObservation(ps[0], t0());
  ps[0].status.containerStatuses[0].resources = resources("500m", "512Mi", "1", "1Gi");
  ps[0].status.conditions.push_back({"PodResizePending", "True", "Deferred", "", t0(), 0});
  Plan plan = planRollout(policy(api::UpdateMode::kAuto, 1), {{web(ps)}}, t0() + 4min);
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(plan.waiting, 2);

  plan = planRollout(policy(api::UpdateMode::kAuto, 1), {{web(ps)}}, t0() + 5min);
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-1"}));
  EXPECT_EQ(plan.underObservation, 1);
  ASSERT_TRUE(plan.resizeBlocked.has_value());
  EXPECT_EQ(plan.resizeBlocked->reason, "PodsDeferred");
}

TEST(Modes, PodUnderObservationIsNotResizedAgain) {
  auto ps = pods(1);
  underObservation(ps[0], t0());
  ps[0].spec.containers[0].resources = resources("300m", "384Mi", "1", "1Gi");  // off target
  Plan plan = planRollout(policy(api::UpdateMode::kAuto), {{web(ps)}}, t0() + 1min);
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(plan.underObservation, 1);
}

TEST(Modes, PodAtTargetIsNotResized) {
  auto ps = pods(2);
  atTarget(ps[0]);
  Plan plan = planRollout(policy(api::UpdateMode::kAuto), {{web(ps)}}, t0());
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-1"}));
  EXPECT_EQ(plan.atTarget, 1);
}

api::AttunePolicy canaryPolicy(int percentage, bool autoPromote) {
  api::AttunePolicy p = policy(api::UpdateMode::kCanary);
  p.spec.updateStrategy.canary = api::CanaryConfig{percentage, 30min, autoPromote};
  return p;
}

TEST(Canary, ResizesThePercentageRoundedUp) {
  auto ps = pods(10);
  Plan plan = planRollout(canaryPolicy(25, true), {{web(ps)}}, t0());  // 2.5 → 3
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-0", "web-1", "web-2"}));
  for (const ResizeAction* r : plan.all<ResizeAction>()) EXPECT_TRUE(r->canary);

  auto three = pods(3);
  plan = planRollout(canaryPolicy(10, true), {{web(three)}}, t0());  // 0.3 → 1
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-0"}));
}

TEST(Canary, WaitsForObservationThenTheCanaryPeriodBeforeContinuing) {
  auto ps = pods(4);  // 25% → 1 canary
  underObservation(ps[0], t0());
  WorkloadInput w = web(ps);
  Plan plan = planRollout(canaryPolicy(25, true), {{w}}, t0() + 2min);
  EXPECT_TRUE(resized(plan).empty());
  ASSERT_EQ(plan.all<DeferAction>().size(), 1u);
  EXPECT_EQ(plan.all<DeferAction>()[0]->reason, DeferReason::kCanaryObserving);

  // Declared safe at t0 + 6m: the rest wait canary.observationPeriod (30m) after that.
  atTarget(ps[0]);
  ps[0].metadata.annotations.clear();
  w = web(ps);
  w.metadata.annotations[std::string(safety::kLastResizeTimeAnnotation)] = "2025-03-01T12:00:00Z";
  w.metadata.annotations[std::string(safety::kLastSafeTimeAnnotation)] = "2025-03-01T12:06:00Z";
  plan = planRollout(canaryPolicy(25, true), {{w}}, t0() + 20min);
  EXPECT_TRUE(resized(plan).empty());
  ASSERT_EQ(plan.all<DeferAction>().size(), 1u);
  EXPECT_EQ(plan.all<DeferAction>()[0]->reason, DeferReason::kCanaryWaiting);
  EXPECT_EQ(plan.requeueAfter, 16min);

  plan = planRollout(canaryPolicy(25, true), {{w}}, t0() + 36min);
  EXPECT_EQ(resized(plan), (std::vector<std::string>{"web-1", "web-2", "web-3"}));
  for (const ResizeAction* r : plan.all<ResizeAction>()) EXPECT_FALSE(r->canary);

  // Once promoted, pods under observation no longer hold the others back.
  auto promoted = ps;
  underObservation(promoted[1], t0() + 36min);
  WorkloadInput pw = web(promoted);
  pw.metadata.annotations = w.metadata.annotations;
  EXPECT_EQ(resized(planRollout(canaryPolicy(25, true), {{pw}}, t0() + 37min)),
            (std::vector<std::string>{"web-2", "web-3"}));

  // Without autoPromote the canaries stay alone.
  plan = planRollout(canaryPolicy(25, false), {{w}}, t0() + 36min);
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(plan.all<DeferAction>()[0]->reason, DeferReason::kCanaryNotPromoted);
}

TEST(Cooldown, SkipsANewTargetUntilTheCooldownTimesTheBackoffHasPassed) {
  auto ps = pods(2);
  WorkloadInput w = web(ps);
  w.metadata.annotations[std::string(safety::kLastResizeTimeAnnotation)] = "2025-03-01T11:50:00Z";
  Plan plan = planRollout(policy(api::UpdateMode::kAuto), {{w}}, t0());
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web:Cooldown"}));
  EXPECT_EQ(plan.all<SkipAction>()[0]->requeueAfter, 50min);

  w.metadata.annotations[std::string(safety::kConsecutiveRevertsAnnotation)] = "2";
  plan = planRollout(policy(api::UpdateMode::kAuto), {{w}}, t0());
  EXPECT_EQ(plan.requeueAfter, 4h - 10min);
  EXPECT_EQ(resized(planRollout(policy(api::UpdateMode::kAuto), {{w}}, t0() + 4h)).size(), 2u);
}

TEST(Cooldown, ATargetAlreadyRollingOutContinuesUnlessSomethingWasReverted) {
  auto ps = pods(3);
  atTarget(ps[0]);  // declared safe earlier in this rollout
  WorkloadInput w = web(ps);
  w.metadata.annotations[std::string(safety::kLastResizeTimeAnnotation)] = "2025-03-01T11:50:00Z";
  EXPECT_EQ(resized(planRollout(policy(api::UpdateMode::kAuto), {{w}}, t0())),
            (std::vector<std::string>{"web-1", "web-2"}));

  w.metadata.annotations[std::string(safety::kConsecutiveRevertsAnnotation)] = "1";
  Plan plan = planRollout(policy(api::UpdateMode::kAuto), {{w}}, t0());
  EXPECT_TRUE(resized(plan).empty());
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web:Cooldown"}));
}

TEST(Cooldown, MalformedAnnotationSkipsTheWorkload) {
  auto ps = pods(1);
  WorkloadInput w = web(ps);
  w.metadata.annotations[std::string(safety::kLastResizeTimeAnnotation)] = "an hour ago";
  Plan plan = planRollout(policy(api::UpdateMode::kAuto), {{w}}, t0());
  EXPECT_EQ(skips(plan), (std::vector<std::string>{"web:InvalidAnnotation"}));
}

}  // namespace
}  // namespace attune::rollout
