#include "controller/policy_pass.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "core/quantity.h"
#include "rollout/planner.h"
#include "safety/conditions.h"
#include "safety/cooldown.h"
#include "safety/observation.h"
#include "usage/pod_aggregation.h"

namespace attune::controller {
namespace {

constexpr std::string_view kPodApiVersion = "v1";
// How long a write whose outcome is unknown (a timeout, a lost answer) may still be applied: the
// API server's request timeout (60 s by default), with a margin.
constexpr Duration kInFlightGrace = std::chrono::minutes(2);

bool hasCondition(const api::Pod& pod, std::string_view type, std::string_view reason) {
  const api::Condition* c = api::findCondition(pod.status.conditions, type);
  return c != nullptr && c->isTrue() && c->reason == reason;
}

std::string describe(const api::ResourceValues& from, const api::ResourceValues& to) {
  std::vector<std::string> parts;
  if (from.cpuRequest != to.cpuRequest && from.cpuRequest && to.cpuRequest) {
    parts.push_back(
        fmt::format("cpu {} -> {}", formatCpu(*from.cpuRequest), formatCpu(*to.cpuRequest)));
  }
  if (from.memoryRequest != to.memoryRequest && from.memoryRequest && to.memoryRequest) {
    parts.push_back(fmt::format("memory {} -> {}", formatMemory(*from.memoryRequest),
                                formatMemory(*to.memoryRequest)));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

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

// Whether every recorded container of `pod` has its recorded original resources in the spec.
bool atOriginals(const api::Pod& pod, const safety::ResizeRecord& record) {
  for (const auto& c : record.containers) {
    const api::Container* spec = pod.spec.findContainer(c.name);
    if (spec == nullptr || safety::resourceValuesOf(spec->resources) != c.original) return false;
  }
  return true;
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
  usage::UsageHistory tracker(*config, source.podAggregation.value_or(api::kDefaultPodAggregation),
                              window, source.queryStep.value_or(api::kDefaultQueryStep),
                              {strategy->get()});
  return std::make_unique<PolicyState>(generation, strategyName, std::move(*strategy),
                                       std::move(tracker));
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
      key_(stored.metadata.namespace_ + "/" + stored.metadata.name),
      status_(stored.status) {}

void PolicyPass::run() {
  targets_ = resolveTargets(snapshot_, policy_);

  // Usage: only the target pods' containers the policy does not exclude.
  std::map<std::string, api::WorkloadRef, std::less<>> podOwner;
  for (const TargetWorkload& t : targets_) {
    for (const api::Pod* pod : t.pods) podOwner[pod->metadata.name] = t.ref;
  }
  const metrics::Scope scope = scopeOf(policy_);
  const usage::WorkloadOf workloadOf =
      [&](const metrics::ContainerId& id) -> std::optional<api::WorkloadRef> {
    if (api::isExcludedContainer(policy_, id.container)) return std::nullopt;
    auto it = podOwner.find(id.pod);
    if (it == podOwner.end()) return std::nullopt;
    return it->second;
  };
  auto refreshed = state_.tracker.refresh(ctx_.metrics, scope, now_, workloadOf);
  metricsOk_ = refreshed.has_value();
  if (!refreshed) metricsError_ = refreshed.error().toString();
  advice_ =
      recommendTargets(targets_, state_.tracker, *state_.strategy, policy_, now_, &state_.advice);

  updateRecommendations();
  observeResizedPods();
  planAndExecute();
  writeStatus();
}

// ---- Safety

safety::SafetySignals PolicyPass::throttleSignals() {
  if (signals_) return *signals_;
  safety::SafetySignals signals;
  signals.throttleRatio.emplace();
  const Duration window = ctx_.options.observation.throttleWindow;
  const Time end = usage::floorToStep(now_, ctx_.options.observation.sampleInterval);
  const metrics::Scope scope = scopeOf(policy_);
  // A failing source leaves the map empty: the monitor then fails closed (no data, no "safe").
  if (auto ratios = ctx_.metrics.cpuThrottleRatio(scope, {end, end, window})) {
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

void PolicyPass::observeResizedPods() {
  const safety::SafetyMonitor monitor(safety::safetyOptionsFor(
      policy_.spec, ctx_.options.observation, ctx_.options.throttleThreshold));
  for (const TargetWorkload& target : targets_) {
    for (const api::Pod* pod : target.pods) {
      auto record = safety::decodeResizeRecord(*pod);
      if (!record || !*record) continue;  // malformed records are reported by the planner
      judge(target, *pod, **record, monitor);
    }
  }
}

void PolicyPass::judge(const TargetWorkload& target, const api::Pod& pod,
                       const safety::ResizeRecord& record, const safety::SafetyMonitor& monitor) {
  // The pod's spec is at the recorded originals: the resize never reached it (its request
  // failed, or the answer to the record's patch or to the resize was lost, and the record could
  // not be removed), or a restore was applied but the record could not be removed. There is
  // nothing to observe and nothing to revert: once no request of the resize can still be in
  // flight the record goes, and a later pass plans the pod afresh from the same originals.
  if (atOriginals(pod, record)) {
    if (now_ >= record.resizedAt + kInFlightGrace) clearRecord(pod);
    return;
  }
  // The kubelet refused the resize: a failed resize, restored without counting as a revert.
  const bool infeasible = hasCondition(pod, api::kPodResizePending, "Infeasible");
  const bool error = hasCondition(pod, api::kPodResizeInProgress, "Error");
  if (infeasible || error) {
    const std::string why = infeasible ? "Infeasible" : "Error";
    if (!restoreOriginals(pod, record)) return;
    clearRecord(pod);
    for (const auto& c : record.containers) {
      addHistory({.timestamp = now_,
                  .workload = target.ref.name,
                  .pod = pod.metadata.name,
                  .container = c.name,
                  .resource = api::ResizedResource::kCpuAndMemory,
                  .from = describe(c.target, c.original),
                  .to = {},
                  .method = api::ResizeMethod::kInPlace,
                  .result = api::ResizeResult::kFailed,
                  .reason = why});
    }
    (void)ctx_.events.record(referenceTo(kPodApiVersion, "Pod", pod.metadata), "Warning",
                             "ResizeFailed",
                             fmt::format("kubelet reported the resize {}; original resources "
                                         "restored",
                                         why));
    ctx_.operatorMetrics.resizes.inc(
        {policy_.metadata.namespace_, target.ref.name, "cpu+memory", "failed"});
    notify(ActionRecord::Kind::kResizeFailed, target.ref, pod.metadata.name, {}, why, {});
    return;
  }

  safety::SafetySignals signals;
  // Throttle data is only read when a verdict may need it (at or after the period's end).
  if (now_ >= record.resizedAt + monitor.options().observationPeriod) {
    const safety::SafetySignals all = throttleSignals();
    signals.throttleRatio.emplace();
    for (const auto& c : record.containers) {
      auto it = all.throttleRatio->find(pod.metadata.name + "/" + c.name);
      if (it != all.throttleRatio->end()) (*signals.throttleRatio)[c.name] = it->second;
    }
  }
  const safety::Verdict verdict = monitor.verdict(record, pod, signals, now_);
  using Kind = safety::Verdict::Kind;
  if (verdict.kind == Kind::kObserving) return;

  if (verdict.kind == Kind::kSafe) {
    clearRecord(pod);
    patchWorkload(target, safety::annotationsAfterSafe(now_));
    notify(ActionRecord::Kind::kSafe, target.ref, pod.metadata.name, {}, {}, verdict.message);
    return;
  }
  const std::string reason(safety::toString(*verdict.reason));
  if (verdict.kind == Kind::kViolationKept) {
    clearRecord(pod);
    (void)ctx_.events.record(referenceTo(kPodApiVersion, "Pod", pod.metadata), "Warning",
                             "SafetyViolation",
                             verdict.message + " (autoRevert is off: resize kept)");
    notify(ActionRecord::Kind::kViolationKept, target.ref, pod.metadata.name, verdict.container,
           reason, verdict.message);
    return;
  }
  // Revert to the originals read from the pod's own annotations.
  if (!restoreOriginals(pod, record)) return;  // retried next pass; the record stays
  clearRecord(pod);
  auto cooldown = safety::decodeCooldownState(workloadMetadata(target));
  patchWorkload(target,
                safety::annotationsAfterRevert(cooldown.value_or(safety::CooldownState{}), now_));
  markReverted(pod, record, reason);
  forgetSkips(target.ref.name, pod.metadata.name);
  (void)ctx_.events.record(referenceTo(kPodApiVersion, "Pod", pod.metadata), "Warning", "Reverted",
                           verdict.message);
  ctx_.operatorMetrics.reverts.inc({reason});
  ctx_.operatorMetrics.resizes.inc(
      {policy_.metadata.namespace_, target.ref.name, "cpu+memory", "reverted"});
  status_.lastResizeTime = now_;
  notify(ActionRecord::Kind::kReverted, target.ref, pod.metadata.name, verdict.container, reason,
         verdict.message);
}

bool PolicyPass::restoreOriginals(const api::Pod& pod, const safety::ResizeRecord& record) {
  std::vector<api::ContainerResize> containers;
  for (const auto& c : record.containers) {
    const api::Container* spec = pod.spec.findContainer(c.name);
    if (spec == nullptr) continue;
    containers.push_back(
        {.name = c.name, .resources = safety::withResourceValues(spec->resources, c.original)});
  }
  if (containers.empty()) return true;
  auto resized = ctx_.api.resizePod(pod.metadata.namespace_, pod.metadata.name, containers);
  if (resized) return true;
  // The request may have been applied with only its answer lost.
  if (resized.error().code == ErrorCode::kUnavailable &&
      resizeLanded(pod.metadata.namespace_, pod.metadata.name, containers)) {
    return true;
  }
  (void)ctx_.events.record(
      referenceTo(kPodApiVersion, "Pod", pod.metadata), "Warning", "ResizeFailed",
      "restoring the original resources failed: " + resized.error().toString() +
          "; the originals stay in the pod's annotations and the restore is retried");
  return false;
}

bool PolicyPass::resizeLanded(const std::string& ns, const std::string& name,
                              std::span<const api::ContainerResize> containers) {
  auto current = ctx_.api.getPod(ns, name);
  if (!current) return false;
  for (const api::ContainerResize& c : containers) {
    const api::Container* spec = current->spec.findContainer(c.name);
    if (spec == nullptr ||
        safety::resourceValuesOf(spec->resources) != safety::resourceValuesOf(c.resources)) {
      return false;
    }
  }
  return true;
}

void PolicyPass::clearRecord(const api::Pod& pod) {
  const api::AnnotationChanges changes = safety::clearResizeAnnotations(pod);
  if (changes.empty()) return;
  (void)ctx_.api.patchPodAnnotations(pod.metadata.namespace_, pod.metadata.name, changes, "");
}

void PolicyPass::patchWorkload(const TargetWorkload& target,
                               const api::AnnotationChanges& changes) {
  if (target.ref.kind == "Pod" || changes.empty()) return;
  // Remembered for the rest of the pass: the snapshot still shows the annotations as they were.
  api::AnnotationChanges& written = workloadChanges_[target.ref];
  for (const auto& [key, value] : changes) written[key] = value;
  (void)ctx_.api.patchWorkloadAnnotations(target.kind, target.ref.ns, target.ref.name, changes, "");
}

void PolicyPass::forgetSkips(const std::string& workload, const std::string& pod) {
  state_.lastSkip.erase(workload + "/");
  state_.lastSkip.erase(workload + "/" + pod);
}

void PolicyPass::markReverted(const api::Pod& pod, const safety::ResizeRecord& record,
                              std::string_view reason) {
  bool marked = false;
  for (auto& entry : status_.resizeHistory) {
    if (entry.pod == pod.metadata.name && entry.timestamp == record.resizedAt &&
        entry.result == api::ResizeResult::kApplied) {
      entry.result = api::ResizeResult::kReverted;
      entry.reason = std::string(reason);
      marked = true;
    }
  }
  if (marked) return;
  // The applied entry was trimmed from the bounded history: record the revert itself.
  for (const auto& c : record.containers) {
    addHistory({.timestamp = record.resizedAt,
                .workload = record.workload,
                .pod = pod.metadata.name,
                .container = c.name,
                .resource = api::ResizedResource::kCpuAndMemory,
                .from = describe(c.original, c.target),
                .to = {},
                .method = api::ResizeMethod::kInPlace,
                .result = api::ResizeResult::kReverted,
                .reason = std::string(reason)});
  }
}

// ---- Rollout

void PolicyPass::planAndExecute() {
  // Fail closed: without fresh metrics there is no resize this pass.
  if (!metricsOk_) return;
  rollout::RolloutInput input{.workloads = {},
                              .limitRanges = snapshot_.limitRanges(),
                              .quotas = snapshot_.quotas(),
                              .nodes = snapshot_.nodes(),
                              .hpas = snapshot_.hpas(),
                              .resizesInFlight = 0};
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const TargetWorkload& t = targets_[i];
    rollout::WorkloadInput w{.kind = t.kind,
                             .metadata = workloadMetadata(t),
                             .replicas = t.replicas,
                             .updatedReplicas = t.updatedReplicas,
                             .pods = t.pods,
                             .targets = {}};
    for (const RecommendedWorkload& a : advice_) {
      if (!(a.ref == t.ref)) continue;
      for (const RecommendedContainer& c : a.containers) {
        if (c.recommendation.enoughData) w.targets[c.name] = c.recommendation.resources;
      }
    }
    input.workloads.push_back(std::move(w));
  }
  const rollout::Plan plan =
      rollout::planRollout(policy_, input, now_, {.observation = ctx_.options.observation});
  resizeBlocked_ = plan.resizeBlocked;
  for (const rollout::Action& action : plan.actions) {
    std::visit(
        [&](const auto& a) {
          using T = std::decay_t<decltype(a)>;
          if constexpr (!std::is_same_v<T, rollout::DeferAction>) execute(a);
        },
        action);
  }
}

void PolicyPass::execute(const rollout::ResizeAction& action) {
  const TargetWorkload* target = targetOf(action.workload);
  const api::Pod* pod = snapshot_.pod(action.workload.namespace_, action.pod);
  if (target == nullptr || pod == nullptr) return;
  // 1. The originals first: a pod is never touched before its record is stored.
  auto annotated = ctx_.api.patchPodAnnotations(pod->metadata.namespace_, pod->metadata.name,
                                                action.annotations, pod->metadata.resourceVersion);
  if (!annotated) return;  // changed since the snapshot (or gone): next pass decides again
  // 2. The resize.
  auto resized =
      ctx_.api.resizePod(pod->metadata.namespace_, pod->metadata.name, action.containers);
  // After a transport failure the resize may have been applied with only its answer lost.
  const bool applied =
      resized || (resized.error().code == ErrorCode::kUnavailable &&
                  resizeLanded(pod->metadata.namespace_, pod->metadata.name, action.containers));
  if (!applied) {
    // A refused resize changed nothing: its record goes. After a transport failure the resize
    // may have been applied all the same (or may still be): the record stays, so that the
    // originals are never lost, and the safety pass observes the pod (or, once the period is
    // over and the pod is still at its originals, removes the record).
    if (resized.error().code != ErrorCode::kUnavailable) {
      api::AnnotationChanges undo;
      for (const auto& [key, value] : action.annotations) {
        if (value) undo[key] = std::nullopt;
      }
      (void)ctx_.api.patchPodAnnotations(pod->metadata.namespace_, pod->metadata.name, undo, "");
    }
    const std::string message = resized.error().toString();
    (void)ctx_.events.record(referenceTo(kPodApiVersion, "Pod", pod->metadata), "Warning",
                             "ResizeFailed", "resize failed: " + message);
    recordChanges(*target, action, api::ResizeResult::kFailed, message);
    notify(ActionRecord::Kind::kResizeFailed, target->ref, action.pod, {}, message, action.message);
    return;
  }
  // 3. Events, history, the workload's cooldown.
  (void)ctx_.events.record(referenceTo(kPodApiVersion, "Pod", pod->metadata), "Normal", "Resized",
                           action.message);
  recordChanges(*target, action, api::ResizeResult::kApplied, {});
  patchWorkload(*target, safety::annotationsAfterResize(now_));
  forgetSkips(target->ref.name, action.pod);
  status_.lastResizeTime = now_;
  ++resizesThisPass_;
  notify(ActionRecord::Kind::kResized, target->ref, action.pod, {}, {}, action.message);
}

void PolicyPass::recordChanges(const TargetWorkload& target, const rollout::ResizeAction& action,
                               api::ResizeResult result, const std::string& reason) {
  const std::string outcome = result == api::ResizeResult::kApplied ? "applied" : "failed";
  for (const auto& change : action.changes) {
    addHistory({.timestamp = now_,
                .workload = target.ref.name,
                .pod = action.pod,
                .container = change.container,
                .resource = change.resource,
                .from = change.from,
                .to = change.to,
                .method = api::ResizeMethod::kInPlace,
                .result = result,
                .reason = reason});
    ctx_.operatorMetrics.resizes.inc(
        {target.ref.ns, target.ref.name, std::string(api::toString(change.resource)), outcome});
  }
}

void PolicyPass::execute(const rollout::SkipAction& action) {
  const TargetWorkload* target = targetOf(action.workload);
  if (target == nullptr) return;
  const std::string reason(rollout::toString(action.reason));
  // A skip repeated pass after pass is recorded once: when it is the skip last recorded for the
  // same workload and pod (remembered, or the latest history entry of both), nothing new is
  // written.
  std::string& last = state_.lastSkip[target->ref.name + "/" + action.pod];
  if (last == reason) return;
  last = reason;
  for (auto it = status_.resizeHistory.rbegin(); it != status_.resizeHistory.rend(); ++it) {
    if (it->workload != target->ref.name || it->pod != action.pod) continue;
    if (it->result == api::ResizeResult::kSkipped && it->reason == reason) return;
    break;
  }
  addHistory({.timestamp = now_,
              .workload = target->ref.name,
              .pod = action.pod,
              .container = {},
              .resource = std::nullopt,
              .from = {},
              .to = {},
              .method = std::nullopt,
              .result = api::ResizeResult::kSkipped,
              .reason = reason});
  const api::Pod* pod =
      action.pod.empty() ? nullptr : snapshot_.pod(action.workload.namespace_, action.pod);
  const api::ObjectReference about = pod != nullptr
                                         ? referenceTo(kPodApiVersion, "Pod", pod->metadata)
                                         : workloadReference(*target);
  (void)ctx_.events.record(about, "Warning", "ResizeSkipped",
                           fmt::format("{}: {}", reason, action.message));
  ctx_.operatorMetrics.resizes.inc({target->ref.ns, target->ref.name, "cpu+memory", "skipped"});
  notify(ActionRecord::Kind::kResizeSkipped, target->ref, action.pod, {}, reason, action.message);
}

void PolicyPass::execute(const rollout::EventAction& action) {
  const TargetWorkload* target = targetOf(action.workload);
  if (target == nullptr) return;
  (void)ctx_.events.record(workloadReference(*target), action.type, action.reason, action.message);
}

// ---- Status

void PolicyPass::updateRecommendations() {
  const bool observe = policy_.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode) ==
                       api::UpdateMode::kObserve;
  status_.recommendations.clear();
  if (observe) return;  // Observe tracks data points only; no recommendations, no savings
  for (const RecommendedWorkload& a : advice_) {
    status_.recommendations.push_back(toStatus(a, policy_, now_));
    double cpuSaved = 0;
    double memorySaved = 0;
    std::size_t replicas = 0;
    for (const TargetWorkload& t : targets_) {
      if (t.ref == a.ref) replicas = t.pods.size();
    }
    for (const RecommendedContainer& c : a.containers) {
      const std::vector<std::string> labels{a.ref.ns, a.ref.name, c.name};
      const auto& r = c.recommendation.resources;
      if (!c.recommendation.enoughData) continue;
      if (r.cpuRequest) {
        ctx_.operatorMetrics.recommendationCpu.set(labels, toCores(*r.cpuRequest));
        if (c.current.cpuRequest) {
          cpuSaved += toCores(*c.current.cpuRequest) - toCores(*r.cpuRequest);
        }
      }
      if (r.memoryRequest) {
        ctx_.operatorMetrics.recommendationMemory.set(
            labels, static_cast<double>(r.memoryRequest->value()));
        if (c.current.memoryRequest) {
          memorySaved +=
              static_cast<double>(c.current.memoryRequest->value() - r.memoryRequest->value());
        }
      }
    }
    ctx_.operatorMetrics.savingsCpu.set({a.ref.ns, a.ref.name},
                                        cpuSaved * static_cast<double>(replicas));
    ctx_.operatorMetrics.savingsMemory.set({a.ref.ns, a.ref.name},
                                           memorySaved * static_cast<double>(replicas));
  }
}

void PolicyPass::addHistory(api::ResizeHistoryEntry entry) {
  status_.resizeHistory.push_back(std::move(entry));
  const std::size_t limit = std::max<std::size_t>(ctx_.options.historyLimit, 5);
  if (status_.resizeHistory.size() > limit) {
    status_.resizeHistory.erase(
        status_.resizeHistory.begin(),
        status_.resizeHistory.begin() +
            static_cast<std::ptrdiff_t>(status_.resizeHistory.size() - limit));
  }
}

void PolicyPass::writeStatus() {
  const std::int64_t generation = stored_.metadata.generation;
  // Ready: whether the policy could be evaluated this pass, and its data-point progress.
  const int minimum =
      policy_.spec.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  const bool observe = policy_.spec.updateStrategy.type.value_or(api::kDefaultUpdateMode) ==
                       api::UpdateMode::kObserve;
  std::int64_t fewest = -1;
  int containers = 0;
  for (const RecommendedWorkload& a : advice_) {
    for (const RecommendedContainer& c : a.containers) {
      fewest = fewest < 0 ? c.dataPoints : std::min(fewest, c.dataPoints);
      ++containers;
    }
  }
  api::Condition ready{.type = std::string(api::kConditionReady),
                       .status = "True",
                       .reason = "Reconciled",
                       .message = {},
                       .lastTransitionTime = std::nullopt,
                       .observedGeneration = generation};
  if (!metricsOk_) {
    ready.status = "False";
    ready.reason = "MetricsUnavailable";
    ready.message = "no resize while metrics are unavailable: " + metricsError_;
  } else if (targets_.empty()) {
    ready.status = "False";
    ready.reason = "NoTargets";
    ready.message = "spec.targetRef matches no workload";
  } else if (fewest >= 0 && fewest < minimum) {
    ready.reason = "CollectingData";
    ready.message = fmt::format("{} of {} data points (fewest over {} containers)", fewest, minimum,
                                containers);
  } else if (observe && fewest >= 0) {
    // Observe has no recommendations in the status: the condition is where progress shows.
    ready.message = fmt::format(
        "{} data points (fewest over {} containers, {} needed); Observe writes no recommendations",
        fewest, containers, minimum);
  } else {
    ready.message = fmt::format("{} workloads, {} containers", targets_.size(), containers);
  }
  safety::setCondition(status_.conditions, ready, now_);
  safety::updateDegradedCondition(status_.conditions, status_.resizeHistory, now_, generation);
  if (resizeBlocked_) {
    api::Condition blocked = *resizeBlocked_;
    blocked.observedGeneration = generation;
    safety::setCondition(status_.conditions, blocked, now_);
  } else {
    safety::removeCondition(status_.conditions, api::kConditionResizeBlocked);
  }
  status_.observedGeneration = generation;
  int reverts = 0;
  for (auto it = status_.resizeHistory.rbegin(); it != status_.resizeHistory.rend(); ++it) {
    if (!safety::isResizeOperation(*it)) continue;
    if (it->result != api::ResizeResult::kReverted) break;
    ++reverts;
  }
  status_.consecutiveReverts = reverts;
  if (status_ == stored_.status) return;

  api::AttunePolicy update = stored_;
  update.status = status_;
  auto written = ctx_.api.updateAttunePolicyStatus(update);
  if (!written && written.error().code == ErrorCode::kConflict) {
    // Someone else wrote the policy since it was read: the status is ours alone, so write it
    // over the latest version.
    if (auto latest =
            ctx_.api.getAttunePolicy(stored_.metadata.namespace_, stored_.metadata.name)) {
      latest->status = status_;
      (void)ctx_.api.updateAttunePolicyStatus(*latest);
    }
  }
}

void PolicyPass::reportInvalid(api::ClusterApi& api, const api::AttunePolicy& stored,
                               const Error& error, Time now) {
  api::AttunePolicy update = stored;
  safety::setCondition(update.status.conditions,
                       {.type = std::string(api::kConditionReady),
                        .status = "False",
                        .reason = "InvalidSpec",
                        .message = error.toString(),
                        .lastTransitionTime = std::nullopt,
                        .observedGeneration = stored.metadata.generation},
                       now);
  if (update.status == stored.status) return;
  (void)api.updateAttunePolicyStatus(update);
}

void PolicyPass::notify(ActionRecord::Kind kind, const api::WorkloadRef& workload, std::string pod,
                        std::string container, std::string reason, std::string detail) {
  if (!ctx_.observer) return;
  ctx_.observer({.kind = kind,
                 .time = now_,
                 .policy = key_,
                 .workload = workload,
                 .pod = std::move(pod),
                 .container = std::move(container),
                 .reason = std::move(reason),
                 .detail = std::move(detail)});
}

const TargetWorkload* PolicyPass::targetOf(const rollout::WorkloadId& id) const {
  for (const TargetWorkload& t : targets_) {
    if (t.kind == id.kind && t.ref.ns == id.namespace_ && t.ref.name == id.name) return &t;
  }
  return nullptr;
}

api::ObjectMeta PolicyPass::workloadMetadata(const TargetWorkload& target) const {
  api::ObjectMeta meta = *target.metadata;
  auto it = workloadChanges_.find(target.ref);
  if (it == workloadChanges_.end()) return meta;
  for (const auto& [key, value] : it->second) {
    if (value) {
      meta.annotations[key] = *value;
    } else {
      meta.annotations.erase(key);
    }
  }
  return meta;
}

api::ObjectReference PolicyPass::workloadReference(const TargetWorkload& target) const {
  const bool batch =
      target.kind == api::WorkloadKind::kJob || target.kind == api::WorkloadKind::kCronJob;
  return referenceTo(batch ? "batch/v1" : "apps/v1", target.ref.kind, *target.metadata);
}

}  // namespace attune::controller
