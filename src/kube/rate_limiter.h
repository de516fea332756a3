// Client-side request rate limit: a token bucket, as client-go's (QPS and burst).
#pragma once

#include "core/clock.h"
#include "core/time.h"

namespace attune::kube {

struct RateLimit {
  double qps = 20.0;  // tokens added per second; <= 0 disables the limit
  int burst = 30;     // bucket size: requests allowed back to back after an idle period
};

// The bucket starts full. Not thread-safe; one owner (the request path of one client).
class TokenBucket {
 public:
  TokenBucket(RateLimit limit, Clock& clock);

  // Takes one token, first waiting on the clock (clock.sleepFor) until one is available.
  // Returns how long it waited.
  Duration acquire();
  // Takes one token if available now, without waiting.
  bool tryAcquire();

 private:
  void refill();

  RateLimit limit_;
  Clock& clock_;
  double tokens_;
  Time last_;
};

}  // namespace attune::kube
