#include "kube/rate_limiter.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

namespace attune::kube {

Result<RateLimit> parseRateLimit(std::string_view qps, std::string_view burst,
                                 const std::string& qpsField, const std::string& burstField) {
  RateLimit limit;
  const char* qpsEnd = qps.data() + qps.size();
  auto [qpsAt, qpsError] = std::from_chars(qps.data(), qpsEnd, limit.qps);
  if (qps.empty() || qpsError != std::errc{} || qpsAt != qpsEnd || !std::isfinite(limit.qps)) {
    return fail(ErrorCode::kInvalidArgument,
                "want a number of requests per second (e.g. 20 or 0.5, or -1 for no client-side "
                "limit), got \"" +
                    std::string(qps) + "\"",
                qpsField);
  }
  if (limit.qps == 0) {
    return fail(ErrorCode::kInvalidArgument,
                "must be positive, or negative (-1) to turn the client-side limit off; got 0",
                qpsField);
  }
  constexpr int kMaxBurst = 1000000;
  const char* burstEnd = burst.data() + burst.size();
  auto [burstAt, burstError] = std::from_chars(burst.data(), burstEnd, limit.burst);
  if (burst.empty() || burstError != std::errc{} || burstAt != burstEnd || limit.burst < 1 ||
      limit.burst > kMaxBurst) {
    return fail(
        ErrorCode::kInvalidArgument,
        "want a whole number of requests from 1 to 1000000, got \"" + std::string(burst) + "\"",
        burstField);
  }
  return limit;
}

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
  const std::lock_guard lock(mutex_);
  refill();
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

Duration TokenBucket::acquire() {
  if (limit_.qps <= 0) return Duration::zero();
  const std::lock_guard lock(mutex_);
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
