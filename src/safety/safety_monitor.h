// The safety monitor: the verdict on one resized pod, from its resize record, its current state
// and the CPU throttle signal. Pure: the pod and the signals are values, `now` is an input.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/pod.h"
#include "api/policy/attune_policy.h"
#include "api/policy/policy_defaults.h"
#include "core/time.h"
#include "safety/observation.h"
#include "safety/resize_record.h"
#include "safety/slo_guardrails.h"

namespace attune::safety {

// Why a resize is (or would be) reverted. The names are the `reason` label of
// attune_reverts_total and the reason of Reverted history entries.
enum class RevertReason { kOomKill, kRestart, kThrottle, kNotReady, kSlo };
// "oomkill", "restart", "throttle", "notready", "slo" (a guardrail's revert is reported as
// "slo:<name>": revertReasonLabel).
std::string_view toString(RevertReason reason);
// toString(reason), or "slo:<guardrail>" for kSlo.
std::string revertReasonLabel(RevertReason reason, std::string_view guardrail);

inline constexpr std::string_view kOomKilledReason = "OOMKilled";
inline constexpr double kDefaultThrottleThreshold = 0.5;

struct SafetyOptions {
  bool autoRevert = api::kDefaultAutoRevert;
  // The resize is reverted when a resized container's throttle ratio exceeds this (strictly).
  double throttleThreshold = kDefaultThrottleThreshold;
  // The effective observation period (observationPeriod()).
  // The default: the default period raised to the default throttleWindow + sampleInterval.
  Duration observationPeriod = safety::observationPeriod(api::AttunePolicySpec{});
  // How long after the period ends the monitor waits for a missing throttle value before it
  // fails closed (see SafetyMonitor::verdict).
  Duration throttleDataGrace = std::chrono::minutes(5);
};

// The options a policy implies: autoRevert (default true) and observationPeriod(spec, obs).
SafetyOptions safetyOptionsFor(const api::AttunePolicySpec& spec,
                               const ObservationOptions& obs = {},
                               double throttleThreshold = kDefaultThrottleThreshold);

// What the metrics backend says about the resized pod, gathered by the caller at `now`.
struct SafetySignals {
  // Per container: the CPU throttle ratio in [0, 1] over the throttle window ending at `now`
  // (ObservationOptions::throttleWindow). nullopt when no throttle source is configured: then
  // the throttle check is not made at all. A container missing from a present map has no data.
  std::optional<std::map<std::string, double, std::less<>>> throttleRatio;
  // The SLO guardrails due for the pod (slo_guardrails.h, dueGuardrails), with the values read at
  // `now`; a reading without a value fails open.
  std::vector<GuardrailReading> guardrails;
};

struct Verdict {
  enum class Kind {
    kObserving,      // keep observing; check again no later than `observationEnds`
    kSafe,           // the period ended without a violation: keep the resize, end observation
    kRevert,         // a violation: restore the original resources now, end observation
    kViolationKept,  // a violation, but autoRevert is false: end observation, keep the resize
                     // and report the violation (the consecutive-revert count is unchanged)
  };
  Kind kind = Kind::kObserving;
  std::optional<RevertReason> reason;  // set for kRevert and kViolationKept
  std::string container;  // the container that violated; empty for notready and for kSafe
  std::string guardrail;  // the guardrail breached (reason kSlo)
  std::string message;    // one human-readable sentence, for events and logs
  Time observationEnds;   // resizedAt + observationPeriod
};

// The verdict on a resized pod. Checks, in this order, over the record's containers that the
// pod still reports a status for:
//  Early critical (at any time, also during the period):
//   1. oomkill — the container's state.terminated or lastState.terminated has reason OOMKilled
//      and finishedAt strictly after resizedAt;
//   2. restart — restartCount >= the recorded restart count + 2 (one restart, e.g. the one a
//      RestartContainer resize policy causes, is tolerated).
//  SLO guardrails (at any time, once the resize has been applied, see below):
//   slo — a reading in signals.guardrails breaches its threshold (slo_guardrails.h, breaches);
//      readings without a value fail open;
//  At the end of the period (now >= observationEnds), only when the resize has been applied —
//  while the pod reports PodResizePending or PodResizeInProgress, or a recorded container's
//  status resources differ from the record's target, the verdict stays kObserving ("not yet
//  applied"); a container that reports no status resources counts as applied:
//   3. throttle — signals.throttleRatio is present and a recorded container whose spec has a CPU
//      limit (only a CPU limit can throttle) has a ratio > throttleThreshold. Missing data fails
//      closed: a container with a CPU limit but no ratio keeps the verdict kObserving until
//      observationEnds + throttleDataGrace, then counts as a throttle violation ("no throttle
//      data") — a resize is never declared safe on a check that could not run;
//   4. notready — the pod's Ready condition is present and not "True".
//  Otherwise kSafe at the end, kObserving before it.
// A resize the kubelet refuses (PodResizePending/Infeasible, PodResizeInProgress/Error) stays
// kObserving here; the caller restores the originals for it (it is a failed resize, not a
// revert).
// A violation gives kRevert when options.autoRevert, else kViolationKept.
class SafetyMonitor {
 public:
  explicit SafetyMonitor(SafetyOptions options) : options_(options) {}

  Verdict verdict(const ResizeRecord& record, const api::Pod& pod, const SafetySignals& signals,
                  Time now) const;

  const SafetyOptions& options() const { return options_; }

 private:
  SafetyOptions options_;
};

}  // namespace attune::safety
