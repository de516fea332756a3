// How the HPA turns the metrics' proposal into the replica count it writes (upstream
// horizontal.go: normalizeDesiredReplicas and normalizeDesiredReplicasWithBehaviors): the
// stabilization windows over recent recommendations, then min/max and the scaling rate, either
// the legacy limit (no spec.behavior) or the behavior's policies. Each HPA keeps its recent
// recommendations and scale events in an HpaScalingMemory. Pure (time comes in as `now`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/k8s/hpa.h"
#include "core/time.h"

namespace attune::sim {

// The scaling rules with upstream's defaults filled in (API defaulting of spec.behavior, and
// the controller's 300 s scale-down stabilization window):
//   scaleUp:   stabilizationWindowSeconds 0, selectPolicy Max, policies Pods 4 / 15 s and
//              Percent 100 / 15 s;
//   scaleDown: stabilizationWindowSeconds 300, selectPolicy Max, policies Percent 100 / 15 s.
// Fields set in `rules` replace the default one by one (a set policy list replaces the list).
api::HpaScalingRules scaleUpRules(const std::optional<api::HpaScalingRules>& rules);
api::HpaScalingRules scaleDownRules(const std::optional<api::HpaScalingRules>& rules);

// What one HPA remembers between syncs.
struct HpaScalingMemory {
  struct Recommendation {
    std::int32_t replicas = 0;
    Time at{};
  };
  struct ScaleEvent {
    std::int32_t change = 0;  // replicas added (scale-up list) or removed (scale-down list)
    Time at{};
  };
  std::vector<Recommendation> recommendations;
  std::vector<ScaleEvent> scaleUps;
  std::vector<ScaleEvent> scaleDowns;
};

// The outcome of normalization: the count to write and the conditions it sets.
struct NormalizedReplicas {
  std::int32_t replicas = 0;
  api::Condition ableToScale;     // True: ReadyForNewScale, ScaleUpStabilized, ScaleDownStabilized
  api::Condition scalingLimited;  // DesiredWithinRange (False), or TooManyReplicas,
                                  // TooFewReplicas, ScaleUpLimit, ScaleDownLimit (True)
};

// Normalizes `desired` (the largest metric proposal) for an HPA whose target has `current`
// replicas, recording `desired` in `memory` as upstream does:
// - without spec.behavior: the largest recommendation of the last 300 s (desired included),
//   then clamped to [minReplicas, min(maxReplicas, max(2 × current, 4))];
// - with spec.behavior: clamped between the smallest recommendation of the scale-up window and
//   the largest of the scale-down window (current in between), then clamped to
//   [max(minReplicas, scale-down limit), min(maxReplicas, scale-up limit)], the limits from the
//   policies over the scale events of each policy's period (selectPolicy Max: the largest
//   change, Min: the smallest, Disabled: none). Percent rounds up on scale-up and down on
//   scale-down.
NormalizedReplicas normalizeReplicas(const api::HpaSpec& spec, HpaScalingMemory& memory,
                                     std::int32_t current, std::int32_t desired,
                                     std::int32_t minReplicas, Time now);

// Records a write of `to` replicas over `from` in memory's scale events (with spec.behavior
// only, as upstream), dropping events older than the longest policy period.
void recordScaleEvent(const api::HpaSpec& spec, HpaScalingMemory& memory, std::int32_t from,
                      std::int32_t to, Time now);

}  // namespace attune::sim
