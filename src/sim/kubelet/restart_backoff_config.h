// The simulated kubelet's container-restart backoff curve, resolved from the node's kubelet
// inputs exactly as KEP-4603 ("Tune CrashLoopBackoff", Design Details > Conflict resolution)
// specifies. Pure: no clock, no I/O.
#pragma once

#include <optional>

#include "core/backoff.h"
#include "core/error.h"

namespace attune::sim {

// The inputs KEP-4603 gives one kubelet. Plain value; copy freely.
struct RestartBackoffConfig {
  // Feature gate ReduceDefaultCrashLoopBackoffDecay: the default curve becomes 1s initial,
  // 60s cap (instead of 10s initial, 300s cap).
  bool reduceDefaultDecay = false;
  // Feature gate EnableKubeletCrashLoopBackoffMax (KubeletCrashLoopBackOffMax in the kubelet):
  // honour the node's own maximum below.
  bool perNodeMaxEnabled = false;
  // KubeletConfiguration crashloopbackoff.maxSeconds (maxContainerRestartPeriod in the kubelet),
  // whole seconds; nullopt when the node does not set it. Valid range is 1..300.
  std::optional<int> maxSeconds;
};

// Smallest and largest valid crashloopbackoff.maxSeconds.
inline constexpr int kMinRestartMaxSeconds = 1;
inline constexpr int kMaxRestartMaxSeconds = 300;

// Returns the node's effective restart curve: factor 2 and a flat 10-minute reset always, and
//  - initial/cap 10s/300s, or 1s/60s when reduceDefaultDecay is on;
//  - when perNodeMaxEnabled and maxSeconds is set, cap = maxSeconds (honoured whether faster or
//    slower than the default cap), and initial = min(initial, maxSeconds);
//  - when maxSeconds is set but perNodeMaxEnabled is off, maxSeconds is ignored (the KEP's
//    kubelet logs a warning; see maxSecondsIgnored) and is not validated.
// Fails with kInvalidArgument (field "crashloopbackoff.maxSeconds") when perNodeMaxEnabled and
// maxSeconds is outside 1..300. In the KEP such a kubelet fails validation and does not start;
// the simulator likewise refuses to start a node whose config this function rejects.
Result<BackoffPolicy> resolveRestartBackoff(const RestartBackoffConfig& config);

// True when the node sets maxSeconds but the gate is off, so it has no effect (the case in which
// the KEP's kubelet logs a warning). Callers that log may use this to do the same.
bool maxSecondsIgnored(const RestartBackoffConfig& config);

}  // namespace attune::sim
