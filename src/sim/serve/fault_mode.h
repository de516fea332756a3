// The fault mode of `attune sim serve`: a seeded sim::FaultInjector deciding, request by
// request, whether an API request fails and how, shared by every connection thread. The
// server's fault names and what each does (docs/sim-serve.md):
//   throttle    429 with Retry-After and a Status body               (FaultKind::kThrottled)
//   error       500 with a Status body                               (FaultKind::kServerError)
//   reset       the connection is closed without a response, before the request is handled
//                                                                    (FaultKind::kTimeout)
//   drop-watch  a watch stream ends early, after the events it had at hand
//                                                                    (FaultKind::kWatchDropped)
//   gone        410: an ERROR event on a watch, a 410 Expired on a LIST continue
//                                                                    (FaultKind::kWatchGone)
//   conflict    409 on a write with a resourceVersion precondition   (FaultKind::kConflict)
// Nothing is written by a request that meets a fault. Which requests are subject to which
// faults is the injector's RequestKind rule. Deterministic for one seed and one order of
// requests. Thread-safe.
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

// The server's name of a fault ("throttle", ...); "" for a kind it does not inject.
std::string_view servedFaultName(FaultKind kind);
// A comma-separated list of server fault names (or "all") as kinds; kInvalidArgument (field
// "faults") naming the unknown entry.
Result<std::set<FaultKind>> parseServedFaults(std::string_view list);

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
  const std::set<FaultKind>& kinds() const { return kinds_; }
  std::uint64_t injected(FaultKind kind);
  // attune_sim_faults_injected_total{kind="..."} per enabled kind and
  // attune_sim_fault_decisions_total, in the Prometheus text format; "" when disabled.
  std::string metricsText();

 private:
  bool enabled_;
  std::set<FaultKind> kinds_;
  std::mutex mutex_;
  FaultInjector injector_;  // guarded by mutex_
};

}  // namespace attune::sim::serve
