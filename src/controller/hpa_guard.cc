#include "controller/hpa_guard.h"

#include <map>
#include <utility>

#include "hpa/guard_floor.h"

namespace attune::controller {

struct HpaGuard::PassState {
  HpaGuardSummary summary;
  std::map<std::string, std::vector<api::ReplicaSet>, std::less<>> replicaSets;  // by namespace
};

namespace {

api::ObjectReference referenceToHpa(const api::HorizontalPodAutoscaler& hpa) {
  return referenceTo("autoscaling/v2", "HorizontalPodAutoscaler", hpa.metadata);
}

std::int32_t minReplicasOf(const api::HorizontalPodAutoscaler& hpa) {
  return hpa.spec.minReplicas.value_or(1);  // the API server's default
}

}  // namespace

HpaGuard::HpaGuard(api::ClusterApi& api, metrics::ScalarQuery& query, EventRecorder& events,
                   HpaGuardMetrics& metrics, Clock& clock, HpaGuardOptions options)
    : api_(api),
      query_(query),
      events_(events),
      metrics_(metrics),
      clock_(clock),
      options_(std::move(options)) {}

std::optional<Result<HpaGuardSummary>> HpaGuard::runDue() {
  const Time now = clock_.now();
  if (nextPass_ && now < *nextPass_) return std::nullopt;
  nextPass_ = now + options_.interval;
  return runPass();
}

Result<HpaGuardSummary> HpaGuard::runPass() {
  PassState pass;
  const std::vector<std::string> all{""};
  for (const std::string& ns : options_.namespaces.empty() ? all : options_.namespaces) {
    auto listed = api_.listHpas({ns, {}});
    if (!listed) return std::unexpected(listed.error());
    for (api::HorizontalPodAutoscaler& hpa : listed->items) {
      if (hpa::guarded(hpa.metadata) && options_.shard.owns(hpa.metadata.namespace_)) {
        guard(std::move(hpa), pass);
      }
    }
  }
  return pass.summary;
}

void HpaGuard::warn(const api::HorizontalPodAutoscaler& hpa, std::string_view reason,
                    const std::string& message) {
  (void)events_.record(referenceToHpa(hpa), "Warning", reason, message);
}

Result<bool> HpaGuard::rolloutInProgress(const api::HorizontalPodAutoscaler& hpa, PassState& pass) {
  const std::string& ns = hpa.metadata.namespace_;
  auto cached = pass.replicaSets.find(ns);
  if (cached == pass.replicaSets.end()) {
    auto listed = api_.listReplicaSets({ns, {}});
    if (!listed) return std::unexpected(listed.error());
    cached = pass.replicaSets.emplace(ns, std::move(listed->items)).first;
  }
  return hpa::rolloutInProgress(hpa.spec.scaleTargetRef, cached->second);
}

void HpaGuard::guard(api::HorizontalPodAutoscaler hpa, PassState& pass) {
  HpaGuardSummary& summary = pass.summary;
  ++summary.guarded;
  const std::vector<std::string> labels{hpa.metadata.namespace_, hpa.metadata.name};
  const std::int32_t current = minReplicasOf(hpa);
  metrics_.minReplicas.set(labels, current);
  const std::string stays = "; minReplicas stays " + std::to_string(current);

  auto settings = hpa::parseGuardSettings(hpa.metadata.annotations);
  if (!settings) {
    ++summary.failed;
    warn(hpa, kHpaGuardInvalidAnnotation, settings.error().toString() + stays);
    return;
  }
  hpa::FloorInputs inputs{.queryResult = std::nullopt,
                          .currentReplicas = hpa.status.currentReplicas,
                          .rolloutInProgress = false,
                          .maxReplicas = hpa.spec.maxReplicas};
  if (!settings->query.empty()) {
    auto value = query_.evaluate(settings->query, clock_.now());
    if (!value) {
      ++summary.queryFailures;
      metrics_.queryFailures.inc(labels);
      warn(hpa, kHpaGuardQueryFailed, value.error().toString() + stays);
      return;
    }
    inputs.queryResult = *value;
  }
  if (settings->scaleDownMaxRatio && settings->deploymentChecking) {
    auto rollout = rolloutInProgress(hpa, pass);
    if (!rollout) {
      ++summary.failed;  // fail safe: no write without knowing whether a rollout runs
      return;
    }
    inputs.rolloutInProgress = *rollout;
  }
  const hpa::FloorDecision decision = hpa::decideFloor(*settings, inputs);
  if (!decision.minReplicas || *decision.minReplicas == current) return;

  hpa.spec.minReplicas = *decision.minReplicas;
  auto stored = api_.updateHpa(hpa);  // hpa.metadata.resourceVersion: the precondition
  if (!stored) {
    ++(stored.error().code == ErrorCode::kConflict ? summary.conflicts : summary.failed);
    return;
  }
  ++summary.changed;
  metrics_.minReplicas.set(labels, *decision.minReplicas);
  metrics_.changes.inc(labels);
  (void)events_.record(referenceToHpa(*stored), "Normal", kMinReplicasChanged,
                       "minReplicas " + std::to_string(current) + " → " +
                           std::to_string(*decision.minReplicas) + ": " +
                           hpa::describe(decision, inputs));
}

}  // namespace attune::controller
