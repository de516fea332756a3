// Events held between passes (ControllerOptions::eventsPerCall): a pass queues its Events that
// report no write of its own (here ResizeSkipped), and the reconcileDue() calls write them, at
// most eventsPerCall a call, each with the time it was recorded; an Event about a resize is
// written with the resize. The controller's metrics report them.
#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>

#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using Kind = ActionRecord::Kind;

TEST(HeldEventsTest, SkipsAreHeldAndWrittenByTheCallsAfterThePassResizesAtOnce) {
  HarnessOptions options;
  options.controller.eventsPerCall = 1;
  std::string workloads = workloadYaml({.name = "web-0"}) + workloadYaml({.name = "web-1"});
  std::string policies = policyYaml({.name = "web-0", .target = "web-0"}) +
                         policyYaml({.name = "web-1", .target = "web-1"});
  for (const std::string name : {"opt-0", "opt-1", "opt-2"}) {
    workloads += workloadYaml(
        {.name = name, .workloadExtra = "    annotations: {attune.io/skip: \"true\"}\n"});
    policies += policyYaml({.name = name, .target = name});
  }
  ScenarioHarness h(scenarioYaml(workloads, policies), options);
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(h.runUntil([&] { return h.actions(Kind::kResizeSkipped).size() >= 3; }, 2h));
  // Of the three skips (one pass), the call that made them wrote one.
  const auto skips = h.actions(Kind::kResizeSkipped);
  ASSERT_EQ(skips.size(), 3U);
  const std::size_t held = h.controller().events().held();
  EXPECT_EQ(held, 2U);
  EXPECT_EQ(h.events("ResizeSkipped").size() + held, skips.size());
  EXPECT_EQ(h.metric("attune_events_held"), static_cast<double>(held));

  // Each call after it writes one more; then nothing is left.
  for (std::size_t left = held; left > 0; --left) {
    const std::size_t before = h.events().size();
    ASSERT_TRUE(h.controller().reconcileDue().has_value());
    EXPECT_EQ(h.events().size(), before + 1);
    EXPECT_EQ(h.controller().events().held(), left - 1);
  }
  EXPECT_EQ(h.metric("attune_events_held"), 0.0);
  EXPECT_EQ(h.metric("attune_held_event_writes_total{result=\"written\"}"),
            static_cast<double>(skips.size()));
  std::set<std::string> skipped;
  for (const api::Event& e : h.events("ResizeSkipped")) {
    skipped.insert(e.involvedObject.name);
    EXPECT_EQ(e.firstTimestamp, skips.front().time) << e.involvedObject.name;  // when recorded
  }
  EXPECT_EQ(skipped, (std::set<std::string>{"opt-0", "opt-1", "opt-2"}));

  // A resize's Event is written with it: both of a pass's, by the call that made them.
  ASSERT_TRUE(h.runUntil([&] { return !h.actions(Kind::kResized).empty(); }, 2h));
  ASSERT_EQ(h.actions(Kind::kResized).size(), 2U);
  EXPECT_EQ(h.events("Resized").size(), 2U);
  EXPECT_EQ(h.controller().events().held(), 0U);
}

TEST(HeldEventsTest, OnlyEventsAboutAWriteOfThePassAreNeverHeld) {
  for (std::string_view reason :
       {"Resized", "ResizeFailed", "Reverted", "Evicted", "EvictionFailed", "HPARetuned",
        "HPARetuneFailed", "StartupBoost", "StartupBoostEnded"}) {
    EXPECT_FALSE(heldEventReason(reason)) << reason;
  }
  for (std::string_view reason :
       {"ResizeSkipped", "SafetyViolation", "InfeasibleBlocked", "HPAConflict", "EvictionBlocked",
        "SLOGuardrailSkipped", "AdmissionWebhookBypassed"}) {
    EXPECT_TRUE(heldEventReason(reason)) << reason;
  }
}

}  // namespace
}  // namespace attune::controller::testing
