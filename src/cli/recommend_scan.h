// The `attune recommend` scan: query a MetricsSource once per metric for the scope, group pods
// into workloads, build per-container statistics with the usage pipeline the controller uses
// (usage/usage_history.h) and ask each strategy for a recommendation.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"
#include "metrics/metrics_source.h"
#include "report/recommend_report.h"
#include "stats/config.h"
#include "usage/usage_reading.h"

namespace attune::cli {

struct ScanRequest {
  std::string source;  // description for the report ("prometheus http://...")
  metrics::Scope scope;
  Time at;           // end of the analysed range
  Duration history;  // a positive whole number of days
  Duration step;     // > 0
  // Workload filter (see matchesSelector); empty = every workload.
  std::string selector;
  std::vector<std::string> strategies;  // names makeStrategy accepts
  api::AttunePolicy policy;             // defaulted (api::applyDefaults)
};

// Receives one progress line at a time (without a newline).
using ProgressFn = std::function<void(const std::string&)>;

// Everything the scan reads from the source.
struct ScanData {
  usage::ReadRange range;  // what `usage` covers
  usage::UsageReading usage;
  std::vector<metrics::ContainerResourceValues> resources;
  std::vector<metrics::PodOwner> owners;
};

// The statistics configuration for a request: history windows from request.history, the
// hour-of-day quantiles from the policy's cpu/memory percentiles. Fails when invalid (e.g.
// a history that is not whole days).
Result<stats::StatsConfig> statsConfig(const ScanRequest& request);

// One query per metric: usage over [at − history, at] (usage::readUsage; OOM kills from one
// step earlier), then resources and owners at `at`; the first error of the source is returned
// as is.
Result<ScanData> fetchScanData(metrics::MetricsSource& source, const ScanRequest& request,
                               const ProgressFn& progress);

// True if `workload` matches `selector`: "Kind/name-glob" (kind compared case-insensitively)
// or "name-glob" (any kind); globs as fnmatch(3) ("web-*", "db-?"). Empty matches everything.
bool matchesSelector(const api::WorkloadRef& workload, std::string_view selector);

// Groups `data` into workloads and containers and runs every strategy of the request (which
// must all be valid names). Workloads are ordered by (namespace, kind, name).
Result<report::RecommendReport> buildReport(const ScanData& data, const ScanRequest& request);

// fetchScanData then buildReport.
Result<report::RecommendReport> scanRecommendations(metrics::MetricsSource& source,
                                                    const ScanRequest& request,
                                                    const ProgressFn& progress);

}  // namespace attune::cli
