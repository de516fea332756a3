#include "rollout/planner.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "api/policy/policy_defaults.h"
#include "core/quantity.h"
#include "rollout/batch_workloads.h"
#include "rollout/freshness.h"
#include "rollout/increase_budget.h"
#include "rollout/prechecks.h"
#include "rollout/recreate_fallback.h"
#include "rollout/resize_schedule.h"
#include "safety/cooldown.h"
#include "safety/resize_record.h"

namespace attune::rollout {
namespace {

constexpr std::string_view kResizeDeferred = "Deferred";
constexpr std::string_view kResizeInfeasible = "Infeasible";

bool running(const api::Pod& pod) {
  return pod.status.phase == "Running" && !pod.metadata.deletionTimestamp;
}

bool resizeOutstanding(const api::Pod& pod) {
  return api::findCondition(pod.status.conditions, api::kPodResizePending) != nullptr ||
         api::findCondition(pod.status.conditions, api::kPodResizeInProgress) != nullptr;
}

bool notReady(const api::Pod& pod) {
  const api::Condition* ready = api::findCondition(pod.status.conditions, "Ready");
  return ready != nullptr && !ready->isTrue();
}

template <typename Amount, typename Format>
std::string text(const std::optional<Amount>& v, Format format) {
  return v ? format(*v) : std::string();
}

// The history-level changes of one container (cpu, then memory) and its part of the message.
void describeChange(const ContainerChange& c, std::vector<ResourceChange>& out,
                    std::string& message) {
  auto one = [&](api::ResizedResource resource, std::string from, std::string to,
                 std::string limitFrom, std::string limitTo) {
    if (from == to && limitFrom == limitTo) return;
    const std::string_view name = api::toString(resource);
    message += message.empty() ? "" : ", ";
    message += c.name + ": " + std::string(name) + " " + from + " -> " + to;
    if (limitFrom != limitTo) message += " (limit " + limitFrom + " -> " + limitTo + ")";
    out.push_back({c.name, resource, std::move(from), std::move(to), std::move(limitFrom),
                   std::move(limitTo)});
  };
  const auto cpu = [](Millicores m) { return formatCpu(m); };
  const auto memory = [](Bytes b) { return formatMemory(b); };
  one(api::ResizedResource::kCpu, text(c.current.cpuRequest, cpu), text(c.target.cpuRequest, cpu),
      text(c.current.cpuLimit, cpu), text(c.target.cpuLimit, cpu));
  one(api::ResizedResource::kMemory, text(c.current.memoryRequest, memory),
      text(c.target.memoryRequest, memory), text(c.current.memoryLimit, memory),
      text(c.target.memoryLimit, memory));
}

// One planning pass; holds what is shared across workloads.
class Pass {
 public:
  Pass(const api::AttunePolicy& policy, const RolloutInput& input, Time now,
       const RolloutOptions& options)
      : policy_(policy),
        input_(input),
        now_(now),
        ledger_(input.quotas),
        increaseBudget_(policy.spec.updateStrategy.maxTotalCpuIncrease,
                        policy.spec.updateStrategy.maxTotalMemoryIncrease),
        period_(safety::observationPeriod(policy.spec, options.observation)) {
    const api::UpdateStrategy& u = policy.spec.updateStrategy;
    mode_ = u.type.value_or(api::kDefaultUpdateMode);
    cooldown_ = u.cooldown.value_or(api::kDefaultCooldown);
  }

  Plan run() {
    const api::UpdateStrategy& u = policy_.spec.updateStrategy;
    if (policy_.spec.paused.value_or(false) || mode_ == api::UpdateMode::kObserve ||
        mode_ == api::UpdateMode::kRecommend) {
      return std::move(plan_);
    }
    tally();
    checkSchedule();
    // Under InPlaceOnly a resize the kubelet has held Deferred past kDeferredResizeTimeout is
    // parked on its node (the kubelet applies it once the node has room): it stays under
    // observation and in the ResizeBlocked condition but no longer holds a slot, or parked
    // resizes would stop every other workload of the policy for as long as their nodes stay
    // full.
    const int inFlight = std::max(input_.resizesInFlight, plan_.underObservation - parked_);
    slots_ = std::max(
        0,
        std::max(1, u.maxConcurrentResizes.value_or(api::kDefaultMaxConcurrentResizes)) - inFlight);
    if (mode_ == api::UpdateMode::kOneShot) slots_ = std::min(slots_, 1);
    for (const WorkloadInput& w : input_.workloads) planWorkload(w);
    return std::move(plan_);
  }

 private:
  struct PodView {
    const api::Pod* pod;
    std::vector<ContainerChange> changes;
  };

  void requeue(std::optional<Duration> after) { plan_.requeue(after); }
  void skip(const WorkloadInput& w, std::string pod, SkipReason reason, std::string message,
            std::optional<Duration> after = std::nullopt) {
    requeue(after);
    plan_.actions.emplace_back(
        SkipAction{w.id(), std::move(pod), reason, std::move(message), after});
  }
  void defer(const WorkloadInput& w, std::string pod, DeferReason reason, std::string message,
             std::optional<Duration> after = std::nullopt) {
    requeue(after);
    plan_.actions.emplace_back(
        DeferAction{w.id(), std::move(pod), reason, std::move(message), after});
  }

  // Pods under observation, and the ResizeBlocked condition from the kubelet's verdicts.
  void tally() {
    std::vector<std::string> deferred;
    std::vector<std::string> infeasible;
    const bool recreates =
        policy_.spec.updateStrategy.resizeMethod.value_or(api::ResizeFallback::kInPlaceOnly) ==
        api::ResizeFallback::kInPlaceOrRecreate;
    for (const WorkloadInput& w : input_.workloads) {
      for (const api::Pod* pod : w.pods) {
        if (!running(*pod)) continue;
        if (safety::hasResizeRecord(*pod)) {
          ++plan_.underObservation;
          // Under InPlaceOrRecreate the recreate fallback evicts it instead.
          const auto stalled = stalledResize(*pod, now_);
          if (stalled && stalled->cause == "deferred-timeout" && !recreates) ++parked_;
        }
        if (const auto* c = api::findCondition(pod->status.conditions, api::kPodResizePending)) {
          if (c->reason == kResizeDeferred) deferred.push_back(pod->metadata.name);
          if (c->reason == kResizeInfeasible) infeasible.push_back(pod->metadata.name);
        }
      }
    }
    if (deferred.empty() && infeasible.empty()) return;
    auto sample = [](const std::vector<std::string>& names) {
      std::string s;
      for (std::size_t i = 0; i < names.size() && i < 5; ++i) s += (i ? ", " : "") + names[i];
      return s;
    };
    api::Condition c;
    c.type = std::string(api::kConditionResizeBlocked);
    c.status = "True";
    c.observedGeneration = policy_.metadata.generation;
    if (!deferred.empty()) {
      c.message = std::to_string(deferred.size()) +
                  " pod(s) have a Deferred resize, retried once the node has room (e.g. " +
                  sample(deferred) + ")";
    }
    if (!infeasible.empty()) {
      c.message += std::string(c.message.empty() ? "" : "; ") + std::to_string(infeasible.size()) +
                   " pod(s) have an Infeasible resize on their node (e.g. " + sample(infeasible) +
                   ")";
    }
    c.reason = deferred.empty()     ? "PodsInfeasible"
               : infeasible.empty() ? "PodsDeferred"
                                    : "PodsDeferredAndInfeasible";
    plan_.resizeBlocked = std::move(c);
  }

  // updateStrategy.schedule: closed now (or its zone unknown) → scheduleClosed_ and the
  // ScheduleBlocked condition.
  void checkSchedule() {
    ScheduleGate gate = gateSchedule(policy_, input_.scheduleZone, input_.scheduleZoneError, now_);
    scheduleClosed_ = gate.blocked.has_value();
    opensAt_ = gate.opensAt;
    plan_.scheduleBlocked = std::move(gate.blocked);
  }

  // What `pod` would change: to the workload's targets, or to its own (node optimisation).
  std::vector<ContainerChange> changesOf(const WorkloadInput& w, const api::Pod& pod) const {
    if (!w.perPodTargets) return podChanges(pod, w.targets, policy_);
    auto it = w.podTargets.find(pod.metadata.name);
    if (it == w.podTargets.end()) return {};
    return podChanges(pod, it->second, policy_, LimitRule::kNodeOptimisation);
  }

  void planWorkload(const WorkloadInput& w) {
    if (optedOut(w.metadata)) {
      skip(w, "", SkipReason::kOptOut,
           "workload " + w.metadata.name + " is annotated attune.io/skip: \"true\"");
      return;
    }
    if (w.rollingOut()) {
      defer(w, "", DeferReason::kActiveRollout,
            "workload " + w.metadata.name + " is rolling out (" +
                std::to_string(w.updatedReplicas) + " of " + std::to_string(w.replicas) +
                " replicas updated)");
      return;
    }
    if (w.perPodTargets ? w.podTargets.empty() : w.targets.empty()) return;
    if (isBatchWorkload(w.kind)) {
      skip(w, "", SkipReason::kBatchWorkload, batchWorkloadMessage(w.kind, w.metadata.name));
      return;
    }
    if (auto stale = staleness(w.lastDataTime, now_, freshnessBound(policy_.spec.metricsSource))) {
      skip(w, "", SkipReason::kStaleRecommendation,
           "the recommendation for " + w.metadata.name + " is stale: " + *stale);
      return;
    }
    if (std::string msg = hpaConflict(w.id(), input_.hpas); !msg.empty()) {
      plan_.actions.emplace_back(
          EventAction{w.id(), "Warning", std::string(kHpaConflictReason), std::move(msg)});
    }
    auto state = safety::decodeCooldownState(w.metadata);
    if (!state) {
      skip(w, "", SkipReason::kInvalidAnnotation, state.error().toString());
      return;
    }

    std::vector<PodView> pods;
    for (const api::Pod* pod : w.pods) {
      if (running(*pod)) pods.push_back({pod, changesOf(w, *pod)});
    }
    std::sort(pods.begin(), pods.end(), [](const PodView& a, const PodView& b) {
      return a.pod->metadata.name < b.pod->metadata.name;
    });
    int atTarget = 0;
    int observing = 0;
    int needing = 0;
    std::optional<Time> observationEnds;
    for (const PodView& p : pods) {
      const bool recorded = safety::hasResizeRecord(*p.pod);
      // Under per-pod targets a pod without any is not "at target": it has none.
      if (p.changes.empty() && (!w.perPodTargets || w.podTargets.contains(p.pod->metadata.name))) {
        ++atTarget;
      }
      if (recorded) {
        ++observing;
        if (auto r = safety::decodeResizeRecord(*p.pod); r && *r) {
          const Time ends = (*r)->resizedAt + period_;
          if (!observationEnds || ends < *observationEnds) observationEnds = ends;
        }
      } else if (!p.changes.empty()) {
        ++needing;
      }
    }

    if (needing > 0 && scheduleClosed_) {
      std::optional<Duration> after;
      if (opensAt_) after = *opensAt_ - now_;
      defer(w, "", DeferReason::kOutsideSchedule,
            std::to_string(needing) + " pod(s) of " + w.metadata.name +
                " wait for the resize schedule" +
                (opensAt_ ? "; the next window opens at " + formatRfc3339(*opensAt_) : ""),
            after);
      return;
    }

    // Cooldown spaces new targets; one target's rollout continues while nothing is reverted.
    const bool progressing = atTarget > 0 && state->consecutiveReverts == 0;
    if (needing > 0 && !progressing) {
      const Duration left = safety::remainingCooldown(*state, cooldown_, now_);
      if (left > Duration::zero()) {
        skip(w, "", SkipReason::kCooldown,
             "cooldown of " +
                 formatDuration(safety::effectiveCooldown(cooldown_, state->consecutiveReverts)) +
                 " (" + std::to_string(safety::cooldownMultiplier(state->consecutiveReverts)) +
                 "x after " + std::to_string(state->consecutiveReverts) +
                 " consecutive reverts) since the last resize; " + formatDuration(left) + " left",
             left);
        return;
      }
    }

    // The number of resizes this workload may still get in this pass (beyond the slots).
    int budget = static_cast<int>(pods.size());
    bool canary = false;
    const auto& c = policy_.spec.updateStrategy.canary;
    const int pct =
        std::clamp(c && c->percentage ? *c->percentage : api::kDefaultCanaryPercentage, 0, 100);
    const int canaries = std::max(1, (pct * static_cast<int>(pods.size()) + 99) / 100);
    // Canary mode: how far the workload's canary got, once this workload's actions are planned.
    const auto reportCanary = [&](CanaryPhase phase) {
      if (mode_ != api::UpdateMode::kCanary) return;
      CanaryProgress progress{.workload = w.id(), .phase = phase, .pods = {}};
      if (phase == CanaryPhase::kInProgress) {
        std::set<std::string> resized;
        for (const ResizeAction* r : plan_.all<ResizeAction>()) {
          if (r->workload == w.id() && r->canary) resized.insert(r->pod);
        }
        for (const PodView& p : pods) {
          const std::string& name = p.pod->metadata.name;
          if (std::ssize(progress.pods) == canaries) break;
          if (p.changes.empty() || safety::hasResizeRecord(*p.pod) || resized.contains(name)) {
            progress.pods.push_back(name);
          }
        }
      }
      plan_.canaries.push_back(std::move(progress));
    };
    if (mode_ == api::UpdateMode::kCanary && needing == 0) {
      reportCanary(atTarget > canaries || observing == 0 ? CanaryPhase::kFullRollout
                                                         : CanaryPhase::kInProgress);
    } else if (mode_ == api::UpdateMode::kCanary) {
      if (atTarget < canaries) {
        budget = canaries - atTarget;
        canary = true;
      } else if (atTarget > canaries) {
        // Promoted already: the rest follow as in Auto.
      } else if (observing > 0) {
        std::optional<Duration> after;
        if (observationEnds && *observationEnds > now_) after = *observationEnds - now_;
        defer(w, "", DeferReason::kCanaryObserving,
              std::to_string(observing) + " canary pod(s) of " + w.metadata.name +
                  " are still under observation",
              after);
        reportCanary(CanaryPhase::kInProgress);
        return;
      } else if (!(c && c->autoPromote.value_or(false))) {
        defer(w, "", DeferReason::kCanaryNotPromoted,
              "the canary pods of " + w.metadata.name +
                  " were declared safe; canary.autoPromote is false, so the remaining " +
                  std::to_string(needing) + " pod(s) wait for promotion");
        reportCanary(CanaryPhase::kInProgress);
        return;
      } else {
        std::optional<Time> safeAt = state->lastSafeTime;
        if (!safeAt && state->lastResizeTime) safeAt = *state->lastResizeTime + period_;
        const Duration wait = c && c->observationPeriod ? *c->observationPeriod : period_;
        if (safeAt && now_ < *safeAt + wait) {
          defer(w, "", DeferReason::kCanaryWaiting,
                "the canary pods of " + w.metadata.name + " were declared safe at " +
                    formatRfc3339(*safeAt) + "; the rest follow after " + formatDuration(wait),
                *safeAt + wait - now_);
          reportCanary(CanaryPhase::kInProgress);
          return;
        }
      }
    }

    for (const PodView& p : pods) planPod(w, p, budget, canary);
    if (mode_ == api::UpdateMode::kCanary && needing > 0) {
      reportCanary(canary ? CanaryPhase::kInProgress : CanaryPhase::kFullRollout);
    }
  }

  void planPod(const WorkloadInput& w, const PodView& p, int& budget, bool canary) {
    const api::Pod& pod = *p.pod;
    const std::string& name = pod.metadata.name;
    if (safety::hasResizeRecord(pod)) {
      if (auto r = safety::decodeResizeRecord(pod); !r) {
        skip(w, name, SkipReason::kInvalidAnnotation,
             "pod " + name + " carries a malformed resize record: " + r.error().toString());
      }
      return;
    }
    if (optedOut(pod.metadata)) {
      skip(w, name, SkipReason::kOptOut, "pod " + name + " is annotated attune.io/skip: \"true\"");
      return;
    }
    if (resizeOutstanding(pod)) {
      defer(w, name, DeferReason::kResizePending,
            "the kubelet has not finished an earlier resize of pod " + name);
      return;
    }
    if (notReady(pod)) {
      defer(w, name, DeferReason::kPodNotReady, "pod " + name + " is not Ready");
      return;
    }
    if (p.changes.empty()) {
      ++plan_.atTarget;
      return;
    }
    if (slots_ == 0 || budget == 0) {
      ++plan_.waiting;
      return;
    }
    const api::PodSpec after = resizedSpec(pod, p.changes);
    if (auto msg = checkQos(pod, after)) {
      skip(w, name, SkipReason::kQosChange, *msg);
      return;
    }
    if (auto msg = checkLimitRanges(pod, p.changes, input_.limitRanges)) {
      skip(w, name, SkipReason::kLimitRange, *msg);
      return;
    }
    const PodDelta delta = podDelta(p.changes);
    if (auto msg = ledger_.check(pod.metadata.namespace_, delta)) {
      skip(w, name, SkipReason::kResourceQuota, *msg);
      return;
    }
    if (auto msg = checkNodeCapacity(pod, after, nodeNamed(pod.spec.nodeName))) {
      skip(w, name, SkipReason::kNodeCapacity, *msg);
      return;
    }
    if (auto s = checkMemoryLimitDecrease(pod, p.changes, input_.serverVersion, input_.memoryUsage,
                                          policy_.spec.memory.decreaseUsageMarginPercent.value_or(
                                              api::kDefaultDecreaseUsageMarginPercent))) {
      skip(w, name, s->reason, s->message);
      return;
    }
    const RequestIncrease increase = requestIncrease(p.changes);
    if (auto msg = increaseBudget_.check(increase)) {
      skip(w, name, SkipReason::kIncreaseBudget, "pod " + name + ": " + *msg);
      return;
    }

    ResizeAction resize;
    resize.workload = w.id();
    resize.pod = name;
    resize.podResourceVersion = pod.metadata.resourceVersion;
    resize.workloadAnnotations = safety::annotationsAfterResize(now_);
    resize.canary = canary;
    resize.record.resizedAt = now_;
    resize.record.workload = w.metadata.name;
    resize.record.policy = policy_.metadata.name;
    for (const ContainerChange& c : p.changes) {
      const api::ContainerStatus* status = pod.status.findContainerStatus(c.name);
      resize.record.containers.push_back(
          {c.name, c.current, c.target, status ? status->restartCount : 0});
      const api::Container* spec = pod.spec.findContainer(c.name);
      resize.containers.push_back(
          pod.spec.resizeOf(*spec, safety::withResourceValues(spec->resources, c.target)));
      describeChange(c, resize.changes, resize.message);
    }
    auto annotations = safety::replaceResizeAnnotations(pod, resize.record);
    if (!annotations) {
      skip(w, name, SkipReason::kInvalidAnnotation,
           "cannot record the resize of pod " + name + ": " + annotations.error().toString());
      return;
    }
    resize.annotations = std::move(*annotations);
    ledger_.take(pod.metadata.namespace_, delta);
    increaseBudget_.take(increase);
    --slots_;
    --budget;
    plan_.actions.emplace_back(std::move(resize));
  }

  const api::Node* nodeNamed(std::string_view name) const {
    if (input_.nodeNamed) return input_.nodeNamed(name);
    for (const api::Node& n : input_.nodes) {
      if (n.metadata.name == name) return &n;
    }
    return nullptr;
  }

  const api::AttunePolicy& policy_;
  const RolloutInput& input_;
  Time now_;
  QuotaLedger ledger_;
  IncreaseBudget increaseBudget_;
  Duration period_;
  api::UpdateMode mode_ = api::kDefaultUpdateMode;
  Duration cooldown_ = api::kDefaultCooldown;
  int slots_ = 0;
  int parked_ = 0;               // resizes Deferred past kDeferredResizeTimeout (no slot held)
  bool scheduleClosed_ = false;  // updateStrategy.schedule keeps new resizes back
  std::optional<Time> opensAt_;  // when its next window opens
  Plan plan_;
};

}  // namespace

Plan planRollout(const api::AttunePolicy& policy, const RolloutInput& input, Time now,
                 const RolloutOptions& options) {
  return Pass(policy, input, now, options).run();
}

}  // namespace attune::rollout
