#include "core/backoff.h"

#include <algorithm>
#include <cmath>

namespace attune {

BackoffPolicy BackoffPolicy::kubeletRestart() {
  return BackoffPolicy{std::chrono::seconds(10), 2.0, std::chrono::seconds(300),
                       std::chrono::minutes(10)};
}

BackoffPolicy BackoffPolicy::kubeletRestartReduced() {
  return BackoffPolicy{std::chrono::seconds(1), 2.0, std::chrono::seconds(60),
                       std::chrono::minutes(10)};
}

Duration ExponentialBackoff::failure(Time at) {
  if (healthySince_ && at - *healthySince_ >= policy_.resetAfter) reset();
  healthySince_.reset();
  Duration delay = std::min(next_, policy_.cap);
  ++failures_;
  double grown = static_cast<double>(delay.count()) * policy_.factor;
  double cap = static_cast<double>(policy_.cap.count());
  next_ = Duration(static_cast<Duration::rep>(std::min(grown, cap)));
  return delay;
}

void ExponentialBackoff::reset() {
  next_ = policy_.initial;
  failures_ = 0;
}

Duration ExponentialBackoff::delayAfter(const BackoffPolicy& policy, int n) {
  if (n < 1) return Duration::zero();
  double delay = static_cast<double>(policy.initial.count()) * std::pow(policy.factor, n - 1);
  double cap = static_cast<double>(policy.cap.count());
  return Duration(static_cast<Duration::rep>(std::min(delay, cap)));
}

}  // namespace attune
