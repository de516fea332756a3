// One reconcile of one policy, as the data flow: snapshot → usage → recommend → verdicts →
// plan → actuate → status (see controller.h), and the per-policy state the controller caches
// between passes (usage statistics and what it already recorded: everything else is read from
// the cluster each time).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/action_recorder.h"
#include "controller/admission_bypass.h"
#include "controller/cluster_snapshot.h"
#include "controller/controller.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "controller/policy_overlaps.h"
#include "controller/policy_status.h"
#include "controller/target_resolution.h"
#include "controller/workload_recommendations.h"
#include "core/time.h"
#include "core/time_zone.h"
#include "recommend/strategy.h"
#include "rollout/node_optimisation.h"
#include "rollout/observation_plan.h"
#include "rollout/plan.h"
#include "rollout/planner.h"
#include "rollout/recreate_fallback.h"
#include "safety/safety_monitor.h"
#include "usage/shared_usage_reads.h"
#include "usage/usage_history.h"

namespace attune::controller {

struct PolicyState {
  // `defaulted` has api::applyDefaults applied. Fails when the strategy name is unknown or the
  // policy's statistics configuration is invalid.
  static Result<std::unique_ptr<PolicyState>> create(const api::AttunePolicy& defaulted,
                                                     const std::string& strategyName,
                                                     std::int64_t generation);
  PolicyState(std::int64_t generation, std::string strategyName, recommend::StrategyPtr strategy,
              usage::UsageHistory usage)
      : generation(generation),
        strategyName(std::move(strategyName)),
        strategy(std::move(strategy)),
        usage(std::move(usage)) {}

  std::int64_t generation;
  std::string strategyName;
  recommend::StrategyPtr strategy;
  usage::UsageHistory usage;
  RecommendationCache recommendations;
  SkipMemory lastSkip;
  rollout::OomCooldowns oomCooldowns;  // the OOM kills handled (memory only)
  std::uint64_t passes = 0;            // passes run since the state was created
  // The pods reported as created without the pod admission webhook.
  AdmissionBypassWatch admissionBypass;
  // updateStrategy.schedule's zone, loaded once per name (loadScheduleZone).
  std::optional<std::string> scheduleZoneName;
  Result<TimeZone> scheduleZone = TimeZone::utc();
};

// What a pass asks of the work queue.
struct PassResult {
  // When the policy should be reconciled again, if sooner than the periodic resync (a cooldown
  // or an observation period ending, a deferral).
  std::optional<Duration> requeueAfter;
};

// The share of one query `step` by which the policies of `namespace_` read late when reads are
// spread (ControllerOptions::spreadUsageReads): whole seconds in [0, step), a pure function of
// the name (namespaceKey), even over the namespaces of a cluster; zero for a step under a second.
Duration usageReadPhase(std::string_view namespace_, Duration step);

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
    // The AttunePolicies of the policy's namespace as listed, for overlapping policies
    // (policy_overlaps.h); empty: none.
    std::span<const api::AttunePolicy* const> policies = {};
    // The usage reads this pass shares with the other policies of its reconcile
    // (usage/shared_usage_reads.h); nullptr: the policy reads its usage on its own.
    usage::SharedUsageReads* sharedReads = nullptr;
    // The heartbeat writes this pass shares with the other policies of its reconcile
    // (writeStatus); nullptr: no limit.
    HeartbeatBudget* heartbeats = nullptr;
    // Where the heartbeat writes this pass decides are held (writeStatus); nullptr: written.
    HeldStatusWrites* held = nullptr;
    // Where the status write of this pass is added to be sent with others' (writeStatus);
    // nullptr: the pass sends it.
    StatusWrites* writes = nullptr;
    // The resizes this pass may still carry out, shared with the other passes of its reconcile
    // call (ControllerOptions::resizesPerCall; taken from several connections at once); a resize
    // past it is deferred. nullptr: no limit.
    std::atomic<std::int64_t>* resizesLeft = nullptr;
  };

  // `stored` is the policy as read; `policy` the same with defaults (and overrides) applied.
  PolicyPass(Context context, const ClusterSnapshot& snapshot, const api::AttunePolicy& stored,
             const api::AttunePolicy& policy, PolicyState& state);

  // Before prepare(): announces the usage read prepare() will make to the context's sharedReads
  // (none without them), so that one read serves every policy of the namespace. Returns the
  // range announced, or nullopt when nothing was.
  std::optional<usage::ReadRange> announceUsageRead();
  // Runs the whole reconcile; failures are recorded in the status, never thrown. The same as
  // prepare() then finish(nullptr).
  PassResult run();
  // The first half of the data flow: snapshot → usage → recommend (and the admission sizing).
  void prepare();
  // The second half: verdicts → plan → actuate → status. `nodes` is this reconcile's node
  // optimisation (node_optimiser.h); a policy with spec.nodeOptimization.enabled takes its pods'
  // targets and evictions from it, and without it (nullptr) resizes none of its pods.
  PassResult finish(const rollout::NodeOptimisation* nodes);
  // finish() in three steps, for a controller that carries out several passes' plans at once
  // (ClusterApi::runTasks). decide(): verdicts → plan, kept in the pass; whether carrying it out
  // writes to the cluster (rollout/plan.h: a resize, revert, eviction, ...). carryOut(): the
  // plan carried out through `api` (actuate); it touches nothing of the pass but the kept plan
  // and the outcomes it keeps, so passes may carry out their plans on threads of their own.
  // conclude(): the outcomes booked, then the status.
  bool decide(const rollout::NodeOptimisation* nodes);
  void carryOut(api::ClusterApi& api);
  PassResult conclude();
  // After prepare(): verdicts → plan, without carrying the plan out or writing the status (what
  // finish() would do; `attune plugin preview`). `nodes` as for finish().
  rollout::Plan plan(const rollout::NodeOptimisation* nodes);

  // After prepare(), for the node optimiser:
  // whether the policy opted into node optimisation;
  bool nodeOptimised() const;
  // whether its pods may be sized now: it resizes (OneShot, Canary or Auto, not paused) and its
  // usage read succeeded this pass (fail closed).
  bool sizesPods() const;
  const api::AttunePolicy& policy() const { return policy_; }
  const std::vector<TargetWorkload>& targets() const { return targets_; }
  const std::vector<RecommendedWorkload>& recommended() const { return recommended_; }
  const usage::UsageHistory& usage() const { return state_.usage; }
  // Why this pass's usage read failed (no resize is planned then); nullopt when it succeeded.
  const std::optional<std::string>& metricsError() const { return metricsError_; }
  Time now() const { return now_; }

  // After run(): the pod selectors of the policy's targets (a pod they match concerns it).
  std::vector<api::LabelSelector> podSelectors() const;

  // Writes a Ready=False condition (reason InvalidConfig) for a policy that cannot be reconciled,
  // and withdraws its status recommendations, savings and the workload counts made from them.
  static void reportInvalid(api::ClusterApi& api, const api::AttunePolicy& stored,
                            const Error& error, Time now);

 private:
  // Usage: refreshes the usage history with the target pods' containers the policy does not
  // exclude.
  void readUsage();
  // The time the usage history is brought up to: now, or now less the namespace's phase when
  // reads are spread.
  Time usageReadTime() const;
  // Publishes the targets' admission sizing (admission_sizing.h), when the controller keeps it.
  // Publishes this pass's admission sizing; with `plan`, counting the memory its OOM evictions
  // record on their workloads.
  void publishAdmissionSizing(const rollout::Plan* plan = nullptr);
  // attune_eviction_total at 0 for every target workload and cause that may evict its pods
  // (OOM recovery, node optimisation), so that increase() sees the first eviction.
  void publishEvictionSeries() const;
  // Verdicts: every target pod carrying a resize record, with the safety monitor's verdict
  // where the record is still to be judged (rollout::recordState).
  std::vector<rollout::ObservedPod> judgeResizedPods();
  safety::SafetySignals throttleSignals();
  // SLO guardrails: the readings of the guardrails due for `pod` (resized at `resizedAt`); each
  // one without a value is kept in guardrailFailures_ for its SLOGuardrailSkipped event.
  std::vector<safety::GuardrailReading> readGuardrails(const api::WorkloadRef& workload,
                                                       const api::Pod& pod, Time resizedAt);
  // Plan: the observations ended, then (with fresh metrics only: fail closed) the rollout,
  // planned over the workloads as the observation entries leave them.
  // Then the HPA retunes (hpa_retunes.h), after every pod action.
  // OOM-killed pods evicted for recreation (ControllerOptions::oomRecovery).
  void planOomRecovery(rollout::Plan& plan);
  // updateStrategy.resizeMethod InPlaceOrRecreate: pods whose resize the kubelet cannot carry
  // out are evicted for recreation (rollout/recreate_fallback.h).
  void planRecreateFallback(const std::vector<rollout::ObservedPod>& observed,
                            rollout::Plan& plan) const;
  rollout::Plan makePlan(const std::vector<rollout::ObservedPod>& observed);
  // The rollout, with the observation entries first (then the node optimiser's evictions).
  rollout::Plan planResizes(const std::map<api::WorkloadRef, api::ObjectMeta>& workloads,
                            rollout::Plan& observations);
  // The zone of updateStrategy.schedule, from the tz database (cached in the state); nullptr
  // with `error` set when it cannot be loaded.
  const TimeZone* scheduleZone(std::string& error);
  // The current memory working set of the target pods' containers (memory limit decreases).
  rollout::ContainerMemoryUsage currentMemoryUsage() const;
  // Node optimisation: each pod's own targets, and the evictions of the policy's pods.
  void useNodeTargets(rollout::WorkloadInput& w) const;
  void planNodeEvictions(rollout::Plan& plan) const;

  Context ctx_;
  const ClusterSnapshot& snapshot_;
  const api::AttunePolicy& stored_;
  const api::AttunePolicy& policy_;
  PolicyState& state_;
  Time now_;
  std::vector<TargetWorkload> targets_;
  std::vector<YieldedWorkload> yielded_;  // targets another policy handles (policy_overlaps.h)
  std::vector<RecommendedWorkload> recommended_;
  api::AttunePolicyStatus status_;
  std::optional<std::string> metricsError_;           // set when the usage read failed
  std::optional<safety::SafetySignals> signals_;      // queried once, when first needed
  const rollout::NodeOptimisation* nodes_ = nullptr;  // set by plan(), through decide()
  rollout::Plan plan_;                                // decide()'s
  std::vector<ActionOutcome> outcomes_;               // carryOut()'s, one per plan_ entry
  int deferred_ = 0;                                  // carryOut()'s resizes deferred
  int mostReverts_ = 0;  // the most consecutive reverts of a target workload (makePlan)
  // Startup boost (rollout/startup_boost.h): the pods it boosts, keeps boosted or ends the boost
  // of this pass; the rollout leaves them alone.
  void planStartupBoosts(rollout::Plan& plan);
  std::set<std::string> boostedPods_;
  // Guardrails that could not be evaluated this pass (they failed open), as Warning events.
  std::vector<rollout::EventAction> guardrailFailures_;
};

// A pass between its two halves, as the controller keeps it while the nodes are optimised.
struct PreparedPass {
  std::string key;           // "namespace/name"
  Time started;              // on ControllerOptions::durationClock
  api::AttunePolicy policy;  // defaulted (and overridden); `pass` refers to it
  std::unique_ptr<PolicyPass> pass;
};

}  // namespace attune::controller
