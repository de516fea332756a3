// meta.k8s.io/v1 Tables: what kubectl get asks for (Accept: ...;as=Table;v=v1;g=meta.k8s.io)
// and prints. Pods, nodes, events, HPAs (upstream's printer) and AttunePolicies (the CRD's
// printer columns) get their usual columns; every other kind gets Name and Age. Each row carries
// its whole object, so kubectl can add the namespace column and -o wide. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/time.h"
#include "sim/serve/resources.h"

namespace attune::sim::serve {

// The Table of `body`, one object or a List of `resource`; ages are measured at `now` (the
// simulated clock, in which the objects' timestamps are written). nullopt when `body` is not
// a JSON object.
std::optional<std::string> renderTable(const ResourceInfo& resource, std::string_view body,
                                       Time now);

// Kubernetes' short age format: "45s", "5m10s", "12m", "3h20m", "26h", "3d4h", "40d", "2y".
std::string formatAge(Duration age);

}  // namespace attune::sim::serve
