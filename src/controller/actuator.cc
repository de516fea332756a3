#include "controller/actuator.h"

#include <type_traits>
#include <variant>

#include "safety/resize_record.h"

namespace attune::controller {
namespace {

ActionOutcome failed(const Error& error, bool recordCleared = false) {
  return {.status = ActionOutcome::Status::kFailed,
          .error = error.toString(),
          .recordCleared = recordCleared};
}

template <typename T>
constexpr bool kBookedOnly =
    std::is_same_v<T, rollout::SkipAction> || std::is_same_v<T, rollout::DeferAction> ||
    std::is_same_v<T, rollout::EventAction>;

}  // namespace

bool writes(const rollout::Action& action) {
  return std::visit([](const auto& a) { return !kBookedOnly<std::decay_t<decltype(a)>>; }, action);
}

ActionOutcome Actuator::carryOut(const rollout::Action& action) {
  return std::visit(
      [&](const auto& a) -> ActionOutcome {
        using T = std::decay_t<decltype(a)>;
        if constexpr (kBookedOnly<T>) {
          return {};  // nothing to write: the recorder books them
        } else {
          ActionOutcome outcome = carryOut(a);
          if constexpr (std::is_same_v<T, rollout::ResizeAction> ||
                        std::is_same_v<T, rollout::RevertAction> ||
                        std::is_same_v<T, rollout::RestoreAction>) {
            if (!outcome.applied()) unsettled_.insert(a.workload);
          }
          return outcome;
        }
      },
      action);
}

ActionOutcome Actuator::carryOut(const rollout::HpaRetuneAction& action) {
  // After the pods: the target computed for requests the pods do not have is not written; the
  // next pass computes it from what they do request.
  if (unsettled_.contains(action.workload)) {
    return {.status = ActionOutcome::Status::kNotAttempted,
            .error = "a pod action of the workload was not applied",
            .recordCleared = false};
  }
  auto written = api_.updateHpa(action.hpa);
  if (written) return {};
  if (written.error().code == ErrorCode::kConflict ||
      written.error().code == ErrorCode::kNotFound) {
    // Changed since the snapshot (or gone): the next pass decides again.
    return {.status = ActionOutcome::Status::kNotAttempted,
            .error = written.error().toString(),
            .recordCleared = false};
  }
  return failed(written.error());
}

ActionOutcome Actuator::carryOut(const rollout::RevertAction& action) {
  ActionOutcome outcome = restore(action.workload, action.pod, action.restore, action.clearRecord);
  if (outcome.applied()) patchWorkload(action.workload, action.workloadAnnotations);
  return outcome;
}

ActionOutcome Actuator::carryOut(const rollout::RestoreAction& action) {
  return restore(action.workload, action.pod, action.restore, action.clearRecord);
}

ActionOutcome Actuator::carryOut(const rollout::EndObservationAction& action) {
  patchPod(action.workload, action.pod, action.clearRecord);
  patchWorkload(action.workload, action.workloadAnnotations);
  return {};
}

std::optional<ActionOutcome> Actuator::annotateThenResize(
    const api::WorkloadRef& workload, const std::string& pod,
    const api::AnnotationChanges& annotations, const std::string& resourceVersion,
    std::span<const api::ContainerResize> containers) {
  auto annotated = api_.patchPodAnnotations(workload.ns, pod, annotations, resourceVersion);
  if (!annotated) {
    // Changed since the snapshot (or gone): the next pass decides again.
    return ActionOutcome{.status = ActionOutcome::Status::kNotAttempted,
                         .error = annotated.error().toString(),
                         .recordCleared = false};
  }
  auto resized = resize(workload.ns, pod, containers);
  if (resized) return std::nullopt;
  // After a transport failure the resize may have been applied all the same (or may still be):
  // the annotations stay, so that what it replaced is never lost. A refusal changed nothing:
  // the annotations it set go.
  if (resized.error().code == ErrorCode::kUnavailable) return failed(resized.error());
  api::AnnotationChanges undo;
  for (const auto& [key, value] : annotations) {
    if (value) undo[key] = std::nullopt;
  }
  patchPod(workload, pod, undo);
  return failed(resized.error(), /*recordCleared=*/true);
}

ActionOutcome Actuator::carryOut(const rollout::ResizeAction& action) {
  // 1. The originals first: a pod is never touched before its record is stored. 2. The resize.
  // (With the record kept after a transport failure, the observation planner watches the pod,
  // or, once no request can still land and the pod is at its originals, removes the record.)
  if (auto notDone = annotateThenResize(action.workload, action.pod, action.annotations,
                                        action.podResourceVersion, action.containers)) {
    return *notDone;
  }
  // 3. The workload's cooldown.
  patchWorkload(action.workload, action.workloadAnnotations);
  return {};
}

ActionOutcome Actuator::carryOut(const rollout::StartupBoostAction& action) {
  // What the boost replaces is stored first, so that its end never depends on memory; after a
  // transport failure the boost may have landed and ends as planned.
  return annotateThenResize(action.workload, action.pod, action.annotations,
                            action.podResourceVersion, action.containers)
      .value_or(ActionOutcome{});
}

ActionOutcome Actuator::carryOut(const rollout::EndStartupBoostAction& action) {
  if (!action.containers.empty()) {
    // The annotations stay until the CPU is back: a failed end is planned again next pass.
    auto resized = resize(action.workload.ns, action.pod, action.containers);
    if (!resized) {
      if (resized.error().code == ErrorCode::kNotFound) {
        return {.status = ActionOutcome::Status::kNotAttempted,
                .error = resized.error().toString(),
                .recordCleared = false};
      }
      return failed(resized.error());
    }
  }
  patchPod(action.workload, action.pod, action.clearBoost);
  return {};
}

ActionOutcome Actuator::carryOut(const rollout::EvictAction& action) {
  const api::WorkloadRef& w = action.workload;
  if (!action.workloadAnnotations.empty()) {
    const auto kind = w.workloadKind();
    if (!kind) {
      return failed(
          Error{ErrorCode::kUnsupported, "no workload to record the eviction's cause on", ""});
    }
    // What the eviction is for is stored first: a pod is never evicted before it is.
    auto written =
        api_.patchWorkloadAnnotations(*kind, w.ns, w.name, action.workloadAnnotations, "");
    if (!written) return failed(written.error());
  }
  api::Eviction eviction;
  eviction.metadata.namespace_ = w.ns;
  eviction.metadata.name = action.pod;
  eviction.deleteOptions = api::DeleteOptions{.preconditionUid = action.podUid};
  auto evicted = api_.evictPod(eviction);
  if (evicted) return {};
  const ErrorCode code = evicted.error().code;
  if (code == ErrorCode::kNotFound || code == ErrorCode::kConflict) {
    // Gone or replaced since the snapshot: nothing to evict.
    return {.status = ActionOutcome::Status::kNotAttempted, .error = evicted.error().toString()};
  }
  ActionOutcome outcome = failed(evicted.error());
  outcome.refusedByBudget = code == ErrorCode::kDisruptionBudget;
  return outcome;
}

Result<void> Actuator::resize(const std::string& ns, const std::string& pod,
                              std::span<const api::ContainerResize> containers) {
  auto resized = api_.resizePod(ns, pod, containers);
  if (resized) return {};
  if (resized.error().code != ErrorCode::kUnavailable) return std::unexpected(resized.error());
  // After a transport failure the request may have been applied with only its answer lost.
  auto current = api_.getPod(ns, pod);
  if (!current) return std::unexpected(resized.error());
  for (const api::ContainerResize& c : containers) {
    const api::Container* spec = current->spec.findContainer(c.name);
    if (spec == nullptr ||
        safety::resourceValuesOf(spec->resources) != safety::resourceValuesOf(c.resources)) {
      return std::unexpected(resized.error());
    }
  }
  return {};
}

ActionOutcome Actuator::restore(const api::WorkloadRef& workload, const std::string& pod,
                                std::span<const api::ContainerResize> originals,
                                const api::AnnotationChanges& clearRecord) {
  if (!originals.empty()) {
    auto restored = resize(workload.ns, pod, originals);
    if (!restored) return failed(restored.error());  // retried next pass; the record stays
  }
  patchPod(workload, pod, clearRecord);
  return {};
}

void Actuator::patchPod(const api::WorkloadRef& workload, const std::string& pod,
                        const api::AnnotationChanges& changes) {
  if (changes.empty()) return;
  (void)api_.patchPodAnnotations(workload.ns, pod, changes, "");
}

void Actuator::patchWorkload(const api::WorkloadRef& workload,
                             const api::AnnotationChanges& changes) {
  const auto kind = workload.workloadKind();
  if (changes.empty() || !kind) return;  // a bare pod has no workload to annotate
  (void)api_.patchWorkloadAnnotations(*kind, workload.ns, workload.name, changes, "");
}

}  // namespace attune::controller
