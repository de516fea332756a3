// The fault mode of `attune sim serve`: the one sim::FaultInjector, behind a mutex so that every
// connection thread shares it, deciding request by request whether an API request fails and
// how. The faults the server injects, by their names (fault_injector.h; docs/sim-serve.md):
//   throttled      429 with Retry-After and a Status body
//   server-error   500 with a Status body
//   timeout        the connection is closed without a response, before the request is handled
//   watch-dropped  a watch stream ends early, after the events it had at hand
//   watch-gone     410: an ERROR event on a watch, a 410 Expired on a LIST continue
//   conflict       409 on a write with a resourceVersion precondition
// Nothing is written by a request that meets a fault (the server does not inject
// response-lost). Which requests are subject to which faults is the injector's RequestKind rule.
// Deterministic for one seed and one order of requests. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "core/error.h"
#include "sim/faults/fault_injector.h"

namespace attune::sim::serve {

// Every fault the server injects, in the order above.
inline constexpr FaultKind kServedFaults[] = {FaultKind::kThrottled, FaultKind::kServerError,
                                              FaultKind::kTimeout,   FaultKind::kWatchDropped,
                                              FaultKind::kWatchGone, FaultKind::kConflict};

// `--faults LIST`: parseFaultKinds over the faults the server injects.
inline Result<std::set<FaultKind>> parseServedFaults(std::string_view list) {
  return parseFaultKinds(list, kServedFaults);
}

struct FaultModeOptions {
  double rate = 0;  // fraction of API requests that fail, in [0, 1]
  std::uint64_t seed = 1;
  std::set<FaultKind> kinds{std::begin(kServedFaults), std::end(kServedFaults)};
};

class FaultMode {
 public:
  // kInvalidArgument (field "fault-rate") for a rate outside [0, 1]; kinds the server does not
  // inject are dropped.
  static Result<FaultModeOptions> validate(FaultModeOptions options);
  explicit FaultMode(const FaultModeOptions& options);

  // The fault for the next request of `kind` (kNone: serve it). Never decides (and never
  // advances the sequence) when the rate is 0.
  FaultKind decide(RequestKind kind);

  bool enabled() const { return enabled_; }
  const std::set<FaultKind>& kinds() const { return injector_.options().kinds; }
  std::uint64_t injected(FaultKind kind);
  // attune_sim_faults_injected_total{kind="..."} per enabled kind and
  // attune_sim_fault_decisions_total, in the Prometheus text format; "" when disabled.
  std::string metricsText();

 private:
  bool enabled_ = false;
  std::mutex mutex_;
  FaultInjector injector_;  // guarded by mutex_
};

}  // namespace attune::sim::serve
