// A limit on the resizes of one reconcile call (ControllerOptions::resizesPerCall): a wave of
// resizes is spread over the calls that follow, never more than the limit in one; the resizes
// past it are not attempted (no record on the pod, nothing written or booked) and their
// policies are due again at once, so the wave ends with the same pods resized to the same
// targets as without the limit, a few calls later.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "safety/resize_record.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

std::string eightWorkloads() { return overRequestingWorkloads(8, 1); }

HarnessOptions limitedTo(std::size_t resizes) {
  HarnessOptions options;
  options.controller.resizesPerCall = resizes;
  return options;
}

// Runs tick by tick (one reconcileDue call each) for `d`; returns the resizes of each call that
// made any, in order.
std::vector<std::size_t> resizesPerCall(ScenarioHarness& h, Duration d) {
  std::vector<std::size_t> calls;
  const Time end = h.now() + d;
  while (h.now() < end) {
    const std::size_t before = h.actions(ActionRecord::Kind::kResized).size();
    h.run(h.sim().scenario().tick);
    const std::size_t made = h.actions(ActionRecord::Kind::kResized).size() - before;
    if (made > 0) calls.push_back(made);
  }
  return calls;
}

// The resized pod's spec, by workload: what the wave left.
std::map<std::string, std::vector<api::Container>> resized(ScenarioHarness& h) {
  std::map<std::string, std::vector<api::Container>> out;
  for (const ActionRecord& a : h.actions(ActionRecord::Kind::kResized)) {
    out[a.workload.name] = h.pod("apps", a.workload.name).spec.containers;
  }
  return out;
}

TEST(ResizesPerCallTest, AWaveIsSpreadOverTheNextCallsAndEndsAsWithoutTheLimit) {
  ScenarioHarness limited(eightWorkloads(), limitedTo(3));
  ScenarioHarness unlimited(eightWorkloads());
  ASSERT_TRUE(limited.usable());
  ASSERT_TRUE(unlimited.usable());

  const std::vector<std::size_t> spread = resizesPerCall(limited, 30min);
  const std::vector<std::size_t> wave = resizesPerCall(unlimited, 30min);
  // Without the limit the eight pods are resized in one call; with it, at most three a call, in
  // the calls right after.
  ASSERT_FALSE(wave.empty());
  EXPECT_EQ(wave.front(), 8U);
  ASSERT_GE(spread.size(), 3U);
  EXPECT_EQ(spread[0], 3U);
  EXPECT_EQ(spread[1], 3U);
  EXPECT_EQ(spread[2], 2U);
  for (std::size_t made : spread) EXPECT_LE(made, 3U);
  EXPECT_EQ(limited.metric("attune_resizes_deferred_total"), 5.0 + 2.0);
  EXPECT_EQ(unlimited.metric("attune_resizes_deferred_total").value_or(0.0), 0.0);

  // The same pods at the same targets.
  EXPECT_EQ(resized(limited), resized(unlimited));
  EXPECT_EQ(resized(limited).size(), 8U);
  // A deferred resize left no trace: no pod carries a record it was not resized under, and no
  // event reports a resize that was not made.
  std::size_t records = 0;
  for (int i = 0; i < 8; ++i) {
    const api::Pod pod = limited.pod("apps", "web-" + std::to_string(i));
    records += safety::hasResizeRecord(pod) ? 1 : 0;
  }
  EXPECT_LE(records, limited.actions(ActionRecord::Kind::kResized).size());
  EXPECT_EQ(limited.events("Resized").size(), limited.actions(ActionRecord::Kind::kResized).size());
}

}  // namespace
}  // namespace attune::controller::testing
