// The pods the sim/cluster tests share, built with the shared PodBuilder.
#pragma once

#include "api/k8s/pod.h"
#include "support/pod_builder.h"

namespace attune::sim::testing {

using attune::testing::PodBuilder;
using attune::testing::resources;

// A pod "team/web" with one Guaranteed container "app": 500m / 256Mi.
api::Pod guaranteedPod();
// A pod "team/api" with containers "app" (250m/128Mi requests, 1/512Mi limits) and "sidecar"
// (50m/32Mi requests only): Burstable.
api::Pod burstablePod();

}  // namespace attune::sim::testing
