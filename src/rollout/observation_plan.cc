#include "rollout/observation_plan.h"

#include <string>
#include <utility>
#include <vector>

#include "safety/cooldown.h"

namespace attune::rollout {
namespace {

bool hasCondition(const api::Pod& pod, std::string_view type, std::string_view reason) {
  const api::Condition* c = api::findCondition(pod.status.conditions, type);
  return c != nullptr && c->isTrue() && c->reason == reason;
}

std::string_view refusalOf(const api::Pod& pod) {
  if (hasCondition(pod, api::kPodResizePending, "Infeasible")) return "Infeasible";
  if (hasCondition(pod, api::kPodResizeInProgress, "Error")) return "Error";
  return {};
}

bool atOriginals(const api::Pod& pod, const safety::ResizeRecord& record) {
  for (const auto& c : record.containers) {
    const api::Container* spec = pod.spec.findContainer(c.name);
    if (spec == nullptr || safety::resourceValuesOf(spec->resources) != c.original) return false;
  }
  return true;
}

// The recorded originals of the containers the pod still has, as a resize request.
std::vector<api::ContainerResize> originalsOf(const api::Pod& pod,
                                              const safety::ResizeRecord& record) {
  std::vector<api::ContainerResize> containers;
  for (const auto& c : record.containers) {
    const api::Container* spec = pod.spec.findContainer(c.name);
    if (spec == nullptr) continue;
    containers.push_back(
        pod.spec.resizeOf(*spec, safety::withResourceValues(spec->resources, c.original)));
  }
  return containers;
}

}  // namespace

RecordState recordState(const api::Pod& pod, const safety::ResizeRecord& record) {
  if (atOriginals(pod, record)) return RecordState::kAtOriginals;
  if (!refusalOf(pod).empty()) return RecordState::kRefused;
  return RecordState::kToJudge;
}

void applyAnnotationChanges(api::ObjectMeta& meta, const api::AnnotationChanges& changes) {
  for (const auto& [key, value] : changes) {
    if (value) {
      meta.annotations[key] = *value;
    } else {
      meta.annotations.erase(key);
    }
  }
}

void planObservations(std::span<const ObservedPod> pods,
                      std::map<api::WorkloadRef, api::ObjectMeta>& workloads, Time now,
                      Plan& plan) {
  using Outcome = EndObservationAction::Outcome;
  for (const ObservedPod& observed : pods) {
    const api::Pod& pod = *observed.pod;
    const safety::ResizeRecord& record = observed.record;
    api::ObjectMeta& workload = workloads[observed.workload];
    const auto end = [&](Outcome outcome, api::AnnotationChanges workloadAnnotations,
                         const safety::Verdict* verdict) {
      applyAnnotationChanges(workload, workloadAnnotations);
      EndObservationAction action{.workload = observed.workload,
                                  .pod = pod.metadata.name,
                                  .outcome = outcome,
                                  .clearRecord = safety::clearResizeAnnotations(pod),
                                  .workloadAnnotations = std::move(workloadAnnotations),
                                  .reason = std::nullopt,
                                  .container = {},
                                  .message = {},
                                  .guardrail = {}};
      if (verdict != nullptr) {
        action.reason = verdict->reason;
        action.container = verdict->container;
        action.message = verdict->message;
        action.guardrail = verdict->guardrail;
      }
      plan.actions.emplace_back(std::move(action));
    };

    switch (recordState(pod, record)) {
      case RecordState::kAtOriginals:
        // Nothing to observe and nothing to revert: once no request of the resize can still be
        // in flight the record goes, and a later pass plans the pod afresh.
        if (now >= record.resizedAt + kInFlightGrace) {
          end(Outcome::kNeverApplied, {}, nullptr);
        } else {
          plan.requeue(record.resizedAt + kInFlightGrace - now);
        }
        continue;
      case RecordState::kRefused:
        plan.actions.emplace_back(RestoreAction{.workload = observed.workload,
                                                .pod = pod.metadata.name,
                                                .record = record,
                                                .restore = originalsOf(pod, record),
                                                .clearRecord = safety::clearResizeAnnotations(pod),
                                                .refusal = std::string(refusalOf(pod))});
        continue;
      case RecordState::kToJudge:
        break;
    }
    if (!observed.verdict) continue;
    const safety::Verdict& verdict = *observed.verdict;
    using Kind = safety::Verdict::Kind;
    switch (verdict.kind) {
      case Kind::kObserving:
        if (verdict.observationEnds > now) plan.requeue(verdict.observationEnds - now);
        break;
      case Kind::kSafe:
        end(Outcome::kSafe, safety::annotationsAfterSafe(now), &verdict);
        break;
      case Kind::kViolationKept:
        end(Outcome::kViolationKept, {}, &verdict);
        break;
      case Kind::kRevert: {
        const auto cooldown = safety::decodeCooldownState(workload);
        api::AnnotationChanges after =
            safety::annotationsAfterRevert(cooldown.value_or(safety::CooldownState{}), now);
        applyAnnotationChanges(workload, after);
        plan.actions.emplace_back(
            RevertAction{.workload = observed.workload,
                         .pod = pod.metadata.name,
                         .record = record,
                         .restore = originalsOf(pod, record),
                         .clearRecord = safety::clearResizeAnnotations(pod),
                         .workloadAnnotations = std::move(after),
                         .reason = verdict.reason.value_or(safety::RevertReason::kOomKill),
                         .container = verdict.container,
                         .message = verdict.message,
                         .guardrail = verdict.guardrail});
        break;
      }
    }
  }
}

}  // namespace attune::rollout
