// updateStrategy.schedule end to end: resizes only inside the windows, in the schedule's time
// zone and on its days; outside them the ScheduleBlocked condition says until when; reverts are
// never held back.
#include <gtest/gtest.h>

#include "core/units.h"
#include "rollout/resize_schedule.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using Kind = ActionRecord::Kind;

Time at(std::string_view rfc3339) { return *parseRfc3339(rfc3339); }

const api::Condition* scheduleBlocked(const api::AttunePolicy& p) {
  return condition(p, rollout::kConditionScheduleBlocked);
}

// kStart is Monday 2026-01-05 00:00 UTC, Sunday 19:00 in New York (EST, UTC-5): the Monday
// window 02:00-04:00 New York time is 07:00-09:00 UTC.
TEST(ScheduleTest, ResizesWaitForTheWindowInTheScheduleTimeZone) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web"}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy = "{type: Auto, schedule: {windows: [{start: \"02:00\", end: "
                                    "\"04:00\"}], daysOfWeek: [Monday], timezone: "
                                    "America/New_York}}"})));
  ASSERT_TRUE(h.usable());
  h.run(at("2026-01-05T06:59:00Z") - h.now());
  EXPECT_TRUE(h.actions(Kind::kResized).empty()) << "no resize before the window";
  EXPECT_EQ(specResources(h.pod("apps", "web"), "app").cpuRequest, 500_m);
  const api::AttunePolicy before = h.policy("apps", "web");
  ASSERT_FALSE(before.status.recommendations.empty()) << "recommendations are made meanwhile";
  const api::Condition* blocked = scheduleBlocked(before);
  ASSERT_NE(blocked, nullptr);
  EXPECT_TRUE(blocked->isTrue());
  EXPECT_EQ(blocked->reason, "OutsideWindow");
  EXPECT_NE(blocked->message.find("the next window opens at 2026-01-05T07:00:00Z (02:00 "
                                  "America/New_York)"),
            std::string::npos)
      << blocked->message;
  EXPECT_TRUE(h.events("Resized").empty());
  EXPECT_TRUE(history(before, std::nullopt).empty()) << "a deferral writes no history";

  // The pass at 07:00 is queued for the window's opening.
  h.runMinutes(2);
  ASSERT_EQ(h.actions(Kind::kResized).size(), 1u);
  EXPECT_EQ(h.actions(Kind::kResized)[0].time, at("2026-01-05T07:00:00Z"));
  EXPECT_TRUE(near(specResources(h.pod("apps", "web"), "app").cpuRequest, 300_m));
  const api::AttunePolicy open = h.policy("apps", "web");
  EXPECT_EQ(scheduleBlocked(open), nullptr) << "removed while a window is open";
  EXPECT_FALSE(history(open, api::ResizeResult::kSuccess).empty());

  // After 04:00 New York time the condition names next Monday.
  h.run(at("2026-01-05T09:01:00Z") - h.now());
  const api::AttunePolicy closed = h.policy("apps", "web");
  blocked = scheduleBlocked(closed);
  ASSERT_NE(blocked, nullptr);
  EXPECT_NE(blocked->message.find("2026-01-12T07:00:00Z"), std::string::npos) << blocked->message;
}

TEST(ScheduleTest, AWindowPastMidnightBelongsToTheDayItStartsOn) {
  // Sunday 23:00-01:00 UTC: open from the start (Monday 00:00 is the tail of Sunday's window).
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web"}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy = "{type: Auto, schedule: {windows: [{start: \"23:00\", end: "
                                    "\"01:00\"}], daysOfWeek: [Sunday]}}"})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 1h));
  EXPECT_LT(h.actions(Kind::kResized)[0].time, at("2026-01-05T01:00:00Z"));
  EXPECT_EQ(scheduleBlocked(h.policy("apps", "web")), nullptr);
}

// Demand 600m; the policy caps CPU at 200m with the limit following the request, so the resize
// is throttled and reverted when its 10-minute observation ends, after the 5-minute window.
TEST(ScheduleTest, RevertsAreNotHeldBackOutsideTheWindow) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "busy",
                    .requests = "{cpu: \"1\", memory: 512Mi}",
                    .limits = "{cpu: \"1\", memory: 1Gi}",
                    .model = "{kind: steady, cpuCores: 600m, memoryBytes: 200Mi, noise: 0}"}),
      policyYaml({.name = "busy",
                  .target = "busy",
                  .updateStrategy = "{type: Auto, safetyObservationPeriod: 10m, schedule: "
                                    "{windows: [{start: \"00:00\", end: \"00:05\"}]}}",
                  .cpu = "maxAllowed: 200m",
                  .minimumDataPoints = 2})));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 5min));
  const Time resizedAt = h.actions(Kind::kResized).front().time;
  ASSERT_LT(resizedAt, at("2026-01-05T00:05:00Z"));
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kReverted).empty(); }, 20min));
  const ActionRecord revert = h.actions(Kind::kReverted).front();
  EXPECT_EQ(revert.reason, "throttle");
  EXPECT_GE(revert.time, at("2026-01-05T00:05:00Z")) << "the revert came after the window";
  h.runMinutes(1);
  EXPECT_EQ(specResources(h.pod("apps", "busy"), "app").cpuRequest, 1000_m);
  const api::AttunePolicy p = h.policy("apps", "busy");
  EXPECT_FALSE(history(p, api::ResizeResult::kReverted, "throttle").empty());
  ASSERT_NE(scheduleBlocked(p), nullptr) << "the schedule is closed while the revert happens";
  EXPECT_EQ(h.actions(Kind::kResized).size(), 1u) << "no new resize outside the window";
}

TEST(ScheduleTest, TheConditionStaysWhileTheMetricsFail) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web"}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy = "{type: Auto, schedule: {windows: [{start: \"12:00\", end: "
                                    "\"13:00\"}]}}"})));
  ASSERT_TRUE(h.usable());
  ObservedMetricsSource source(h.sim().metrics());
  h.restartController(&source);
  h.runMinutes(10);
  ASSERT_NE(scheduleBlocked(h.policy("apps", "web")), nullptr);
  source.fail();
  h.runMinutes(5);
  const api::AttunePolicy p = h.policy("apps", "web");
  const api::Condition* ready = condition(p, api::kConditionReady);
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(ready->reason, "PrometheusUnavailable");
  const api::Condition* blocked = scheduleBlocked(p);
  ASSERT_NE(blocked, nullptr) << "no flapping while the metrics fail";
  EXPECT_NE(blocked->message.find("2026-01-05T12:00:00Z"), std::string::npos) << blocked->message;
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
}

TEST(ScheduleTest, AnUnknownTimeZoneBlocksResizesAndSaysWhy) {
  ScenarioHarness h(scenarioYaml(
      workloadYaml({.name = "web"}),
      policyYaml({.name = "web",
                  .target = "web",
                  .updateStrategy = "{type: Auto, schedule: {timezone: Mars/Olympus_Mons}}"})));
  ASSERT_TRUE(h.usable());
  h.runMinutes(30);
  EXPECT_TRUE(h.actions(Kind::kResized).empty());
  const api::AttunePolicy p = h.policy("apps", "web");
  const api::Condition* blocked = scheduleBlocked(p);
  ASSERT_NE(blocked, nullptr);
  EXPECT_EQ(blocked->reason, "UnknownTimezone");
  EXPECT_NE(blocked->message.find("Mars/Olympus_Mons"), std::string::npos) << blocked->message;
}

}  // namespace
}  // namespace attune::controller::testing
