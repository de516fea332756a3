#include "safety/safety_monitor.h"

#include <sstream>

#include "api/k8s/meta.h"

namespace attune::safety {
namespace {

using Kind = Verdict::Kind;

// The OOM kill after `since` recorded in `state`, if any.
std::optional<Time> oomKillAfter(const api::ContainerState& state, Time since) {
  if (!state.terminated || state.terminated->reason != kOomKilledReason) return std::nullopt;
  const auto& finished = state.terminated->finishedAt;
  if (!finished || *finished <= since) return std::nullopt;
  return finished;
}

bool resizeOutstanding(const api::Pod& pod, const ResizeRecord& record) {
  if (api::findCondition(pod.status.conditions, api::kPodResizePending) != nullptr ||
      api::findCondition(pod.status.conditions, api::kPodResizeInProgress) != nullptr) {
    return true;
  }
  for (const ContainerRecord& c : record.containers) {
    const api::ContainerStatus* s = pod.status.findContainerStatus(c.name);
    if (s == nullptr || !s->resources) continue;
    if (resourceValuesOf(*s->resources) != c.target) return true;
  }
  return false;
}

bool hasCpuLimit(const api::Pod& pod, std::string_view container) {
  const api::Container* c = pod.spec.findContainer(container);
  return c != nullptr && c->resources.limits.cpu && !c->resources.limits.cpu->isZero();
}

std::string percent(double ratio) {
  std::ostringstream out;
  out.precision(3);
  out << ratio * 100 << "%";
  return out.str();
}

}  // namespace

std::string_view toString(RevertReason reason) {
  switch (reason) {
    case RevertReason::kOomKill:
      return "oomkill";
    case RevertReason::kRestart:
      return "restart";
    case RevertReason::kThrottle:
      return "throttle";
    case RevertReason::kNotReady:
      return "notready";
    case RevertReason::kSlo:
      return "slo";
  }
  return "unknown";
}

std::string revertReasonLabel(RevertReason reason, std::string_view guardrail) {
  if (reason == RevertReason::kSlo) return sloRevertReason(guardrail);
  return std::string(toString(reason));
}

SafetyOptions safetyOptionsFor(const api::AttunePolicySpec& spec, const ObservationOptions& obs,
                               double throttleThreshold) {
  SafetyOptions o;
  o.autoRevert = spec.updateStrategy.autoRevert.value_or(api::kDefaultAutoRevert);
  o.throttleThreshold = throttleThreshold;
  o.observationPeriod = observationPeriod(spec, obs);
  o.throttleDataGrace = obs.throttleWindow;
  return o;
}

Verdict SafetyMonitor::verdict(const ResizeRecord& record, const api::Pod& pod,
                               const SafetySignals& signals, Time now) const {
  Verdict v;
  v.observationEnds = record.resizedAt + options_.observationPeriod;
  auto violation = [&](RevertReason reason, std::string container, std::string message) {
    v.kind = options_.autoRevert ? Kind::kRevert : Kind::kViolationKept;
    v.reason = reason;
    v.container = std::move(container);
    v.message = std::move(message);
    return v;
  };

  // Early critical checks.
  for (const ContainerRecord& c : record.containers) {
    const api::ContainerStatus* s = pod.status.findContainerStatus(c.name);
    if (s == nullptr) continue;
    auto oom = oomKillAfter(s->state, record.resizedAt);
    if (!oom) oom = oomKillAfter(s->lastState, record.resizedAt);
    if (oom) {
      return violation(RevertReason::kOomKill, c.name,
                       "container " + c.name + " was OOMKilled at " + formatRfc3339(*oom) +
                           ", after the resize at " + formatRfc3339(record.resizedAt));
    }
    if (static_cast<std::int64_t>(s->restartCount) >=
        static_cast<std::int64_t>(c.restartCount) + 2) {
      return violation(
          RevertReason::kRestart, c.name,
          "container " + c.name + " restarted " + std::to_string(s->restartCount - c.restartCount) +
              " times since the resize (restartCount " + std::to_string(c.restartCount) + " -> " +
              std::to_string(s->restartCount) + ")");
    }
  }

  // SLO guardrails: judged on the resized pod only.
  if (const GuardrailReading* breach = firstBreach(signals.guardrails);
      breach != nullptr && !resizeOutstanding(pod, record)) {
    std::ostringstream text;
    text << "SLO guardrail " << breach->name << " breached: " << *breach->value << " is "
         << (breach->comparison == api::SloComparison::kAbove ? "above" : "below")
         << " the threshold " << breach->threshold;
    violation(RevertReason::kSlo, "", text.str());
    v.guardrail = breach->name;
    return v;
  }

  if (now < v.observationEnds) {
    v.message = "observing until " + formatRfc3339(v.observationEnds);
    return v;
  }
  if (resizeOutstanding(pod, record)) {
    v.message = "the observation period has ended but the kubelet has not applied the resize yet";
    return v;
  }

  // End-of-period checks.
  if (signals.throttleRatio) {
    for (const ContainerRecord& c : record.containers) {
      if (pod.status.findContainerStatus(c.name) == nullptr || !hasCpuLimit(pod, c.name)) continue;
      auto it = signals.throttleRatio->find(c.name);
      if (it == signals.throttleRatio->end()) {
        if (now < v.observationEnds + options_.throttleDataGrace) {
          v.message = "waiting for CPU throttle data of container " + c.name;
          return v;
        }
        return violation(RevertReason::kThrottle, c.name,
                         "no CPU throttle data for container " + c.name + " within " +
                             formatDuration(options_.throttleDataGrace) +
                             " after the observation period; failing closed");
      }
      if (it->second > options_.throttleThreshold) {
        return violation(RevertReason::kThrottle, c.name,
                         "container " + c.name + " is CPU-throttled " + percent(it->second) +
                             " of periods (threshold " + percent(options_.throttleThreshold) + ")");
      }
    }
  }
  if (const api::Condition* ready = api::findCondition(pod.status.conditions, "Ready");
      ready != nullptr && !ready->isTrue()) {
    return violation(RevertReason::kNotReady, "",
                     "pod is not Ready at the end of the observation period" +
                         (ready->reason.empty() ? std::string() : " (" + ready->reason + ")"));
  }
  v.kind = Kind::kSafe;
  v.message = "no violation during the " + formatDuration(options_.observationPeriod) +
              " observation period";
  return v;
}

}  // namespace attune::safety
