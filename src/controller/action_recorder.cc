#include "controller/action_recorder.h"

#include <fmt/format.h>

#include <algorithm>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "core/quantity.h"

namespace attune::controller {
namespace {

constexpr std::string_view kPodApiVersion = "v1";

// "cpu 500m -> 250m, memory 512Mi -> 384Mi": the requests that differ.
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

// A history entry about a whole pod's containers (cpu and memory at once).
api::ResizeHistoryEntry podEntry(Time timestamp, std::string workload, std::string pod,
                                 std::string container, std::string from, api::ResizeResult result,
                                 std::string reason) {
  return {.timestamp = timestamp,
          .workload = std::move(workload),
          .pod = std::move(pod),
          .container = std::move(container),
          .resource = api::ResizedResource::kCpuAndMemory,
          .from = std::move(from),
          .to = {},
          .method = api::ResizeMethod::kInPlace,
          .result = result,
          .reason = std::move(reason)};
}

}  // namespace

void ActionRecorder::record(const rollout::Action& action, const ActionOutcome& outcome) {
  if (outcome.status == ActionOutcome::Status::kNotAttempted) return;
  std::visit([&](const auto& a) { record(a, outcome); }, action);
}

void ActionRecorder::record(const rollout::RevertAction& action, const ActionOutcome& outcome) {
  if (!outcome.applied()) {
    restoreFailed(action.workload, action.pod, outcome);
    return;
  }
  const std::string reason = safety::revertReasonLabel(action.reason, action.guardrail);
  markReverted(action.pod, action.record, reason);
  forgetSkips(action.workload.name, action.pod);
  event(action.workload, action.pod, "Warning", kRevertedReason, action.message);
  ctx_.metrics.reverts.inc({action.workload.ns, action.workload.name, reason});
  countRecordedResources(action.workload, action.record, "reverted");
  status_.lastResizeTime = ctx_.now;
  notify(ActionRecord::Kind::kReverted, action.workload, action.pod, action.container, reason,
         action.message);
}

void ActionRecorder::record(const rollout::RestoreAction& action, const ActionOutcome& outcome) {
  if (!outcome.applied()) {
    restoreFailed(action.workload, action.pod, outcome);
    return;
  }
  for (const auto& c : action.record.containers) {
    addHistory(podEntry(ctx_.now, action.workload.name, action.pod, c.name,
                        describe(c.target, c.original), api::ResizeResult::kFailed,
                        action.refusal));
  }
  // The public operator's InfeasibleBlocked for a resize the node cannot hold; ResizeFailed for
  // the kubelet's other refusals.
  event(action.workload, action.pod, "Warning",
        action.refusal == "Infeasible" ? kInfeasibleBlockedReason : kResizeFailedReason,
        fmt::format("kubelet reported the resize {}; original resources restored", action.refusal));
  countRecordedResources(action.workload, action.record, "failed");
  notify(ActionRecord::Kind::kResizeFailed, action.workload, action.pod, {}, action.refusal, {});
}

void ActionRecorder::record(const rollout::EndObservationAction& action,
                            const ActionOutcome& /*outcome*/) {
  using Outcome = rollout::EndObservationAction::Outcome;
  switch (action.outcome) {
    case Outcome::kNeverApplied:
      return;
    case Outcome::kSafe:
      notify(ActionRecord::Kind::kSafe, action.workload, action.pod, {}, {}, action.message);
      return;
    case Outcome::kViolationKept:
      event(action.workload, action.pod, "Warning", kSafetyViolationReason,
            action.message + " (autoRevert is off: resize kept)");
      notify(ActionRecord::Kind::kViolationKept, action.workload, action.pod, action.container,
             action.reason ? safety::revertReasonLabel(*action.reason, action.guardrail)
                           : std::string(),
             action.message);
      return;
  }
}

void ActionRecorder::record(const rollout::ResizeAction& action, const ActionOutcome& outcome) {
  const bool applied = outcome.applied();
  const api::ResizeResult result =
      applied ? api::ResizeResult::kSuccess : api::ResizeResult::kFailed;
  for (const auto& change : action.changes) {
    addHistory({.timestamp = ctx_.now,
                .workload = action.workload.name,
                .pod = action.pod,
                .container = change.container,
                .resource = change.resource,
                .from = change.from,
                .to = change.to,
                .method = api::ResizeMethod::kInPlace,
                .result = result,
                .reason = applied ? std::string() : outcome.error});
    countResize(action.workload, api::toString(change.resource), applied ? "success" : "failed");
  }
  if (!applied) {
    event(action.workload, action.pod, "Warning", kResizeFailedReason,
          "resize failed: " + outcome.error);
    notify(ActionRecord::Kind::kResizeFailed, action.workload, action.pod, {}, outcome.error,
           action.message);
    return;
  }
  event(action.workload, action.pod, "Normal", kResizedReason, action.message);
  forgetSkips(action.workload.name, action.pod);
  status_.lastResizeTime = ctx_.now;
  notify(ActionRecord::Kind::kResized, action.workload, action.pod, {}, {}, action.message);
}

void ActionRecorder::record(const rollout::SkipAction& action, const ActionOutcome& /*outcome*/) {
  const std::string reason(rollout::toString(action.reason));
  // A skip repeated pass after pass is recorded once: when it is the skip last recorded for the
  // same workload and pod (remembered, or the latest history entry of both), nothing new is
  // written.
  std::string& last = skips_[action.workload.name + "/" + action.pod];
  if (last == reason) return;
  last = reason;
  for (auto it = status_.resizeHistory.rbegin(); it != status_.resizeHistory.rend(); ++it) {
    if (it->workload != action.workload.name || it->pod != action.pod) continue;
    if (it->result == api::ResizeResult::kSkipped && it->reason == reason) return;
    break;
  }
  addHistory({.timestamp = ctx_.now,
              .workload = action.workload.name,
              .pod = action.pod,
              .container = {},
              .resource = std::nullopt,
              .from = {},
              .to = {},
              .method = std::nullopt,
              .result = api::ResizeResult::kSkipped,
              .reason = reason});
  event(action.workload, action.pod, "Warning", kResizeSkippedReason,
        fmt::format("{}: {}", reason, action.message));
  ctx_.metrics.resizeSkips.inc({action.workload.ns, action.workload.name, reason});
  notify(ActionRecord::Kind::kResizeSkipped, action.workload, action.pod, {}, reason,
         action.message);
}

void ActionRecorder::record(const rollout::DeferAction& /*action*/,
                            const ActionOutcome& /*outcome*/) {
  // A deferral is only a requeue time (Plan::requeueAfter).
}

void ActionRecorder::record(const rollout::EventAction& action, const ActionOutcome& /*outcome*/) {
  event(action.workload, {}, action.type, action.reason, action.message);
}

void ActionRecorder::record(const rollout::StartupBoostAction& action,
                            const ActionOutcome& outcome) {
  const api::WorkloadRef& w = action.workload;
  if (!outcome.applied()) {
    ctx_.metrics.startupBoosts.inc({w.ns, w.name, "failed"});
    event(w, action.pod, "Warning", kResizeFailedReason, "startup boost failed: " + outcome.error);
    return;
  }
  ctx_.metrics.startupBoosts.inc({w.ns, w.name, "applied"});
  event(w, action.pod, "Normal", rollout::kStartupBoostReason, action.message);
  notify(ActionRecord::Kind::kStartupBoost, w, action.pod, {}, {}, action.message);
}

void ActionRecorder::record(const rollout::EndStartupBoostAction& action,
                            const ActionOutcome& outcome) {
  const api::WorkloadRef& w = action.workload;
  if (!outcome.applied()) {
    ctx_.metrics.startupBoosts.inc({w.ns, w.name, "failed"});
    event(w, action.pod, "Warning", kResizeFailedReason,
          "the end of the startup boost failed: " + outcome.error);
    return;
  }
  ctx_.metrics.startupBoosts.inc({w.ns, w.name, "expired"});
  event(w, action.pod, "Normal", rollout::kStartupBoostEndedReason, action.message);
  notify(ActionRecord::Kind::kStartupBoostEnded, w, action.pod, {}, {}, action.message);
}

void ActionRecorder::record(const rollout::EvictAction& action, const ActionOutcome& outcome) {
  if (outcome.status == ActionOutcome::Status::kNotAttempted) return;
  const api::WorkloadRef& w = action.workload;
  const bool evicted = outcome.applied();
  const std::string_view result =
      evicted ? "success" : (outcome.refusedByBudget ? "denied" : "failed");
  ctx_.metrics.evictions.inc({w.ns, w.name, std::string(result), action.cause});
  if (evicted) {
    event(w, action.pod, "Normal", rollout::kEvictedReason, action.message);
    notify(ActionRecord::Kind::kEvicted, w, action.pod, action.container, action.cause,
           action.message);
  } else {
    event(w, action.pod, "Warning",
          outcome.refusedByBudget ? rollout::kEvictionBlockedReason : kEvictionFailedReason,
          fmt::format("{} not evicted: {}", action.pod, outcome.error));
  }
  addHistory({.timestamp = ctx_.now,
              .workload = w.name,
              .pod = action.pod,
              .container = action.container,
              .resource = std::nullopt,
              .from = {},
              .to = {},
              .method = api::ResizeMethod::kEviction,
              .result = evicted ? api::ResizeResult::kEvicted : api::ResizeResult::kFailed,
              .reason = action.cause});
}

void ActionRecorder::record(const rollout::HpaRetuneAction& action, const ActionOutcome& outcome) {
  const api::ObjectMeta& hpa = action.hpa.metadata;
  const api::ObjectReference ref = referenceTo("autoscaling/v2", "HorizontalPodAutoscaler", hpa);
  if (!outcome.applied()) {
    (void)ctx_.events.record(
        ref, "Warning", kHpaRetuneFailedReason,
        "writing the HPA failed: " + outcome.error + "; the next pass computes its targets again");
    ctx_.metrics.hpaRetunes.inc({hpa.namespace_, hpa.name, "failed"});
    return;
  }
  (void)ctx_.events.record(ref, action.clamped ? "Warning" : "Normal", rollout::kHpaRetunedReason,
                           action.message);
  ctx_.metrics.hpaRetunes.inc({hpa.namespace_, hpa.name, action.restore ? "restored" : "retuned"});
  for (const rollout::HpaTargetChange& c : action.changes) {
    addHistory({.timestamp = ctx_.now,
                .workload = action.workload.name,
                .pod = {},
                .container = {},
                .resource = c.resource,
                .from = std::to_string(c.from) + "%",
                .to = std::to_string(c.to) + "%",
                .method = std::nullopt,
                .result = api::ResizeResult::kSuccess,
                .reason = fmt::format("{}: HorizontalPodAutoscaler {} {} utilization target{}",
                                      rollout::kHpaRetunedReason, hpa.name, c.metric,
                                      action.restore ? " restored" : "")});
  }
}

void ActionRecorder::restoreFailed(const api::WorkloadRef& workload, const std::string& pod,
                                   const ActionOutcome& outcome) {
  event(workload, pod, "Warning", kResizeFailedReason,
        "restoring the original resources failed: " + outcome.error +
            "; the originals stay in the pod's annotations and the restore is retried");
}

void ActionRecorder::markReverted(const std::string& pod, const safety::ResizeRecord& record,
                                  std::string_view reason) {
  bool marked = false;
  for (auto& entry : status_.resizeHistory) {
    if (entry.pod == pod && entry.timestamp == record.resizedAt &&
        (entry.result == api::ResizeResult::kSuccess ||
         entry.result == api::ResizeResult::kApplied)) {
      entry.result = api::ResizeResult::kReverted;
      entry.reason = std::string(reason);
      marked = true;
    }
  }
  if (marked) return;
  for (const auto& c : record.containers) {
    addHistory(podEntry(record.resizedAt, record.workload, pod, c.name,
                        describe(c.original, c.target), api::ResizeResult::kReverted,
                        std::string(reason)));
  }
}

void ActionRecorder::addHistory(api::ResizeHistoryEntry entry) {
  auto& history = status_.resizeHistory;
  history.push_back(std::move(entry));
  const std::size_t limit = std::max<std::size_t>(ctx_.historyLimit, 5);
  if (history.size() > limit) {
    history.erase(history.begin(),
                  history.begin() + static_cast<std::ptrdiff_t>(history.size() - limit));
  }
}

void ActionRecorder::countResize(const api::WorkloadRef& workload, std::string_view resource,
                                 std::string_view result) {
  ctx_.metrics.resizes.inc(
      {workload.ns, workload.name, std::string(resource), std::string(result)});
}

void ActionRecorder::countRecordedResources(const api::WorkloadRef& workload,
                                            const safety::ResizeRecord& record,
                                            std::string_view result) {
  // attune_resize_total counts container resources, as a resize does (one per container and
  // resource changed), so that reverted / success and failed / success are shares of like units.
  for (const safety::ContainerRecord& c : record.containers) {
    if (c.original.cpuRequest != c.target.cpuRequest || c.original.cpuLimit != c.target.cpuLimit) {
      countResize(workload, "cpu", result);
    }
    if (c.original.memoryRequest != c.target.memoryRequest ||
        c.original.memoryLimit != c.target.memoryLimit) {
      countResize(workload, "memory", result);
    }
  }
}

void ActionRecorder::event(const api::WorkloadRef& workload, const std::string& pod,
                           std::string_view type, std::string_view reason,
                           std::string_view message) {
  const api::Pod* p = pod.empty() ? nullptr : ctx_.snapshot.pod(workload.ns, pod);
  if (p != nullptr) {
    (void)ctx_.events.record(referenceTo(kPodApiVersion, "Pod", p->metadata), type, reason,
                             message);
    return;
  }
  for (const TargetWorkload& t : ctx_.targets) {
    if (t.ref != workload) continue;
    (void)ctx_.events.record(referenceToWorkload(t.ref, *t.metadata), type, reason, message);
    return;
  }
}

void ActionRecorder::notify(ActionRecord::Kind kind, const api::WorkloadRef& workload,
                            std::string pod, std::string container, std::string reason,
                            std::string detail) {
  if (!ctx_.observer) return;
  ctx_.observer({.kind = kind,
                 .time = ctx_.now,
                 .policy = ctx_.policy,
                 .workload = workload,
                 .pod = std::move(pod),
                 .container = std::move(container),
                 .reason = std::move(reason),
                 .detail = std::move(detail)});
}

void ActionRecorder::forgetSkips(const std::string& workload, const std::string& pod) {
  skips_.erase(workload + "/");
  skips_.erase(workload + "/" + pod);
}

}  // namespace attune::controller
