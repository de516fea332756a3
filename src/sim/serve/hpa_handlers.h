// HorizontalPodAutoscalers on the simulated API server (autoscaling/v2): create, update of the
// spec (labels, annotations) or of the status subresource, delete. The simulated HPA controller
// (sim/control/hpa_controller.h) syncs whatever HPAs the store holds, so an HPA created here is
// scaled from its next sync. Must be called with the SimHost's lock held.
#pragma once

#include <string_view>

#include "api/k8s/hpa.h"
#include "core/error.h"
#include "sim/engine/simulation.h"

namespace attune::sim::serve {

// POST: the HPA in `json` (namespace and name already those of the request), stored with an
// empty status (generation 1). kInvalidArgument (422) with the field for what the API server
// validates: a name, scaleTargetRef kind and name, maxReplicas >= 1, minReplicas in
// [1, maxReplicas]; kConflict when the name is taken.
Result<api::HorizontalPodAutoscaler> createHpa(Simulation& sim, std::string_view json);

// PUT (and PATCH after applying): `subresource` "" writes the spec, labels and annotations
// (ClusterApi::updateHpa; the status is kept), "status" writes the status only. The
// metadata.resourceVersion in `json`, when set, is a precondition (kConflict).
Result<api::HorizontalPodAutoscaler> updateHpa(Simulation& sim, std::string_view json,
                                               std::string_view subresource);

// DELETE: removes the HPA and returns it; kNotFound when there is none.
Result<api::HorizontalPodAutoscaler> deleteHpa(Simulation& sim, std::string_view ns,
                                               std::string_view name);

}  // namespace attune::sim::serve
