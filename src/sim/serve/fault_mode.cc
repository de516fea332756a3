#include "sim/serve/fault_mode.h"

#include <algorithm>

namespace attune::sim::serve {
namespace {

bool served(FaultKind kind) {
  return std::ranges::find(kServedFaults, kind) != std::end(kServedFaults);
}

FaultOptions injectorOptions(FaultModeOptions o) {
  std::erase_if(o.kinds, [](FaultKind k) { return !served(k); });
  return {.rate = o.rate,
          .seed = o.seed,
          .kinds = std::move(o.kinds),
          .retryAfter = std::chrono::seconds(1)};
}

}  // namespace

Result<FaultModeOptions> FaultMode::validate(FaultModeOptions options) {
  if (!(options.rate >= 0 && options.rate <= 1)) {
    return fail(ErrorCode::kInvalidArgument, "the fault rate must be between 0 and 1",
                "fault-rate");
  }
  std::erase_if(options.kinds, [](FaultKind k) { return !served(k); });
  return options;
}

FaultMode::FaultMode(const FaultModeOptions& options) : injector_(injectorOptions(options)) {
  enabled_ = injector_.options().rate > 0 && !injector_.options().kinds.empty();
}

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
    if (!kinds().contains(kind)) continue;
    out += "attune_sim_faults_injected_total{kind=\"" + std::string(toString(kind)) + "\"} " +
           std::to_string(injector_.injected(kind)) + "\n";
  }
  out +=
      "# HELP attune_sim_fault_decisions_total API requests subject to fault injection.\n"
      "# TYPE attune_sim_fault_decisions_total counter\n"
      "attune_sim_fault_decisions_total " +
      std::to_string(injector_.requests()) + "\n";
  return out;
}

}  // namespace attune::sim::serve
