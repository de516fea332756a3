#include "kube/rate_limiter.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace attune::kube {

TokenBucket::TokenBucket(RateLimit limit, Clock& clock)
    : limit_(limit), clock_(clock), tokens_(std::max(1, limit.burst)), last_(clock.now()) {}

void TokenBucket::refill() {
  const Time now = clock_.now();
  if (now <= last_) return;
  const double seconds = std::chrono::duration<double>(now - last_).count();
  tokens_ = std::min<double>(std::max(1, limit_.burst), tokens_ + seconds * limit_.qps);
  last_ = now;
}

bool TokenBucket::tryAcquire() {
  if (limit_.qps <= 0) return true;
  refill();
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

Duration TokenBucket::acquire() {
  if (limit_.qps <= 0) return Duration::zero();
  refill();
  Duration waited = Duration::zero();
  if (tokens_ < 1.0) {
    const double seconds = (1.0 - tokens_) / limit_.qps;
    waited = std::chrono::ceil<Duration>(std::chrono::duration<double>(seconds));
    clock_.sleepFor(waited);
    refill();
    tokens_ = std::max(tokens_, 1.0);  // the wait covered exactly one token
  }
  tokens_ -= 1.0;
  return waited;
}

}  // namespace attune::kube
