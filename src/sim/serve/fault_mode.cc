#include "sim/serve/fault_mode.h"

#include <algorithm>

namespace attune::sim::serve {
namespace {

FaultOptions injectorOptions(const FaultModeOptions& o) {
  FaultOptions out;
  out.rate = o.rate;
  out.seed = o.seed;
  out.kinds.clear();
  for (FaultKind kind : o.kinds) {
    if (!servedFaultName(kind).empty()) out.kinds.insert(kind);
  }
  out.retryAfter = std::chrono::seconds(1);
  return out;
}

}  // namespace

std::string_view servedFaultName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kThrottled:
      return "throttle";
    case FaultKind::kServerError:
      return "error";
    case FaultKind::kTimeout:
      return "reset";
    case FaultKind::kWatchDropped:
      return "drop-watch";
    case FaultKind::kWatchGone:
      return "gone";
    case FaultKind::kConflict:
      return "conflict";
    case FaultKind::kNone:
    case FaultKind::kResponseLost:
      return "";
  }
  return "";
}

Result<std::set<FaultKind>> parseServedFaults(std::string_view list) {
  std::set<FaultKind> out;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view name = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (name.empty()) continue;
    if (name == "all") {
      out.insert(std::begin(kServedFaults), std::end(kServedFaults));
      continue;
    }
    auto it = std::ranges::find_if(kServedFaults,
                                   [&](FaultKind k) { return servedFaultName(k) == name; });
    if (it == std::end(kServedFaults)) {
      return fail(ErrorCode::kInvalidArgument,
                  "unknown fault \"" + std::string(name) +
                      "\"; want throttle, error, reset, drop-watch, gone, conflict or all",
                  "faults");
    }
    out.insert(*it);
  }
  return out;
}

Result<FaultModeOptions> FaultMode::validate(FaultModeOptions options) {
  if (!(options.rate >= 0 && options.rate <= 1)) {
    return fail(ErrorCode::kInvalidArgument, "the fault rate must be between 0 and 1",
                "fault-rate");
  }
  std::erase_if(options.kinds, [](FaultKind k) { return servedFaultName(k).empty(); });
  return options;
}

FaultMode::FaultMode(const FaultModeOptions& options)
    : enabled_(options.rate > 0 && !injectorOptions(options).kinds.empty()),
      kinds_(injectorOptions(options).kinds),
      injector_(injectorOptions(options)) {}

FaultKind FaultMode::decide(RequestKind kind) {
  if (!enabled_) return FaultKind::kNone;
  std::lock_guard lock(mutex_);
  return injector_.next(kind);
}

std::uint64_t FaultMode::injected(FaultKind kind) {
  std::lock_guard lock(mutex_);
  return injector_.injected(kind);
}

std::string FaultMode::metricsText() {
  if (!enabled_) return {};
  std::lock_guard lock(mutex_);
  std::string out =
      "# HELP attune_sim_faults_injected_total API requests answered with an injected fault, by "
      "fault.\n# TYPE attune_sim_faults_injected_total counter\n";
  for (FaultKind kind : kServedFaults) {
    if (!kinds_.contains(kind)) continue;
    out += "attune_sim_faults_injected_total{kind=\"" + std::string(servedFaultName(kind)) +
           "\"} " + std::to_string(injector_.injected(kind)) + "\n";
  }
  out +=
      "# HELP attune_sim_fault_decisions_total API requests subject to fault injection.\n"
      "# TYPE attune_sim_fault_decisions_total counter\n"
      "attune_sim_fault_decisions_total " +
      std::to_string(injector_.requests()) + "\n";
  return out;
}

}  // namespace attune::sim::serve
