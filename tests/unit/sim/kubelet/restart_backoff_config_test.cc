#include "sim/kubelet/restart_backoff_config.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>

namespace attune::sim {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

constexpr bool kOff = false;
constexpr bool kOn = true;

struct Row {
  const char* scenario;
  bool reduceDefaultDecay;
  bool perNodeMaxEnabled;
  std::optional<int> maxSeconds;
  bool startupError;
  int wantInitialSeconds;  // ignored when startupError
  int wantCapSeconds;      // ignored when startupError
};

// KEP-4603, Design Details > Conflict resolution. The table's columns are scenario,
// ReduceDefaultCrashLoopBackoffDecay, EnableKubeletCrashLoopBackoffMax (a value there means the
// gate is on with that maxSeconds) and "Effective initial value". For the per-node rows that last
// column is the configured maximum (e.g. "enabled, 300s -> 300s" cannot be a 300s initial delay
// on the 1s reduced curve), so it is encoded as the cap, and the initial delay follows the prose:
// "if ... the per-node configured maximum backoff is lower than the initial value, the initial
// value for that node will instead be set to the configured maximum".
const Row kKepTable[] = {
    // today's behavior | disabled | disabled | 10s
    {"today's behavior", kOff, kOff, std::nullopt, false, 10, 300},
    // new default only | enabled | disabled | 1s
    {"new default only", kOn, kOff, std::nullopt, false, 1, 60},
    // faster per node config | disabled | 2s | 2s
    {"faster per node config, default curve", kOff, kOn, 2, false, 2, 2},
    // " | enabled | 2s | 2s
    {"faster per node config, reduced curve", kOn, kOn, 2, false, 1, 2},
    // slower per node config | enabled | 10s | 10s
    {"slower per node config, reduced curve, 10s", kOn, kOn, 10, false, 1, 10},
    // " | enabled | 300s | 300s
    {"slower per node config, reduced curve, 300s", kOn, kOn, 300, false, 1, 300},
    // " | disabled | 11s | 11s
    {"slower per node config, default curve, 11s", kOff, kOn, 11, false, 10, 11},
    // " | disabled | 300s | 300s
    {"slower per node config, default curve, 300s", kOff, kOn, 300, false, 10, 300},
    // invalid per node config | disabled | 301s | kubelet crashes
    {"invalid per node config, default curve", kOff, kOn, 301, true, 0, 0},
    // " | enabled | 301s | kubelet crashes
    {"invalid per node config, reduced curve", kOn, kOn, 301, true, 0, 0},
};

// Cases the KEP states in prose around the table.
const Row kKepProse[] = {
    // "If crashloopbackoff.maxSeconds KubeletConfiguration exists but
    // EnableKubeletCrashLoopBackoffMax is off, kubelet will log a warning but will not honor" it.
    {"maxSeconds set, gate off, default curve", kOff, kOff, 2, false, 10, 300},
    {"maxSeconds set, gate off, reduced curve", kOn, kOff, 2, false, 1, 60},
    {"out-of-range maxSeconds, gate off: ignored, not validated", kOff, kOff, 301, false, 10, 300},
    // Gate on, node sets nothing: the default curve for the reduced-decay gate.
    {"gate on, maxSeconds unset, default curve", kOff, kOn, std::nullopt, false, 10, 300},
    {"gate on, maxSeconds unset, reduced curve", kOn, kOn, std::nullopt, false, 1, 60},
    // "lower than 1 second or higher than the 300s, validation will fail".
    {"maxSeconds 0", kOff, kOn, 0, true, 0, 0},
    {"maxSeconds negative", kOn, kOn, -5, true, 0, 0},
    {"maxSeconds 1 (minimum), default curve", kOff, kOn, 1, false, 1, 1},
    {"maxSeconds 1 (minimum), reduced curve", kOn, kOn, 1, false, 1, 1},
    {"maxSeconds 10 equals default initial", kOff, kOn, 10, false, 10, 10},
};

void checkRow(const Row& row) {
  SCOPED_TRACE(row.scenario);
  const RestartBackoffConfig config{row.reduceDefaultDecay, row.perNodeMaxEnabled, row.maxSeconds};
  const Result<BackoffPolicy> policy = resolveRestartBackoff(config);
  if (row.startupError) {
    ASSERT_FALSE(policy.has_value());
    EXPECT_EQ(policy.error().code, ErrorCode::kInvalidArgument);
    return;
  }
  ASSERT_TRUE(policy.has_value()) << policy.error().toString();
  EXPECT_EQ(policy->initial, seconds(row.wantInitialSeconds));
  EXPECT_EQ(policy->cap, seconds(row.wantCapSeconds));
  EXPECT_EQ(policy->factor, 2.0);
  EXPECT_EQ(policy->resetAfter, minutes(10));  // flat 10 minutes, whatever the cap
}

TEST(ResolveRestartBackoffTest, KepConflictResolutionTable) {
  for (const Row& row : kKepTable) checkRow(row);
}

TEST(ResolveRestartBackoffTest, KepConflictResolutionProse) {
  for (const Row& row : kKepProse) checkRow(row);
}

TEST(ResolveRestartBackoffTest, OutOfRangeErrorNamesFieldAndRange) {
  const Result<BackoffPolicy> policy = resolveRestartBackoff({kOff, kOn, 301});
  ASSERT_FALSE(policy.has_value());
  EXPECT_EQ(policy.error().field, "crashloopbackoff.maxSeconds");
  const std::string text = policy.error().toString();
  EXPECT_NE(text.find("maxSeconds"), std::string::npos) << text;
  EXPECT_NE(text.find("between 1 and 300"), std::string::npos) << text;
  EXPECT_NE(text.find("301"), std::string::npos) << text;
}

TEST(ResolveRestartBackoffTest, MaxSecondsIgnoredOnlyWhenSetAndGateOff) {
  EXPECT_TRUE(maxSecondsIgnored({kOff, kOff, 30}));
  EXPECT_FALSE(maxSecondsIgnored({kOff, kOn, 30}));
  EXPECT_FALSE(maxSecondsIgnored({kOff, kOff, std::nullopt}));
}

}  // namespace
}  // namespace attune::sim
