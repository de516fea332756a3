// Seeded, deterministic fault decisions for requests to a cluster API: which request fails, and
// how. Independent of the transport: sim::FaultClusterApi maps a fault onto ClusterApi errors in
// process, and an HTTP front end can map the same decisions onto status codes (httpStatusOf) or
// closed connections. The same options, seed and request sequence always give the same faults.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string_view>

#include "core/error.h"
#include "core/time.h"
#include "sim/random.h"

namespace attune::sim {

// The kinds of failure a cluster API request can meet.
enum class FaultKind {
  kNone,
  kConflict,     // 409 Conflict: a resourceVersion precondition is reported stale (nothing written)
  kTimeout,      // the request times out before the server handles it (nothing written)
  kThrottled,    // 429 Too Many Requests with Retry-After (nothing written)
  kServerError,  // 500 Internal Server Error (nothing written)
  kWatchDropped,  // a watch stream ends before delivering anything
  kWatchGone,     // 410 Gone: the watch's resourceVersion is too old; relist
  kResponseLost,  // a write is applied but its response never arrives
};
inline constexpr std::size_t kFaultKindCount = 8;

// The one set of fault names, used by the unit and controller fault tests, `attune sim serve
// --faults` and its /metrics: "none", "conflict", "timeout", "throttled", "server-error",
// "watch-dropped", "watch-gone", "response-lost".
std::string_view toString(FaultKind kind);
// The inverse of toString; also accepts the names earlier `attune sim serve --faults` took:
// "throttle", "error", "reset" (timeout), "drop-watch", "gone". nullopt for an unknown name.
std::optional<FaultKind> parseFaultKind(std::string_view name);
// Every kind but kNone.
std::set<FaultKind> allFaultKinds();
// A comma-separated list of fault names (parseFaultKind; spaces around entries ignored) or
// "all" (every kind of `allowed`) as kinds. kInvalidArgument (field "faults") naming the first
// entry that is unknown or not in `allowed`.
Result<std::set<FaultKind>> parseFaultKinds(std::string_view list,
                                            std::span<const FaultKind> allowed);
// The HTTP status an HTTP front end answers with: 409, 504, 429, 500, 410; 0 for kNone,
// kWatchDropped (the stream is closed) and kResponseLost (the connection is closed after the
// write is applied).
int httpStatusOf(FaultKind kind);

// What kind of request a fault is decided for; it limits which faults can apply:
//   kRead             timeout, throttled, server-error
//   kWatch            timeout, throttled, server-error, watch-dropped, watch-gone
//   kWrite            timeout, throttled, server-error, response-lost
//   kConditionalWrite a write with a resourceVersion precondition: kWrite's and conflict
//   kListContinue     a LIST page after the first (a continue token): kRead's and watch-gone
//                     (410 Expired: the token's resourceVersion is too old; list again)
enum class RequestKind { kRead, kWatch, kWrite, kConditionalWrite, kListContinue };
std::string_view toString(RequestKind kind);

struct FaultOptions {
  // The fraction of requests that fail, in [0, 1] (clamped). A request none of whose applicable
  // kinds is enabled never fails.
  double rate = 0.0;
  std::uint64_t seed = 1;
  // The kinds injected; each failing request gets one of those applicable to it, uniformly.
  std::set<FaultKind> kinds = allFaultKinds();
  // What a kThrottled answer asks the client to wait (the Retry-After header).
  Duration retryAfter = std::chrono::seconds(1);
};

// Decides, request by request, whether it fails and with which fault. Deterministic: the n-th
// call's answer depends only on the options and the kinds of calls 1..n. Counts requests and
// injected faults. Not thread-safe.
class FaultInjector {
 public:
  explicit FaultInjector(FaultOptions options);

  // The fault for the next request of `kind` (kNone: handle it normally). Counted.
  FaultKind next(RequestKind kind);

  // Changes the rate from the next request on (clamped to [0, 1]); 0 turns faults off.
  void setRate(double rate);

  const FaultOptions& options() const { return options_; }
  // Requests decided so far, and faults injected (of one kind, or in total).
  std::uint64_t requests() const { return requests_; }
  std::uint64_t injected(FaultKind kind) const;
  std::uint64_t injected() const;

 private:
  FaultOptions options_;
  Random random_;
  std::uint64_t requests_ = 0;
  std::array<std::uint64_t, kFaultKindCount> injected_{};
};

}  // namespace attune::sim
