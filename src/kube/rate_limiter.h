// Client-side request rate limit: a token bucket, as client-go's (QPS and burst).
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/error.h"
#include "core/time.h"

namespace attune::kube {

struct RateLimit {
  double qps = 20.0;  // tokens added per second; <= 0 disables the limit
  int burst = 30;     // bucket size: requests allowed back to back after an idle period
};

// A RateLimit from the text of two flags (the controller's --kube-api-qps and --kube-api-burst,
// named by `qpsField` and `burstField` in errors). `qps`: a decimal number, positive, or negative
// to turn the client-side limit off (client-go's and controller-runtime's -1); zero, NaN and
// infinities are refused. `burst`: a whole number from 1 to 1,000,000 (checked even when the
// limit is off). kInvalidArgument with the field and the text given.
Result<RateLimit> parseRateLimit(std::string_view qps, std::string_view burst,
                                 const std::string& qpsField, const std::string& burstField);

// The bucket starts full. Thread-safe: the clients of one HttpClusterApi's job lanes share their
// owner's bucket (a waiting acquire() holds the others back until its token comes).
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
  std::mutex mutex_;  // guards tokens_ and last_
  double tokens_;
  Time last_;
};

}  // namespace attune::kube
