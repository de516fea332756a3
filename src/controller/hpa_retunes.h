// HPA-aware resizing in a pass: which HPAs Attune retunes (hpa/retune.h) and the plan entries
// that keep their scaling points with the pods' requests. The arithmetic is hpa::retune; this
// file only gathers its inputs from a snapshot and a plan.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "api/k8s/hpa.h"
#include "controller/target_resolution.h"
#include "rollout/plan.h"

namespace attune::controller {

// Whether Attune retunes the HPA: it opted in (attune.io/auto-tune: "true") and scales on a cpu
// or memory Utilization target. Such an HPA gets HPARetuned events instead of HPAConflict.
bool retunesHpa(const api::HorizontalPodAutoscaler& hpa);

// The HPAs Attune leaves alone (for the planner's informational HPAConflict events).
std::vector<api::HorizontalPodAutoscaler> hpasLeftAlone(
    std::span<const api::HorizontalPodAutoscaler> hpas);

// Appends, after every entry already in `plan`, one HpaRetuneAction per retuned HPA scaling one
// of `targets` whose targets or annotation must change once the plan is carried out: the pods'
// requests after the plan are their specs with the plan's resizes, reverts and restores
// applied. With `restore` (the policy is paused), and for an HPA that carries the originals but
// no longer opts in, the original targets are put back instead and the annotation removed. HPAs
// another policy retuned are left to that policy. `policy` is "namespace/name".
void planHpaRetunes(std::span<const TargetWorkload> targets,
                    std::span<const api::HorizontalPodAutoscaler> hpas, const std::string& policy,
                    bool restore, rollout::Plan& plan);

// The entry restoring an HPA whose retuning policy is gone (nullopt when nothing changes).
std::optional<rollout::HpaRetuneAction> restoreOrphanedHpa(const api::HorizontalPodAutoscaler& hpa);

}  // namespace attune::controller
