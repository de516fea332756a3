#include "controller/policy_pass.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string_view>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "api/policy/slo_query.h"
#include "controller/actuator.h"
#include "controller/admission_sizing.h"
#include "controller/hpa_retunes.h"
#include "controller/policy_status.h"
#include "controller/shard.h"
#include "controller/slo_queries.h"
#include "rollout/batch_workloads.h"
#include "rollout/node_optimisation.h"
#include "rollout/oom_recovery.h"
#include "rollout/planner.h"
#include "rollout/resize_schedule.h"
#include "rollout/startup_boost.h"
#include "safety/conditions.h"
#include "safety/cooldown.h"
#include "safety/observation.h"
#include "usage/pod_aggregation.h"

namespace attune::controller {
namespace {

// The policy's namespace, without the containers it excludes: they are never queried.
metrics::Scope scopeOf(const api::AttunePolicy& policy) {
  metrics::Scope scope{.namespaces = {policy.metadata.namespace_},
                       .excludedContainers = policy.spec.excludedContainers};
  if (policy.spec.excludeKnownSidecars.value_or(api::kDefaultExcludeKnownSidecars)) {
    for (std::string_view name : api::knownSidecarContainers()) {
      scope.excludedContainers.emplace_back(name);
    }
  }
  return scope;
}

// The recommendations of each workload, in their order: the plan looks them up per target
// instead of scanning them all for each one.
using RecommendationsByRef = std::map<api::WorkloadRef, std::vector<const RecommendedWorkload*>>;
RecommendationsByRef recommendationsByRef(const std::vector<RecommendedWorkload>& recommended) {
  RecommendationsByRef out;
  for (const RecommendedWorkload& a : recommended) out[a.ref].push_back(&a);
  return out;
}
const std::vector<const RecommendedWorkload*>& recommendationsOf(const RecommendationsByRef& byRef,
                                                                 const api::WorkloadRef& ref) {
  static const std::vector<const RecommendedWorkload*> kNone;
  auto it = byRef.find(ref);
  return it == byRef.end() ? kNone : it->second;
}

// The stored status without its recommendations, which every pass writes anew
// (publishRecommendations, called by prepare before anything reads them): not copied to be
// cleared.
api::AttunePolicyStatus statusToRebuild(const api::AttunePolicyStatus& stored) {
  return {.conditions = stored.conditions,
          .recommendations = {},
          .resizeHistory = stored.resizeHistory,
          .workloads = stored.workloads,
          .savings = stored.savings,
          .canary = stored.canary,
          .cooldown = stored.cooldown,
          .lastReconcileTime = stored.lastReconcileTime,
          .consecutiveReverts = stored.consecutiveReverts,
          .lastResizeTime = stored.lastResizeTime,
          .observedGeneration = stored.observedGeneration};
}

const api::AttunePolicyStatus& heldOrStored(const HeldStatusWrites* held,
                                            const api::AttunePolicy& stored) {
  const api::AttunePolicyStatus* status = held != nullptr ? held->find(stored.metadata) : nullptr;
  return status != nullptr ? *status : stored.status;
}

}  // namespace

Result<std::unique_ptr<PolicyState>> PolicyState::create(const api::AttunePolicy& defaulted,
                                                         const std::string& strategyName,
                                                         std::int64_t generation) {
  auto strategy = recommend::makeStrategy(strategyName);
  if (!strategy) return std::unexpected(strategy.error());
  const api::MetricsSource& source = defaulted.spec.metricsSource;
  const Duration window = source.historyWindow.value_or(api::kDefaultHistoryWindow);
  auto config = usage::statsConfigFor(defaulted.spec, window);
  if (!config) return std::unexpected(config.error());
  usage::UsageHistory usage(*config, source.podAggregation.value_or(api::kDefaultPodAggregation),
                            window, source.queryStep.value_or(api::kDefaultQueryStep),
                            {strategy->get()});
  return std::make_unique<PolicyState>(generation, strategyName, std::move(*strategy),
                                       std::move(usage));
}

Duration usageReadPhase(std::string_view namespace_, Duration step) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(step).count();
  if (seconds <= 0) return Duration::zero();
  // The high half of the key: its low bits also seed the shard's jump hash.
  const std::uint64_t key = namespaceKey(namespace_) >> 32;
  return std::chrono::seconds(static_cast<std::int64_t>(key % static_cast<std::uint64_t>(seconds)));
}

PolicyPass::PolicyPass(Context context, const ClusterSnapshot& snapshot,
                       const api::AttunePolicy& stored, const api::AttunePolicy& policy,
                       PolicyState& state)
    : ctx_(context),
      snapshot_(snapshot),
      stored_(stored),
      policy_(policy),
      state_(state),
      now_(context.clock.now()),
      // A status held to be written between passes is newer than the stored one.
      status_(statusToRebuild(heldOrStored(context.held, stored))) {}

PassResult PolicyPass::run() {
  prepare();
  return finish(nullptr);
}

void PolicyPass::prepare() {
  ++state_.passes;
  targets_ = resolveTargets(snapshot_, policy_);  // snapshot
  yielded_ = yieldOverlaps(policy_, ctx_.policies, targets_);
  readUsage();                                                                        // usage
  recommended_ = recommendTargets(targets_, state_.usage, *state_.strategy, policy_,  // recommend
                                  now_, &state_.recommendations);
  publishAdmissionSizing();
  if (ctx_.options.admissionSizing != nullptr) {
    state_.admissionBypass.check(targets_, *ctx_.options.admissionSizing, ctx_.clock.now(),
                                 ctx_.events, ctx_.operatorMetrics);
  }
  std::map<api::WorkloadRef, std::size_t> replicas;
  for (const TargetWorkload& t : targets_) replicas[t.ref] = t.pods.size();
  publishRecommendations(recommended_, replicas, policy_, now_, ctx_.operatorMetrics, status_);
  publishEvictionSeries();
}

void PolicyPass::publishEvictionSeries() const {
  std::vector<std::string_view> causes;
  if (ctx_.options.oomRecovery && sizesPods()) causes.push_back(rollout::kOomKilledCause);
  if (nodeOptimised() && sizesPods()) {
    causes.insert(causes.end(), {rollout::kNodeMemoryCause, rollout::kNodeCpuCause});
  }
  for (const TargetWorkload& t : targets_) {
    const auto kind = t.ref.workloadKind();
    if (kind && rollout::isBatchWorkload(*kind)) continue;  // never evicted
    for (std::string_view cause : causes) {
      for (const char* result : {"success", "denied", "failed"}) {
        ctx_.operatorMetrics.evictions.inc({t.ref.ns, t.ref.name, result, std::string(cause)}, 0);
      }
    }
  }
}

bool PolicyPass::nodeOptimised() const {
  return policy_.spec.nodeOptimization && policy_.spec.nodeOptimization->enabled.value_or(false);
}

bool PolicyPass::sizesPods() const {
  const auto mode = policy_.spec.updateStrategy.type.value_or(api::UpdateMode::kRecommend);
  return !metricsError_ && !policy_.spec.paused.value_or(false) &&
         mode != api::UpdateMode::kObserve && mode != api::UpdateMode::kRecommend;
}

rollout::Plan PolicyPass::plan(const rollout::NodeOptimisation* nodes) {
  nodes_ = nodes;
  const std::vector<rollout::ObservedPod> observed = judgeResizedPods();  // verdicts
  return makePlan(observed);                                              // plan
}

PassResult PolicyPass::finish(const rollout::NodeOptimisation* nodes) {
  decide(nodes);
  carryOut(ctx_.api);
  return conclude();
}

bool PolicyPass::decide(const rollout::NodeOptimisation* nodes) {
  plan_ = plan(nodes);
  // An OOM eviction records a higher memory: its replacement, created as soon as the pod is
  // gone, must be sized with it.
  if (!plan_.all<rollout::EvictAction>().empty()) publishAdmissionSizing(&plan_);
  return std::ranges::any_of(plan_.actions, writes);
}

void PolicyPass::carryOut(api::ClusterApi& api) {  // actuate
  Actuator actuator(api);
  outcomes_.clear();
  outcomes_.reserve(plan_.actions.size());
  deferred_ = 0;
  for (const rollout::Action& action : plan_.actions) {
    // Past the call's limit of resizes, a resize is left to the policy's next run (in about a
    // second): not attempted, so nothing is written or booked, and decided again then.
    if (ctx_.resizesLeft != nullptr && std::holds_alternative<rollout::ResizeAction>(action) &&
        ctx_.resizesLeft->fetch_sub(1, std::memory_order_relaxed) <= 0) {
      outcomes_.push_back({.status = ActionOutcome::Status::kNotAttempted,
                           .error = "deferred: this run has carried out its limit of resizes",
                           .recordCleared = false,
                           .refusedByBudget = false});
      ++deferred_;
      continue;
    }
    outcomes_.push_back(actuator.carryOut(action));
  }
}

PassResult PolicyPass::conclude() {
  const rollout::Plan& plan = plan_;
  ActionRecorder recorder({.events = ctx_.events,
                           .metrics = ctx_.operatorMetrics,
                           .observer = ctx_.observer,
                           .snapshot = snapshot_,
                           .targets = targets_,
                           .policy = stored_.metadata.namespace_ + "/" + stored_.metadata.name,
                           .historyLimit = ctx_.options.historyLimit,
                           .now = now_},
                          status_, state_.lastSkip);
  for (std::size_t i = 0; i < plan.actions.size(); ++i) {
    recorder.record(plan.actions[i], outcomes_[i]);
  }
  settleStatus(status_, stored_, policy_, recommended_,  // status
               {.metricsError = metricsError_,
                .targets = targets_.size(),
                .resizeBlocked = plan.resizeBlocked,
                .canaries = plan.canaries,
                .consecutiveReverts = mostReverts_,
                .resizing = static_cast<int>(plan.all<rollout::ResizeAction>().size()) - deferred_ +
                            plan.underObservation,
                .coolingDown = std::ranges::any_of(plan.all<rollout::SkipAction>(),
                                                   [](const rollout::SkipAction* s) {
                                                     return s->reason ==
                                                            rollout::SkipReason::kCooldown;
                                                   }),
                .scheduleBlocked = plan.scheduleBlocked},
               now_);
  reportPolicyConflict(status_, stored_.status, stored_, yielded_, ctx_.events, now_);
  // The first pass of this controller over the policy (or over its new spec) writes the status
  // whatever it holds, before the pass ends: the stored heartbeat may be another replica's.
  const bool first = state_.passes == 1;
  writeStatus(ctx_.api, stored_, status_, first ? Duration::zero() : ctx_.options.statusHeartbeat,
              first ? nullptr : ctx_.heartbeats, first ? nullptr : ctx_.held, ctx_.writes);
  if (deferred_ > 0) {
    ctx_.operatorMetrics.resizesDeferred.inc({}, static_cast<double>(deferred_));
    // Due again after the shortest requeue (a second): the next poll runs it.
    return {.requeueAfter = Duration::zero()};
  }
  return {.requeueAfter = plan.requeueAfter};
}

void PolicyPass::publishAdmissionSizing(const rollout::Plan* plan) {
  if (ctx_.options.admissionSizing == nullptr) return;
  // A strategy whose tool sizes new pods at its own recommendation (VPA's admission controller)
  // publishes it; the others publish CruiseKube's Phase 1 sizing (docs/webhooks.md).
  WorkloadSizing sizing =
      state_.strategy->admissionSizing() == recommend::AdmissionSizing::kRecommendation
          ? recommendationSizing(recommended_, policy_)
          : cruisekubeSizing(recommended_, state_.usage, policy_, now_);
  // The memory at an OOM kill recorded on the workload (OOM recovery) counts too: the
  // replacement of an evicted pod gets at least twice it, within the policy's maxAllowed. With
  // `plan`, what its evictions are about to record counts as recorded.
  const std::optional<Bytes> cap = policy_.spec.memory.maxAllowed;
  for (const TargetWorkload& t : targets_) {
    auto it = sizing.find(t.ref);
    if (it == sizing.end() || t.metadata == nullptr) continue;
    api::StringMap annotations = t.metadata->annotations;
    if (plan != nullptr) {
      for (const rollout::EvictAction* e : plan->all<rollout::EvictAction>()) {
        if (e->workload != t.ref) continue;
        for (const auto& [key, value] : e->workloadAnnotations) {
          if (value) annotations[key] = *value;
        }
      }
    }
    for (webhook::ContainerSizing& c : it->second) {
      const Bytes oom = rollout::recordedOomMemory(annotations, c.container);
      if (!c.memoryLimit || oom.value() == 0) continue;
      Bytes wanted(2 * oom.value());
      if (cap && wanted > *cap) wanted = std::max(*cap, *c.memoryLimit);
      if (wanted > *c.memoryLimit) c.memoryLimit = wanted;
    }
  }
  const std::string key = namespacedKey(stored_.metadata);
  AdmissionSizing& board = *ctx_.options.admissionSizing;
  board.publish(key, keepingRecreatedWorkloads(std::move(sizing), board.publishedBy(key), targets_,
                                               recommended_, policy_));
}

void PolicyPass::readUsage() {
  const Time readTime = usageReadTime();
  // Between two steps there is nothing new to read: the history stays as it is.
  if (!state_.usage.nextRefresh(readTime)) return;
  std::map<std::string_view, const api::WorkloadRef*, std::less<>> podOwner;
  for (const TargetWorkload& t : targets_) {
    for (const api::Pod* pod : t.pods) podOwner[pod->metadata.name] = &t.ref;
  }
  const auto ownerOf = [&](const metrics::ContainerId& id) -> const api::WorkloadRef* {
    if (api::isExcludedContainer(policy_, id.container)) return nullptr;
    auto it = podOwner.find(id.pod);
    return it == podOwner.end() ? nullptr : it->second;
  };
  const usage::WorkloadOf workloadOf =
      [&](const metrics::ContainerId& id) -> std::optional<api::WorkloadRef> {
    const api::WorkloadRef* owner = ownerOf(id);
    if (owner == nullptr) return std::nullopt;
    return *owner;
  };
  const metrics::Scope scope = scopeOf(policy_);
  Result<void> refreshed;
  if (ctx_.sharedReads == nullptr) {
    refreshed = state_.usage.refresh(ctx_.metrics, scope, readTime, workloadOf);
  } else {
    // The namespace's shared reading, restricted to this policy's target pods.
    const usage::ContainerFilter wanted = [&](const metrics::ContainerId& id) {
      return ownerOf(id) != nullptr;
    };
    std::vector<std::string_view> pods;  // sorted, as podOwner is
    pods.reserve(podOwner.size());
    for (const auto& [name, owner] : podOwner) pods.push_back(name);
    refreshed = state_.usage.refresh(
        [&](const usage::ReadRange& range, const usage::ViewUser& use) {
          return ctx_.sharedReads->use(ctx_.metrics, scope, range, use, wanted, &pods);
        },
        readTime, workloadOf);
  }
  if (!refreshed) metricsError_ = refreshed.error().toString();
}

Time PolicyPass::usageReadTime() const {
  if (!ctx_.options.spreadUsageReads) return now_;
  return now_ - usageReadPhase(policy_.metadata.namespace_, state_.usage.step());
}

std::optional<usage::ReadRange> PolicyPass::announceUsageRead() {
  if (ctx_.sharedReads == nullptr) return std::nullopt;
  auto range = state_.usage.nextRefresh(usageReadTime());
  if (range) ctx_.sharedReads->expect(ctx_.metrics, scopeOf(policy_), *range);
  return range;
}

// ---- Verdicts

safety::SafetySignals PolicyPass::throttleSignals() {
  if (signals_) return *signals_;
  safety::SafetySignals signals;
  signals.throttleRatio.emplace();
  const Duration window = ctx_.options.observation.throttleWindow;
  const Time end = usage::floorToStep(now_, ctx_.options.observation.sampleInterval);
  // A failing source leaves the map empty: the monitor then fails closed (no data, no "safe").
  const metrics::Scope scope = scopeOf(policy_);
  const metrics::Range range{end, end, window};
  // Shared with the pass's other policies of the namespace when they read the same.
  if (auto ratios = ctx_.sharedReads != nullptr
                        ? ctx_.sharedReads->throttleRatio(ctx_.metrics, scope, range)
                        : ctx_.metrics.cpuThrottleRatio(scope, range)) {
    for (const auto& series : *ratios) {
      if (series.points.empty()) continue;
      // Keyed "pod/container": one policy's pods share the namespace.
      (*signals.throttleRatio)[series.id.pod + "/" + series.id.container] =
          series.points.back().value;
    }
  }
  signals_ = std::move(signals);
  return *signals_;
}

std::vector<rollout::ObservedPod> PolicyPass::judgeResizedPods() {
  const safety::SafetyMonitor monitor(safety::safetyOptionsFor(
      policy_.spec, ctx_.options.observation, ctx_.options.throttleThreshold));
  std::vector<rollout::ObservedPod> observed;
  for (const TargetWorkload& target : targets_) {
    for (const api::Pod* pod : target.pods) {
      auto record = safety::decodeResizeRecord(*pod);
      if (!record || !*record) continue;  // malformed records are reported by the planner
      rollout::ObservedPod o{
          .workload = target.ref, .pod = pod, .record = **record, .verdict = std::nullopt};
      if (rollout::recordState(*pod, o.record) == rollout::RecordState::kToJudge) {
        safety::SafetySignals signals;
        // Throttle data is only read when a verdict may need it (at or after the period's end).
        if (now_ >= o.record.resizedAt + monitor.options().observationPeriod) {
          const safety::SafetySignals all = throttleSignals();
          signals.throttleRatio.emplace();
          for (const auto& c : o.record.containers) {
            auto it = all.throttleRatio->find(pod->metadata.name + "/" + c.name);
            if (it != all.throttleRatio->end()) (*signals.throttleRatio)[c.name] = it->second;
          }
        }
        signals.guardrails = readGuardrails(target.ref, *pod, o.record.resizedAt);
        o.verdict = monitor.verdict(o.record, *pod, signals, now_);
      }
      observed.push_back(std::move(o));
    }
  }
  return observed;
}

std::vector<safety::GuardrailReading> PolicyPass::readGuardrails(const api::WorkloadRef& workload,
                                                                 const api::Pod& pod,
                                                                 Time resizedAt) {
  std::vector<safety::GuardrailReading> readings;
  const auto due = safety::dueGuardrails(policy_.spec.updateStrategy, resizedAt, now_);
  if (due.empty()) return readings;
  metrics::ScalarQuery* query = nullptr;
  std::string unavailable = "no Prometheus query endpoint is configured";
  if (ctx_.options.sloQueries != nullptr) {
    if (auto q = ctx_.options.sloQueries->queryFor(stored_)) {
      query = *q;
    } else {
      unavailable = q.error().toString();
    }
  }
  for (const api::SloGuardrail* g : due) {
    safety::GuardrailReading r = safety::readingOf(*g);
    auto text = api::renderSloQuery(
        g->query, {.namespace_ = workload.ns, .workload = workload.name, .pod = pod.metadata.name});
    if (!text) {
      r.error = text.error().message;
    } else if (query == nullptr) {
      r.error = unavailable;
    } else if (auto value = query->evaluate(*text, now_); !value) {
      r.error = value.error().toString();
    } else if (!std::isfinite(*value)) {
      r.error = "the query returned " + std::to_string(*value);
    } else {
      r.value = *value;
    }
    if (!r.value) {
      guardrailFailures_.push_back({.workload = workload,
                                    .type = "Warning",
                                    .reason = std::string(kSloGuardrailSkippedReason),
                                    .message = "SLO guardrail " + g->name +
                                               " not evaluated for pod " + pod.metadata.name +
                                               " (failing open): " + r.error});
    }
    readings.push_back(std::move(r));
  }
  return readings;
}

// ---- Plan

rollout::Plan PolicyPass::makePlan(const std::vector<rollout::ObservedPod>& observed) {
  std::map<api::WorkloadRef, api::ObjectMeta> workloads;
  for (const TargetWorkload& t : targets_) workloads[t.ref] = *t.metadata;
  rollout::Plan observations;
  rollout::planObservations(observed, workloads, now_, observations);
  for (rollout::EventAction& e : guardrailFailures_)
    observations.actions.emplace_back(std::move(e));
  guardrailFailures_.clear();
  planRecreateFallback(observed, observations);
  // status.cooldown: the backoff of the workloads as the verdicts leave them.
  mostReverts_ = 0;
  for (const auto& [ref, meta] : workloads) {
    if (auto state = safety::decodeCooldownState(meta)) {
      mostReverts_ = std::max(mostReverts_, state->consecutiveReverts);
    }
  }
  if (ctx_.options.oomRecovery) planOomRecovery(observations);
  planStartupBoosts(observations);
  // Fail closed: without fresh metrics there is no resize this pass.
  rollout::Plan plan =
      metricsError_ ? std::move(observations) : planResizes(workloads, observations);
  // The schedule's condition does not depend on the metrics: kept while they fail.
  const auto mode = policy_.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode);
  if (metricsError_ && policy_.spec.updateStrategy.schedule &&
      !policy_.spec.paused.value_or(false) && mode != api::UpdateMode::kObserve &&
      mode != api::UpdateMode::kRecommend) {
    std::string zoneError;
    const TimeZone* zone = scheduleZone(zoneError);
    plan.scheduleBlocked = rollout::gateSchedule(policy_, zone, zoneError, now_).blocked;
  }
  // The HPAs Attune retunes follow the requests the plan leaves (or get their originals back
  // while the policy is paused), after every pod action.
  planHpaRetunes(targets_, snapshot_.hpas(),
                 stored_.metadata.namespace_ + "/" + stored_.metadata.name,
                 policy_.spec.paused.value_or(false), plan);
  return plan;
}

void PolicyPass::planStartupBoosts(rollout::Plan& plan) {
  const RecommendationsByRef byRef = recommendationsByRef(recommended_);
  std::vector<rollout::BoostWorkload> workloads;
  for (const TargetWorkload& t : targets_) {
    rollout::BoostWorkload w{.ref = t.ref, .pods = t.pods, .targets = {}};
    // Fail closed: without fresh metrics no boost starts (a boost ends at the recorded CPU).
    // Pods sized by the node optimiser are not boosted.
    for (const RecommendedWorkload* a : recommendationsOf(byRef, t.ref)) {
      if (metricsError_ || nodeOptimised()) continue;
      for (const RecommendedContainer& c : a->containers) {
        if (c.recommendation.enoughData) w.targets[c.name] = c.recommendation.resources;
      }
    }
    workloads.push_back(std::move(w));
  }
  boostedPods_ = rollout::planStartupBoost(policy_, workloads, snapshot_.nodes(), now_, plan);
}

void PolicyPass::planRecreateFallback(const std::vector<rollout::ObservedPod>& observed,
                                      rollout::Plan& plan) const {
  const auto& u = policy_.spec.updateStrategy;
  const auto mode = u.type.value_or(api::kDefaultUpdateMode);
  if (u.resizeMethod.value_or(api::kDefaultResizeMethod) !=
          api::ResizeFallback::kInPlaceOrRecreate ||
      policy_.spec.paused.value_or(false) || mode == api::UpdateMode::kObserve ||
      mode == api::UpdateMode::kRecommend) {
    return;
  }
  std::map<api::WorkloadRef, rollout::RecreateWorkload> workloads;
  for (const TargetWorkload& t : targets_) {
    rollout::RecreateWorkload& w = workloads[t.ref];
    w.metadata = *t.metadata;
    for (const api::Pod* pod : t.pods) w.runningPods += pod->metadata.deletionTimestamp ? 0 : 1;
  }
  rollout::planRecreateFallback(observed, workloads, now_, plan);
}

void PolicyPass::planOomRecovery(rollout::Plan& plan) {
  const auto mode = policy_.spec.updateStrategy.type.value_or(api::UpdateMode::kRecommend);
  const bool managed = !policy_.spec.paused.value_or(false) && mode != api::UpdateMode::kObserve &&
                       mode != api::UpdateMode::kRecommend;
  for (const TargetWorkload& target : targets_) {
    // Batch pods are never evicted by Attune (recommend-only, rollout/batch_workloads.h).
    rollout::OomWorkload workload{
        .ref = target.ref,
        .meta = target.metadata,
        .memoryManaged = managed && !rollout::isBatchWorkload(target.kind()),
        .pods = {}};
    for (const api::Pod* pod : target.pods) {
      auto record = safety::decodeResizeRecord(*pod);
      // A malformed record counts as one: such a pod is left to the planner's report.
      const bool underObservation = !record || *record;
      workload.pods.push_back({.pod = pod, .underObservation = underObservation});
    }
    rollout::planOomRecovery(workload, state_.oomCooldowns, now_, ctx_.options.oom, plan);
  }
}

rollout::Plan PolicyPass::planResizes(const std::map<api::WorkloadRef, api::ObjectMeta>& workloads,
                                      rollout::Plan& observations) {
  // HPAs Attune retunes get HPARetuned events, the others the informational HPAConflict.
  const std::vector<api::HorizontalPodAutoscaler> leftAlone = hpasLeftAlone(snapshot_.hpas());
  rollout::RolloutInput input{
      .workloads = {},
      .limitRanges = snapshot_.limitRanges(),
      .quotas = snapshot_.quotas(),
      .nodes = snapshot_.nodes(),
      .nodeNamed = [this](std::string_view name) { return snapshot_.node(name); },
      .hpas = leftAlone,
      .resizesInFlight = 0};
  if (policy_.spec.updateStrategy.schedule) {
    input.scheduleZone = scheduleZone(input.scheduleZoneError);
  }
  input.serverVersion = snapshot_.serverVersion();
  input.memoryUsage = currentMemoryUsage();
  const RecommendationsByRef byRef = recommendationsByRef(recommended_);
  for (const TargetWorkload& t : targets_) {
    rollout::WorkloadInput w{.kind = t.kind(),
                             .metadata = workloads.at(t.ref),
                             .replicas = t.replicas,
                             .updatedReplicas = t.updatedReplicas,
                             .pods = t.pods,
                             .targets = {}};
    const std::vector<const RecommendedWorkload*>& recommendations =
        recommendationsOf(byRef, t.ref);
    for (const RecommendedWorkload* a : recommendations) w.lastDataTime = a->lastDataTime;
    std::erase_if(w.pods, [&](const api::Pod* p) {  // boosted: left to planStartupBoosts
      return boostedPods_.contains(p->metadata.name);
    });
    if (nodeOptimised()) {
      useNodeTargets(w);
    } else {
      for (const RecommendedWorkload* a : recommendations) {
        for (const RecommendedContainer& c : a->containers) {
          if (c.recommendation.enoughData) w.targets[c.name] = c.recommendation.resources;
        }
      }
    }
    input.workloads.push_back(std::move(w));
  }
  rollout::Plan plan =
      rollout::planRollout(policy_, input, now_, {.observation = ctx_.options.observation});
  planNodeEvictions(observations);
  plan.actions.insert(plan.actions.begin(), std::make_move_iterator(observations.actions.begin()),
                      std::make_move_iterator(observations.actions.end()));
  plan.requeue(observations.requeueAfter);
  return plan;
}

const TimeZone* PolicyPass::scheduleZone(std::string& error) {
  const std::string name = policy_.spec.updateStrategy.schedule->timezone.value_or(
      std::string(api::kDefaultScheduleTimezone));
  if (state_.scheduleZoneName != name) {
    state_.scheduleZone = loadTimeZone(name, zoneinfoDirectory());
    state_.scheduleZoneName = name;
  }
  if (!state_.scheduleZone) {
    error = "spec.updateStrategy.schedule.timezone: " + state_.scheduleZone.error().message;
    return nullptr;
  }
  return &*state_.scheduleZone;
}

rollout::ContainerMemoryUsage PolicyPass::currentMemoryUsage() const {
  // A sample older than three query steps is not "current" (the pass fails closed on it).
  const Duration step = policy_.spec.metricsSource.queryStep.value_or(api::kDefaultQueryStep);
  return [this, oldest = now_ - 3 * step](const api::Pod& pod,
                                          std::string_view container) -> std::optional<Bytes> {
    const auto sample =
        state_.usage.latestMemory(pod.metadata.namespace_, pod.metadata.name, container);
    if (!sample || sample->time < oldest) return std::nullopt;
    return Bytes(static_cast<std::int64_t>(sample->value));
  };
}

void PolicyPass::useNodeTargets(rollout::WorkloadInput& w) const {
  w.perPodTargets = true;
  if (nodes_ == nullptr) return;
  for (const api::Pod* pod : w.pods) {
    auto it = nodes_->targets.find(pod->metadata.namespace_ + "/" + pod->metadata.name);
    if (it != nodes_->targets.end()) w.podTargets[pod->metadata.name] = it->second;
  }
}

void PolicyPass::planNodeEvictions(rollout::Plan& plan) const {
  if (nodes_ == nullptr || !nodeOptimised()) return;
  for (const rollout::EvictAction& e : nodes_->evictions) {
    // Not a batch workload's pods: they are recommend-only (rollout/batch_workloads.h).
    const bool ours = std::any_of(targets_.begin(), targets_.end(), [&](const TargetWorkload& t) {
      return t.ref == e.workload && !rollout::isBatchWorkload(t.kind());
    });
    if (ours) plan.actions.emplace_back(e);
  }
}

// ---- Status

std::vector<api::LabelSelector> PolicyPass::podSelectors() const {
  std::vector<api::LabelSelector> selectors;
  for (const TargetWorkload& t : targets_) {
    if (t.podSelector != nullptr) selectors.push_back(*t.podSelector);
  }
  return selectors;
}

void PolicyPass::reportInvalid(api::ClusterApi& api, const api::AttunePolicy& stored,
                               const Error& error, Time now) {
  api::AttunePolicy update = stored;
  safety::setCondition(update.status.conditions,
                       {.type = std::string(api::kConditionReady),
                        .status = "False",
                        .reason = std::string(api::kReasonInvalidConfig),
                        .message = error.toString(),
                        .lastTransitionTime = std::nullopt,
                        .observedGeneration = stored.metadata.generation},
                       now);
  // The recommendations no longer stand (nothing acts on them while the policy is invalid), nor
  // do the savings and the counts made from them: withdrawn, as from the metrics. The resize
  // history stays: it records what was done.
  update.status.recommendations.clear();
  update.status.savings.reset();
  if (update.status.workloads) {
    update.status.workloads->withRecommendations = 0;
    update.status.workloads->pending = 0;
  }
  if (update.status == stored.status) return;
  (void)api.updateAttunePolicyStatus(update);
}

}  // namespace attune::controller
