// One reconcile of one policy (see controller.h for the sequence), and the per-policy state the
// controller caches between passes (usage statistics only: everything else is read from the
// cluster each time).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/cluster_snapshot.h"
#include "controller/controller.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "controller/target_resolution.h"
#include "controller/workload_recommendations.h"
#include "recommend/strategy.h"
#include "rollout/plan.h"
#include "safety/resize_record.h"
#include "safety/safety_monitor.h"
#include "usage/usage_history.h"

namespace attune::controller {

struct PolicyState {
  // `defaulted` has api::applyDefaults applied. Fails when the strategy name is unknown or the
  // policy's statistics configuration is invalid.
  static Result<std::unique_ptr<PolicyState>> create(const api::AttunePolicy& defaulted,
                                                     const std::string& strategyName,
                                                     std::int64_t generation);
  PolicyState(std::int64_t generation, std::string strategyName, recommend::StrategyPtr strategy,
              usage::UsageHistory tracker)
      : generation(generation),
        strategyName(std::move(strategyName)),
        strategy(std::move(strategy)),
        tracker(std::move(tracker)) {}

  std::int64_t generation;
  std::string strategyName;
  recommend::StrategyPtr strategy;
  usage::UsageHistory tracker;
  RecommendationCache advice;
  // The skip last recorded per "workload/pod" (pod empty: the whole workload), so that a skip
  // repeated pass after pass is recorded once. Memory only: after a restart the history's
  // latest entry serves the same purpose.
  std::map<std::string, std::string, std::less<>> lastSkip;
};

class PolicyPass {
 public:
  struct Context {
    api::ClusterApi& api;
    metrics::MetricsSource& metrics;
    Clock& clock;
    const ControllerOptions& options;
    OperatorMetrics& operatorMetrics;
    EventRecorder& events;
    const ActionObserver& observer;
  };

  // `stored` is the policy as read; `policy` the same with defaults (and overrides) applied.
  PolicyPass(Context context, const ClusterSnapshot& snapshot, const api::AttunePolicy& stored,
             const api::AttunePolicy& policy, PolicyState& state);

  // Runs the whole reconcile; failures are recorded in the status, never thrown.
  void run();

  // Writes a Ready=False condition (reason InvalidSpec) for a policy that cannot be reconciled.
  static void reportInvalid(api::ClusterApi& api, const api::AttunePolicy& stored,
                            const Error& error, Time now);

 private:
  // Safety: judge each pod carrying a resize record.
  void observeResizedPods();
  void judge(const TargetWorkload& target, const api::Pod& pod, const safety::ResizeRecord& record,
             const safety::SafetyMonitor& monitor);
  // Restores the originals of `record` on `pod`; true when the resize request was accepted.
  bool restoreOriginals(const api::Pod& pod, const safety::ResizeRecord& record);
  void clearRecord(const api::Pod& pod);
  // After a resize request failed with kUnavailable (its outcome unknown): whether the pod, read
  // again, has the requested cpu and memory values in its spec. False when it cannot be read.
  bool resizeLanded(const std::string& ns, const std::string& name,
                    std::span<const api::ContainerResize> containers);
  // Patches the workload's annotations and remembers the change for the rest of the pass.
  void patchWorkload(const TargetWorkload& target, const api::AnnotationChanges& changes);
  // The workload's metadata as the snapshot shows it, with this pass's annotation changes
  // applied (a revert judged earlier in the pass must hold back the plan that follows).
  api::ObjectMeta workloadMetadata(const TargetWorkload& target) const;
  safety::SafetySignals throttleSignals();

  // Rollout: plan and carry out.
  void planAndExecute();
  void execute(const rollout::ResizeAction& action);
  void execute(const rollout::SkipAction& action);
  void execute(const rollout::EventAction& action);
  // One history entry and one attune_resize_total increment per changed resource of `action`.
  void recordChanges(const TargetWorkload& target, const rollout::ResizeAction& action,
                     api::ResizeResult result, const std::string& reason);

  // Status.
  void updateRecommendations();
  void writeStatus();
  void addHistory(api::ResizeHistoryEntry entry);
  // After a resize or a revert the next skip of the workload or pod is news again.
  void forgetSkips(const std::string& workload, const std::string& pod);
  void markReverted(const api::Pod& pod, const safety::ResizeRecord& record,
                    std::string_view reason);
  // Tells the observer, if any, what this pass did (time and policy are the pass's).
  void notify(ActionRecord::Kind kind, const api::WorkloadRef& workload, std::string pod,
              std::string container, std::string reason, std::string detail);
  const TargetWorkload* targetOf(const rollout::WorkloadId& id) const;
  api::ObjectReference workloadReference(const TargetWorkload& target) const;

  Context ctx_;
  const ClusterSnapshot& snapshot_;
  const api::AttunePolicy& stored_;
  const api::AttunePolicy& policy_;
  PolicyState& state_;
  Time now_;
  std::string key_;  // "namespace/name"
  std::vector<TargetWorkload> targets_;
  std::vector<RecommendedWorkload> advice_;
  api::AttunePolicyStatus status_;
  bool metricsOk_ = false;
  std::string metricsError_;
  std::optional<safety::SafetySignals> signals_;  // queried once, when first needed
  std::optional<api::Condition> resizeBlocked_;
  int resizesThisPass_ = 0;
  std::map<api::WorkloadRef, api::AnnotationChanges> workloadChanges_;
};

}  // namespace attune::controller
