// CruiseKube's Phase 1 in a backtest: the pod admission webhook's decision (webhook::reviewPod)
// called in process on every pod the simulated cluster creates, with the sizing the in-process
// controller publishes (controller::AdmissionSizing), and its JSON Patch applied to the pod as
// the API server applies a mutating webhook's patch. `attune backtest --node-optimisation on`
// installs it; `attune sim serve` calls the real webhook over HTTPS instead.
#pragma once

#include <cstdint>

#include "controller/admission_sizing.h"
#include "sim/cluster/cluster_state.h"

namespace attune::cli {

// What the in-process webhook did, for the report.
struct AdmissionCounts {
  std::int64_t sized = 0;      // the patch changed the pod's resources
  std::int64_t unchanged = 0;  // the pod already asked for its sizing: the mark only
};

// The admission that reviews each new pod against `sizing` (read at every call, so what the
// controller publishes later counts). A pod of a workload without published sizing, a bare pod
// and an opted-out pod are admitted as they are; the webhook never refuses a pod. A patch that
// does not apply, or a patched pod that does not decode, is an kInternal error (createPod then
// fails). `counts`, when not null, is incremented for every pod sized or marked. `sizing` and
// `counts` must outlive the admission.
sim::ClusterState::PodAdmission inProcessPodAdmission(const controller::AdmissionSizing& sizing,
                                                      AdmissionCounts* counts = nullptr);

}  // namespace attune::cli
