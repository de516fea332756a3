// Cooldown with exponential backoff, and the workload annotations that carry its state.
#include "safety/cooldown.h"

#include <gtest/gtest.h>

#include "safety/annotations.h"
#include "safety_testing.h"

namespace attune::safety {
namespace {

using namespace testing;

api::ObjectMeta workload(api::StringMap annotations = {}) {
  api::ObjectMeta meta;
  meta.namespace_ = "team";
  meta.name = "web";
  meta.annotations = std::move(annotations);
  return meta;
}

void applyChanges(api::ObjectMeta& meta, const api::AnnotationChanges& changes) {
  for (const auto& [k, v] : changes) {
    if (v) {
      meta.annotations[k] = *v;
    } else {
      meta.annotations.erase(k);
    }
  }
}

TEST(Backoff, MultiplierDoublesPerRevertUpTo16) {
  std::vector<int> got;
  for (int reverts = 0; reverts <= 5; ++reverts) got.push_back(cooldownMultiplier(reverts));
  EXPECT_EQ(got, (std::vector<int>{1, 2, 4, 8, 16, 16}));
  EXPECT_EQ(cooldownMultiplier(40), 16);
  EXPECT_EQ(effectiveCooldown(1h, 3), 8h);
}

TEST(Cooldown, RemainingCountsFromLastResizeTime) {
  CooldownState state;
  EXPECT_EQ(remainingCooldown(state, 1h, t0()), Duration::zero());  // never resized
  state.lastResizeTime = t0() - 10min;
  EXPECT_EQ(remainingCooldown(state, 1h, t0()), 50min);
  state.consecutiveReverts = 2;
  EXPECT_EQ(remainingCooldown(state, 1h, t0()), 4h - 10min);
  EXPECT_EQ(remainingCooldown(state, 1h, t0() + 5h), Duration::zero());
}

TEST(Cooldown, StateRoundTripsThroughWorkloadAnnotations) {
  api::ObjectMeta meta = workload();
  EXPECT_EQ(decodeCooldownState(meta).value(), CooldownState{});

  applyChanges(meta, annotationsAfterResize(t0()));
  EXPECT_EQ(meta.annotations.at("attune.io/last-resize-time"), "2025-03-01T12:00:00Z");
  CooldownState s = decodeCooldownState(meta).value();
  applyChanges(meta, annotationsAfterRevert(s, t0() + 7min));
  applyChanges(meta, annotationsAfterRevert(decodeCooldownState(meta).value(), t0() + 3h));
  s = decodeCooldownState(meta).value();
  EXPECT_EQ(s.consecutiveReverts, 2);
  EXPECT_EQ(s.lastResizeTime, t0() + 3h);

  applyChanges(meta, annotationsAfterSafe(t0() + 9h));
  s = decodeCooldownState(meta).value();
  EXPECT_EQ(s.consecutiveReverts, 0);
  EXPECT_EQ(s.lastSafeTime, t0() + 9h);
  EXPECT_FALSE(meta.annotations.contains("attune.io/consecutive-reverts"));
}

TEST(Cooldown, MalformedAnnotationsNameTheirKey) {
  auto bad = decodeCooldownState(workload({{"attune.io/last-resize-time", "soon"}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "attune.io/last-resize-time");
  bad = decodeCooldownState(workload({{"attune.io/consecutive-reverts", "-2"}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "attune.io/consecutive-reverts");
}

}  // namespace
}  // namespace attune::safety
