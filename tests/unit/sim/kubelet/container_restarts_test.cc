#include "sim/kubelet/container_restarts.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "sim/kubelet/restart_backoff_config.h"

namespace attune::sim {
namespace {

using std::chrono::minutes;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using Kind = ContainerRestartState::Kind;

// A fixed origin for simulated time: 2024-01-01T00:00:00Z.
const Time kT0 = Time(seconds(1704067200));

BackoffPolicy resolved(const RestartBackoffConfig& config) {
  Result<BackoffPolicy> policy = resolveRestartBackoff(config);
  EXPECT_TRUE(policy.has_value());
  return policy.value_or(BackoffPolicy{});
}

// Drives a container that runs `runFor` after every restart and then crashes, `n` times, and
// returns the restart delays in whole seconds.
std::vector<long> crashDelays(const BackoffPolicy& policy, int n, Duration runFor = seconds(1)) {
  ContainerRestarts restarts(policy);
  std::vector<long> delays;
  Time start = kT0;
  for (int i = 0; i < n; ++i) {
    const Time finished = start + runFor;
    const Time restartAt = restarts.exited({start, finished, "Error", 1});
    delays.push_back(std::chrono::duration_cast<seconds>(restartAt - finished).count());
    start = restartAt;
  }
  return delays;
}

TEST(ContainerRestartsTest, DefaultCurve) {
  EXPECT_EQ(crashDelays(resolved({}), 7), (std::vector<long>{10, 20, 40, 80, 160, 300, 300}));
}

TEST(ContainerRestartsTest, ReducedCurve) {
  EXPECT_EQ(crashDelays(resolved({.reduceDefaultDecay = true}), 8),
            (std::vector<long>{1, 2, 4, 8, 16, 32, 60, 60}));
}

TEST(ContainerRestartsTest, NodeMaxSecondsCapsDelays) {
  EXPECT_EQ(crashDelays(resolved({.perNodeMaxEnabled = true, .maxSeconds = 30}), 5),
            (std::vector<long>{10, 20, 30, 30, 30}));
  EXPECT_EQ(crashDelays(resolved({true, true, 30}), 7),
            (std::vector<long>{1, 2, 4, 8, 16, 30, 30}));
}

TEST(ContainerRestartsTest, NodeMaxSecondsBelowInitialLowersInitial) {
  // KEP: a configured maximum below the initial value becomes the initial value too.
  EXPECT_EQ(crashDelays(resolved({.perNodeMaxEnabled = true, .maxSeconds = 4}), 4),
            (std::vector<long>{4, 4, 4, 4}));
}

TEST(ContainerRestartsTest, TenMinutesOfRunningResetsTheCurve) {
  ContainerRestarts restarts(resolved({}));
  Time start = kT0;
  for (int i = 0; i < 6; ++i) start = restarts.exited({start, start + seconds(1), "Error", 1});
  // At the cap; a run just short of 10 minutes does not reset.
  Time finished = start + minutes(10) - nanoseconds(1);
  start = restarts.exited({start, finished, "Error", 1});
  EXPECT_EQ(start - finished, seconds(300));
  // A run of exactly 10 minutes does: back to 10s, then 20s.
  finished = start + minutes(10);
  start = restarts.exited({start, finished, "Error", 1});
  EXPECT_EQ(start - finished, seconds(10));
  finished = start + seconds(1);
  EXPECT_EQ(restarts.exited({start, finished, "Error", 1}) - finished, seconds(20));
}

TEST(ContainerRestartsTest, ResetIsTenMinutesEvenWithSmallCap) {
  // The reset threshold is a flat 10 minutes, not 2x the cap (KEP: "flat rate to 10 minutes"):
  // with a 30s cap, a 5-minute run (well over 2 x 30s) still keeps the curve at the cap.
  ContainerRestarts restarts(resolved({.perNodeMaxEnabled = true, .maxSeconds = 30}));
  Time start = kT0;
  for (int i = 0; i < 3; ++i) start = restarts.exited({start, start + seconds(1), "Error", 1});
  Time finished = start + minutes(5);
  start = restarts.exited({start, finished, "Error", 1});
  EXPECT_EQ(start - finished, seconds(30));
  finished = start + minutes(10);
  EXPECT_EQ(restarts.exited({start, finished, "Error", 1}) - finished, seconds(10));
}

TEST(ContainerRestartsTest, RunningBeforeAnyExit) {
  ContainerRestarts restarts(resolved({}));
  const ContainerRestartState s = restarts.state(kT0);
  EXPECT_EQ(s.kind, Kind::kRunning);
  EXPECT_EQ(s.restartCount, 0);
  EXPECT_FALSE(s.lastState.has_value());
  EXPECT_TRUE(s.waitingReason.empty());
}

TEST(ContainerRestartsTest, CrashLoopBackOffExactlyDuringTheDelay) {
  ContainerRestarts restarts(resolved({}));
  const Time finished = kT0 + seconds(5);
  const Time restartAt = restarts.exited({kT0, finished, "Error", 1});
  ASSERT_EQ(restartAt, finished + seconds(10));

  for (const Time now : {finished, finished + seconds(5), restartAt - nanoseconds(1)}) {
    const ContainerRestartState s = restarts.state(now);
    EXPECT_EQ(s.kind, Kind::kWaiting);
    EXPECT_EQ(s.waitingReason, kCrashLoopBackOff);
    EXPECT_EQ(s.restartAt, restartAt);
    EXPECT_EQ(s.restartCount, 0);  // not yet restarted
  }
  for (const Time now : {restartAt, restartAt + minutes(1)}) {
    const ContainerRestartState s = restarts.state(now);
    EXPECT_EQ(s.kind, Kind::kRunning);
    EXPECT_TRUE(s.waitingReason.empty());
    EXPECT_EQ(s.runningSince, restartAt);
    EXPECT_FALSE(s.restartAt.has_value());
    EXPECT_EQ(s.restartCount, 1);
  }
}

TEST(ContainerRestartsTest, RestartCountAndLastState) {
  ContainerRestarts restarts(resolved({}));
  const ContainerExit oom{kT0, kT0 + seconds(30), "OOMKilled", 137};
  Time restartAt = restarts.exited(oom);
  ContainerRestartState s = restarts.state(oom.finishedAt);
  ASSERT_TRUE(s.lastState.has_value());
  EXPECT_EQ(*s.lastState, oom);
  EXPECT_EQ(s.lastState->reason, "OOMKilled");
  EXPECT_EQ(s.lastState->exitCode, 137);
  EXPECT_EQ(s.lastState->finishedAt, kT0 + seconds(30));
  EXPECT_EQ(restarts.state(restartAt).restartCount, 1);

  const ContainerExit error{restartAt, restartAt + seconds(2), "Error", 1};
  restartAt = restarts.exited(error);
  s = restarts.state(error.finishedAt);
  EXPECT_EQ(s.restartCount, 1);
  EXPECT_EQ(s.lastState, error);
  s = restarts.state(restartAt);
  EXPECT_EQ(s.restartCount, 2);
  EXPECT_EQ(s.lastState, error);  // lastState stays the latest exit while running again
  EXPECT_EQ(restarts.exits(), 2);
}

}  // namespace
}  // namespace attune::sim
