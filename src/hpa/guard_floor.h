// The HPA guard's floor arithmetic (estafette-k8s-hpa-scaler, docs/hpa.md): which
// HorizontalPodAutoscalers are guarded, their settings from the estafette.io annotations, and
// the minReplicas they should have. Pure: values in, values out.
//
// Rules, in order:
// - query floor = ceil(delta + result / requestsPerReplica), when a query is annotated;
// - scale-down-max-ratio floor = ceil(current × (1 − ratio)), at most current − 1 so that one
//   replica can always go per step (a floor equal to the current count would pin the HPA),
//   when a ratio is annotated and the HPA has current replicas; skipped while a rollout is in
//   progress when deployment checking is on;
// - with both, the larger wins; then at least 1 and at most maxReplicas;
// - fail safe: when a query is annotated but gave no value, or no floor could be computed
//   (no query, and no ratio or the ratio step skipped), minReplicas stays as it is.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/k8s/hpa.h"
#include "api/k8s/meta.h"
#include "api/k8s/workloads.h"
#include "core/error.h"

namespace attune::hpa {

// The annotations, named exactly as estafette-k8s-hpa-scaler names them.
inline constexpr std::string_view kGuardAnnotation = "estafette.io/hpa-scaler";
inline constexpr std::string_view kQueryAnnotation = "estafette.io/hpa-scaler-prometheus-query";
inline constexpr std::string_view kRequestsPerReplicaAnnotation =
    "estafette.io/hpa-scaler-requests-per-replica";
inline constexpr std::string_view kDeltaAnnotation = "estafette.io/hpa-scaler-delta";
inline constexpr std::string_view kScaleDownMaxRatioAnnotation =
    "estafette.io/hpa-scaler-scale-down-max-ratio";
inline constexpr std::string_view kDeploymentCheckingAnnotation =
    "estafette.io/hpa-scaler-enable-scale-down-ratio-deployment-checking";

// What an HPA's annotations ask of the guard.
struct GuardSettings {
  std::string query;              // PromQL; empty: no query floor
  double requestsPerReplica = 1;  // > 0
  double delta = 0;
  std::optional<double> scaleDownMaxRatio;  // in [0, 1]; unset: no ratio floor
  bool deploymentChecking = false;

  bool operator==(const GuardSettings&) const = default;
};

// Whether the HPA is annotated estafette.io/hpa-scaler: "true" (exactly, as upstream).
bool guarded(const api::ObjectMeta& meta);

// The settings of a guarded HPA. Absent annotations take their defaults (requestsPerReplica 1,
// delta 0, no ratio, no deployment checking). Fails with kInvalidArgument, Error::field set to
// the annotation's name, on a value that is not a number, a requestsPerReplica that is not
// positive, a ratio outside [0, 1], or a deployment-checking value other than "true"/"false".
Result<GuardSettings> parseGuardSettings(const api::StringMap& annotations);

// Whether more than one ReplicaSet controlled by the Deployment `target` names (in the HPA's
// namespace, which `replicaSets` must be limited to) has replicas: a rollout is in progress.
// False for a target that is not a Deployment.
bool rolloutInProgress(const api::ScaleTargetRef& target,
                       std::span<const api::ReplicaSet> replicaSets);

// The facts one decision is made from.
struct FloorInputs {
  // The query's value; nullopt when the query failed or returned nothing (or no query is set).
  std::optional<double> queryResult;
  std::int32_t currentReplicas = 0;  // the HPA's status.currentReplicas
  bool rolloutInProgress = false;    // consulted only with deploymentChecking
  std::int32_t maxReplicas = 0;      // the HPA's spec.maxReplicas
};

struct FloorDecision {
  std::optional<std::int32_t> queryFloor;
  std::optional<std::int32_t> ratioFloor;
  bool ratioSkippedForRollout = false;
  bool noData = false;       // a query is annotated and gave no value
  bool cappedAtMax = false;  // the larger floor was above maxReplicas
  // The minReplicas the HPA should have; nullopt: leave it as it is.
  std::optional<std::int32_t> minReplicas;
};

// Applies the rules at the top of this file.
FloorDecision decideFloor(const GuardSettings& settings, const FloorInputs& inputs);

// One line saying how the decision came about, for Events and logs, e.g.
// "query floor 12, scale-down ratio floor 80 of 100 replicas".
std::string describe(const FloorDecision& decision, const FloorInputs& inputs);

}  // namespace attune::hpa
