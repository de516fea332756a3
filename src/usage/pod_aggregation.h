// Reducing the usage samples of a workload's pods to one series per container, as
// spec.metricsSource.podAggregation asks. Pure.
#pragma once

#include <vector>

#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "stats/config.h"
#include "stats/container_stats.h"

namespace attune::usage {

// Reduces the samples of several pods of one container (each in time order) to the samples
// fed to its statistics: kNone keeps every sample; kMax and kAvg make one sample per
// timestamp (max or mean of memory and of PSI-adjusted CPU across the pods present then).
std::vector<stats::Sample> aggregateSamples(const std::vector<std::vector<stats::Sample>>& pods,
                                            api::PodAggregation aggregation);

// The statistics configuration for a policy reading `history` of samples: sketches over the
// whole days that cover it (stats::historyCovering), hour-of-day quantiles from the policy's
// cpu/memory percentiles (unset or 0: the defaults). Fails when invalid, naming the field.
Result<stats::StatsConfig> statsConfigFor(const api::AttunePolicySpec& spec, Duration history);

}  // namespace attune::usage
