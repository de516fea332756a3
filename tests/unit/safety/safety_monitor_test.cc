// The safety monitor's verdicts, one rule per test: early critical reverts (OOM kill, restart
// spike) at any time; throttle and NotReady only at the end of the observation period.
#include "safety/safety_monitor.h"

#include <gtest/gtest.h>

#include "safety_testing.h"

namespace attune::safety {
namespace {

using namespace testing;
using Kind = Verdict::Kind;

class SafetyMonitorTest : public ::testing::Test {
 protected:
  // A 6-minute period (the default 5m raised by the throttle window extension).
  SafetyMonitor monitor_{SafetyOptions{}};
  const ResizeRecord record_ = appRecord();
  api::Pod pod_ = resizedPod();
  SafetySignals signals_{std::map<std::string, double, std::less<>>{{"app", 0.1}}};
  const Time end_ = t0() + 6min;

  Verdict at(Time now) const { return monitor_.verdict(record_, pod_, signals_, now); }
  void oomKill(Time finishedAt) {
    api::ContainerStateTerminated t;
    t.exitCode = 137;
    t.reason = "OOMKilled";
    t.finishedAt = finishedAt;
    pod_.status.containerStatuses[0].lastState.terminated = t;
  }
  void setReady(std::string status) { pod_.status.conditions[0].status = std::move(status); }
};

TEST_F(SafetyMonitorTest, HealthyPodIsObservedThenSafe) {
  Verdict during = at(t0() + 1min);
  EXPECT_EQ(during.kind, Kind::kObserving);
  EXPECT_EQ(during.observationEnds, end_);
  EXPECT_EQ(at(end_ - 1s).kind, Kind::kObserving);
  Verdict after = at(end_);
  EXPECT_EQ(after.kind, Kind::kSafe);
  EXPECT_FALSE(after.reason);
}

TEST_F(SafetyMonitorTest, OomKillAfterTheResizeRevertsImmediately) {
  oomKill(t0() + 30s);
  Verdict v = at(t0() + 31s);  // long before the period ends
  EXPECT_EQ(v.kind, Kind::kRevert);
  EXPECT_EQ(v.reason, RevertReason::kOomKill);
  EXPECT_EQ(v.container, "app");
  EXPECT_EQ(toString(*v.reason), "oomkill");
}

TEST_F(SafetyMonitorTest, OomKillBeforeTheResizeIsIgnored) {
  oomKill(t0() - 1s);
  EXPECT_EQ(at(t0() + 31s).kind, Kind::kObserving);
  oomKill(t0());  // at the resize instant: not after it
  EXPECT_EQ(at(end_).kind, Kind::kSafe);
}

TEST_F(SafetyMonitorTest, OomKillInTheCurrentStateCounts) {
  api::ContainerStateTerminated t;
  t.reason = "OOMKilled";
  t.finishedAt = t0() + 10s;
  pod_.status.containerStatuses[0].state = api::ContainerState{};
  pod_.status.containerStatuses[0].state.terminated = t;
  EXPECT_EQ(at(t0() + 11s).reason, RevertReason::kOomKill);
}

TEST_F(SafetyMonitorTest, RestartSpikeNeedsTwoRestartsSinceTheResize) {
  pod_.status.containerStatuses[0].restartCount = 4;  // recorded 3, +1: tolerated
  EXPECT_EQ(at(t0() + 1min).kind, Kind::kObserving);
  EXPECT_EQ(at(end_).kind, Kind::kSafe);
  pod_.status.containerStatuses[0].restartCount = 5;  // +2: early revert
  Verdict v = at(t0() + 1min);
  EXPECT_EQ(v.kind, Kind::kRevert);
  EXPECT_EQ(v.reason, RevertReason::kRestart);
}

TEST_F(SafetyMonitorTest, ThrottleRevertsOnlyAtTheEndOfThePeriod) {
  signals_.throttleRatio->at("app") = 0.9;
  EXPECT_EQ(at(t0() + 1min).kind, Kind::kObserving);
  EXPECT_EQ(at(end_ - 1s).kind, Kind::kObserving);
  Verdict v = at(end_);
  EXPECT_EQ(v.kind, Kind::kRevert);
  EXPECT_EQ(v.reason, RevertReason::kThrottle);
}

TEST_F(SafetyMonitorTest, ThrottleThresholdIsStrictAndConfigurable) {
  signals_.throttleRatio->at("app") = 0.5;
  EXPECT_EQ(at(end_).kind, Kind::kSafe);
  SafetyOptions strict;
  strict.throttleThreshold = 0.2;
  EXPECT_EQ(SafetyMonitor(strict).verdict(record_, pod_, signals_, end_).reason,
            RevertReason::kThrottle);
}

TEST_F(SafetyMonitorTest, MissingThrottleDataFailsClosedAfterTheGrace) {
  signals_.throttleRatio->clear();
  Verdict waiting = at(end_ + 4min);
  EXPECT_EQ(waiting.kind, Kind::kObserving);
  Verdict closed = at(end_ + 5min);
  EXPECT_EQ(closed.kind, Kind::kRevert);
  EXPECT_EQ(closed.reason, RevertReason::kThrottle);
}

TEST_F(SafetyMonitorTest, NoThrottleSourceOrNoCpuLimitSkipsTheThrottleCheck) {
  signals_.throttleRatio.reset();
  EXPECT_EQ(at(end_).kind, Kind::kSafe);
  signals_.throttleRatio.emplace();                      // configured, but no data for app...
  pod_.spec.containers[0].resources.limits.cpu.reset();  // ...which cannot be throttled
  EXPECT_EQ(at(end_).kind, Kind::kSafe);
}

TEST_F(SafetyMonitorTest, NotReadyRevertsOnlyAtTheEndOfThePeriod) {
  setReady("False");
  EXPECT_EQ(at(t0() + 5min).kind, Kind::kObserving);
  Verdict v = at(end_);
  EXPECT_EQ(v.kind, Kind::kRevert);
  EXPECT_EQ(v.reason, RevertReason::kNotReady);
  EXPECT_EQ(toString(*v.reason), "notready");
  setReady("True");
  EXPECT_EQ(at(end_).kind, Kind::kSafe);
}

TEST_F(SafetyMonitorTest, NotSafeBeforeTheKubeletAppliedTheResize) {
  pod_.status.containerStatuses[0].resources = runningPod().spec.containers[0].resources;
  EXPECT_EQ(at(end_).kind, Kind::kObserving);
  pod_ = resizedPod();
  pod_.status.conditions.push_back({"PodResizePending", "True", "Deferred", "", t0(), 0});
  EXPECT_EQ(at(end_).kind, Kind::kObserving);
}

TEST_F(SafetyMonitorTest, AutoRevertOffReportsButNeverReverts) {
  SafetyOptions options;
  options.autoRevert = false;
  const SafetyMonitor monitor(options);
  oomKill(t0() + 30s);
  Verdict v = monitor.verdict(record_, pod_, signals_, t0() + 31s);
  EXPECT_EQ(v.kind, Kind::kViolationKept);
  EXPECT_EQ(v.reason, RevertReason::kOomKill);
}

TEST(SafetyOptionsFor, ReadsAutoRevertAndThePeriod) {
  api::AttunePolicySpec spec;
  spec.updateStrategy.safetyObservationPeriod = 10min;
  SafetyOptions o = safetyOptionsFor(spec);
  EXPECT_TRUE(o.autoRevert);
  EXPECT_EQ(o.observationPeriod, 10min);
  spec.updateStrategy.autoRevert = false;
  EXPECT_FALSE(safetyOptionsFor(spec).autoRevert);
}

}  // namespace
}  // namespace attune::safety
