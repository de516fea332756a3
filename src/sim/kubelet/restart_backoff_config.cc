#include "sim/kubelet/restart_backoff_config.h"

#include <algorithm>
#include <chrono>
#include <string>

namespace attune::sim {

Result<BackoffPolicy> resolveRestartBackoff(const RestartBackoffConfig& config) {
  BackoffPolicy policy = config.reduceDefaultDecay ? BackoffPolicy::kubeletRestartReduced()
                                                   : BackoffPolicy::kubeletRestart();
  if (!config.perNodeMaxEnabled || !config.maxSeconds) return policy;

  const int maxSeconds = *config.maxSeconds;
  if (maxSeconds < kMinRestartMaxSeconds || maxSeconds > kMaxRestartMaxSeconds) {
    return fail(ErrorCode::kInvalidArgument,
                "maxSeconds must be between " + std::to_string(kMinRestartMaxSeconds) + " and " +
                    std::to_string(kMaxRestartMaxSeconds) + " seconds, got " +
                    std::to_string(maxSeconds) + "; the node's kubelet refuses to start",
                "crashloopbackoff.maxSeconds");
  }
  // Operator configuration takes precedence over the default cap, faster or slower; a cap below
  // the default initial delay lowers the initial delay to the cap.
  policy.cap = std::chrono::seconds(maxSeconds);
  policy.initial = std::min(policy.initial, policy.cap);
  return policy;
}

bool maxSecondsIgnored(const RestartBackoffConfig& config) {
  return config.maxSeconds.has_value() && !config.perNodeMaxEnabled;
}

}  // namespace attune::sim
