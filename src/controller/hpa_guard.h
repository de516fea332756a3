// The HPA guard (estafette-k8s-hpa-scaler's controller, docs/hpa.md): every interval, each
// HorizontalPodAutoscaler annotated estafette.io/hpa-scaler: "true" gets the minReplicas the
// floor arithmetic of hpa/guard_floor.h computes from its annotated Prometheus query and its
// scale-down max ratio.
//
// Per guarded HPA, in one pass:
// - annotations that do not parse: Warning Event HpaGuardInvalidAnnotation, nothing written;
// - the query (when annotated) evaluated at clock.now(); a failure or no value: Warning Event
//   HpaGuardQueryFailed, the query-failure counter, nothing written (fail safe);
// - with deployment checking, the ReplicaSets of the HPA's namespace listed once per pass; when
//   that fails nothing is written for the HPA;
// - a new minReplicas is written with a PUT carrying the listed resourceVersion: a conflict is
//   left for the next interval (no Event); a success is a Normal Event MinReplicasChanged on
//   the HPA and the change counter;
// - the minReplicas gauge always shows the HPA's minReplicas after the pass.
// An HPA without the annotation is never written, whatever it had before.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "controller/shard.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/scalar_query.h"

namespace attune::controller {

inline constexpr std::string_view kMinReplicasChanged = "MinReplicasChanged";
inline constexpr std::string_view kHpaGuardQueryFailed = "HpaGuardQueryFailed";
inline constexpr std::string_view kHpaGuardInvalidAnnotation = "HpaGuardInvalidAnnotation";

struct HpaGuardOptions {
  std::vector<std::string> namespaces;  // empty: all namespaces
  // Only the HPAs of the namespaces this shard owns are guarded (docs/sharding.md).
  ShardAssignment shard;
  Duration interval = std::chrono::minutes(1);
};

// What one pass did.
struct HpaGuardSummary {
  std::size_t guarded = 0;        // annotated HPAs looked at
  std::size_t changed = 0;        // minReplicas written
  std::size_t queryFailures = 0;  // queries that failed or gave no value
  std::size_t conflicts = 0;      // writes refused as stale, retried next interval
  std::size_t failed = 0;         // invalid annotations, failed ReplicaSet reads or writes
};

class HpaGuard {
 public:
  // Every reference must outlive the guard. Not thread-safe.
  HpaGuard(api::ClusterApi& api, metrics::ScalarQuery& query, EventRecorder& events,
           HpaGuardMetrics& metrics, Clock& clock, HpaGuardOptions options);

  // One pass over the HPAs of the configured namespaces. Fails only when an HPA list fails
  // (the namespaces listed before it are guarded).
  Result<HpaGuardSummary> runPass();
  // runPass when one is due (at the first call, then `interval` after the previous pass
  // started); nullopt otherwise.
  std::optional<Result<HpaGuardSummary>> runDue();

 private:
  struct PassState;
  void guard(api::HorizontalPodAutoscaler hpa, PassState& pass);
  Result<bool> rolloutInProgress(const api::HorizontalPodAutoscaler& hpa, PassState& pass);
  void warn(const api::HorizontalPodAutoscaler& hpa, std::string_view reason,
            const std::string& message);

  api::ClusterApi& api_;
  metrics::ScalarQuery& query_;
  EventRecorder& events_;
  HpaGuardMetrics& metrics_;
  Clock& clock_;
  HpaGuardOptions options_;
  std::optional<Time> nextPass_;
};

}  // namespace attune::controller
