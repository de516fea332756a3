// The recommendation report: what `attune recommend` found for every workload and container,
// per strategy, with totals. A plain value built by the scan and printed by the renderers in
// recommend_render.h; pure (no I/O, no clock).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/policy/attune_policy.h"
#include "core/time.h"
#include "recommend/recommendation.h"

namespace attune::report {

// One strategy's answer for one container.
struct StrategyResult {
  std::string strategy;  // "attune", "cruisekube", "vpa" or "krr"
  recommend::Recommendation recommendation;
};

struct ContainerReport {
  std::string name;
  // Requests and limits now: the largest over the workload's pods (unset = set on none).
  api::ResourceValues current;
  std::int64_t dataPoints = 0;          // samples fed to the statistics
  std::vector<StrategyResult> results;  // in the order of RecommendReport::strategies
};

struct WorkloadReport {
  std::string ns;
  std::string kind;  // Deployment, StatefulSet, ..., or Pod for a pod without an owner
  std::string name;
  int replicas = 0;  // pods of the workload with resources at the report's time
  std::vector<ContainerReport> containers;  // by name
};

struct RecommendReport {
  std::string source;  // "prometheus http://..." or "trace a.csv, b.csv"
  Time at;             // end of the analysed range
  Duration history{};
  Duration step{};
  std::vector<std::string> strategies;
  std::vector<WorkloadReport> workloads;  // by namespace, kind, name
};

// Requested resources summed over every container × replicas, now and as one strategy
// recommends. A container without a recommendation (not enough data) counts at its current
// requests on both sides; an unset request counts as zero.
struct StrategyTotals {
  std::string strategy;
  double cpuCoresNow = 0;
  double cpuCoresRecommended = 0;
  double memoryGiBNow = 0;
  double memoryGiBRecommended = 0;
  int containers = 0;
  int containersWithoutRecommendation = 0;
};

// How the totals count containers without a recommendation, for every output format.
inline constexpr std::string_view kTotalsNote =
    "requests x replicas; containers without a recommendation count at their current requests "
    "on both sides";

// One entry per strategy of `r`, in its order.
std::vector<StrategyTotals> totals(const RecommendReport& r);

// (recommended − current) / current in percent; nullopt when either is unset or current is 0.
std::optional<double> changePercent(std::optional<std::int64_t> current,
                                    std::optional<std::int64_t> recommended);
// Percent saved going from `now` to `recommended` (positive = less requested); 0 when now is 0.
double savedPercent(double now, double recommended);

}  // namespace attune::report
