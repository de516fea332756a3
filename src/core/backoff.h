// One exponential backoff used everywhere a delay must grow with repeated failures: the
// simulated kubelet's container restart delay (KEP-4603: 10s initial, ×2, 300s cap, reset after
// 10 minutes of running), and the operator's own retries of API and Prometheus calls.
#pragma once

#include <optional>

#include "core/time.h"

namespace attune {

struct BackoffPolicy {
  Duration initial = std::chrono::seconds(10);
  double factor = 2.0;
  Duration cap = std::chrono::seconds(300);
  // A subject that has been healthy this long before a failure starts again from `initial`.
  // Zero means any recorded success resets the backoff.
  Duration resetAfter = std::chrono::minutes(10);

  // The kubelet's container-restart curve before KEP-4603 (10s, ×2, 300s cap, 10m reset).
  static BackoffPolicy kubeletRestart();
  // KEP-4603's reduced curve (1s initial, ×2, 60s cap, 10m reset).
  static BackoffPolicy kubeletRestartReduced();
};

// Not thread-safe; one owner per subject (container, request stream).
class ExponentialBackoff {
 public:
  explicit ExponentialBackoff(BackoffPolicy policy) : policy_(policy) {}

  // Records a failure at `at` and returns how long to wait before the next attempt. If the
  // subject had been healthy since a time at least `resetAfter` before `at`, the curve restarts
  // from `initial` first.
  Duration failure(Time at);
  // Records that the subject has been healthy (running, or succeeding) since `since`.
  void healthySince(Time since) { healthySince_ = since; }
  // Restarts the curve: the next failure waits `initial`.
  void reset();

  // The delay the next failure would return (ignoring a pending reset).
  Duration peek() const { return next_; }
  // Failures recorded since the last reset.
  int failures() const { return failures_; }
  const BackoffPolicy& policy() const { return policy_; }

  // The delay after `n` consecutive failures (n ≥ 1): min(cap, initial × factor^(n-1)).
  static Duration delayAfter(const BackoffPolicy& policy, int n);

 private:
  BackoffPolicy policy_;
  Duration next_ = policy_.initial;
  int failures_ = 0;
  std::optional<Time> healthySince_;
};

}  // namespace attune
