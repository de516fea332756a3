#include "cli/hpa_guard_process.h"

#include <string>

namespace attune::cli {

HpaGuardProcess::HpaGuardProcess(api::ClusterApi& api, const metrics::PrometheusOptions& prometheus,
                                 Clock& clock, metrics::Registry& registry, Logger& log,
                                 controller::HpaGuardOptions options)
    : query_(prometheus, clock),
      events_(api, clock),
      metrics_(registry),
      guard_(api, query_, events_, metrics_, clock, std::move(options)),
      log_(log) {}

Result<controller::HpaGuardSummary> HpaGuardProcess::runPass() {
  auto summary = guard_.runPass();
  report(summary);
  return summary;
}

void HpaGuardProcess::runDue() {
  if (auto summary = guard_.runDue()) report(*summary);
}

void HpaGuardProcess::report(const Result<controller::HpaGuardSummary>& summary) {
  if (!summary) {
    log_.warn("hpa guard pass failed", {{"error", summary.error().toString()}});
    return;
  }
  const controller::HpaGuardSummary& s = *summary;
  const bool notable = s.changed + s.queryFailures + s.conflicts + s.failed > 0;
  log_.log(notable ? LogLevel::kInfo : LogLevel::kDebug, "hpa guard pass done",
           {{"guarded", std::to_string(s.guarded)},
            {"changed", std::to_string(s.changed)},
            {"query_failures", std::to_string(s.queryFailures)},
            {"conflicts", std::to_string(s.conflicts)},
            {"failed", std::to_string(s.failed)}});
}

}  // namespace attune::cli
