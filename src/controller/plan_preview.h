// What the controller's next pass would do, without doing it: the first half of a pass
// (snapshot → usage → recommend) and its plan stage (verdicts → plan) for each policy, with
// nothing carried out, no Event written and no status updated. `attune plugin preview` shows it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/controller.h"
#include "controller/workload_recommendations.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/metrics_source.h"
#include "rollout/plan.h"

namespace attune::controller {

struct PolicyPreview {
  api::AttunePolicy policy;  // as stored
  // Set when the policy cannot be reconciled (an unknown strategy, invalid statistics
  // configuration): nothing is planned.
  std::optional<std::string> invalid;
  // Set when the usage read failed: the plan holds no resize (fail closed).
  std::optional<std::string> metricsError;
  std::vector<RecommendedWorkload> recommended;
  rollout::Plan plan;
};

// Plans a pass of each of `policies` over one snapshot of `namespaces` (empty = all; node
// optimisation is only planned then, as in the controller), reading usage from `metrics` with
// fresh statistics (as a newly started controller would). Only reads `api`. The error is the
// snapshot's, when the cluster cannot be read.
Result<std::vector<PolicyPreview>> previewPasses(api::ClusterApi& api,
                                                 metrics::MetricsSource& metrics, Clock& clock,
                                                 const ControllerOptions& options,
                                                 const std::vector<api::AttunePolicy>& policies,
                                                 const std::vector<std::string>& namespaces);

}  // namespace attune::controller
