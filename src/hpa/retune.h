// HPA target retune: when Attune changes the requests of pods that a HorizontalPodAutoscaler
// scales by utilization, the HPA's utilization target is moved so that its absolute scaling
// point stays where it was. Pure: values in, the HPA to write out.
//
// The rule. An HPA computes utilization as sum(usage) / sum(requests) over the target's pods
// (a Resource metric: over all of a pod's spec.containers; a ContainerResource metric: that
// container only), so it scales out once the average usage per pod exceeds
// target × (average request per pod). To keep that point, for every cpu or memory metric with
// a `Utilization` target:
//     target = original target × (original request per pod × pods) / sum(planned requests)
// where the original target and the original request per pod (the average over the pods when
// Attune first retuned this HPA) are remembered on the HPA (kOriginalTargetsAnnotation), and
// the planned requests are what the pods will request once the pass's plan is carried out
// (canary plans resize some pods only: the sum over all pods counts). Rounded to the nearest
// percent, then clamped to [kMinTarget, kMaxTarget]. A clamp that moves the scaling point by
// more than kClampTolerance (relative) is reported (MetricRetune::clamped); the target is
// written all the same, as the nearest the HPA allows.
//
// Idempotent: the target is a function of the pods' requests and the remembered originals, so
// a pass that ran again (after a crash between the resizes and the HPA write, or after a
// revert) computes the same HPA. When no original is remembered yet, the originals are taken
// from the pods' resize records (a crash between a resize and the first HPA write) and, for a
// pod without one, from its current requests; the original target is the HPA's current one.
// A target the user changed since Attune wrote it (it differs from the remembered `retuned`
// value) becomes the new original, at the pods' current requests.
//
// Needs no retune (reported in MetricRetune-free notes): AverageValue or Value targets (an
// absolute amount per pod), Pods, Object and External metrics (not relative to requests).
// Opt-in: only HPAs annotated attune.io/auto-tune: "true" (kAutoTuneAnnotation, as the public
// operator spells it) are retuned; the caller checks autoTuneEnabled().
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/hpa.h"
#include "api/k8s/resource_values.h"
#include "api/k8s/workload_ref.h"

namespace attune::hpa {

// attune.io/auto-tune: "true" on the HPA turns the retune on (opt-in).
inline constexpr std::string_view kAutoTuneAnnotation = "attune.io/auto-tune";
// The originals, as JSON: {"policy":"ns/name","metrics":{"<key>":{"target":60,
// "podRequest":"500m","retuned":120}}}; the key is "Resource/<resource>" or
// "ContainerResource/<container>/<resource>" (see metricKey).
inline constexpr std::string_view kOriginalTargetsAnnotation = "attune.io/hpa-original-targets";

// Bounds of a retuned utilization target, in percent. Above 100 % is reachable for pods whose
// limit is above their request; below 10 % the HPA reacts to noise.
inline constexpr std::int32_t kMinTarget = 10;
inline constexpr std::int32_t kMaxTarget = 500;
// A clamp that moves the scaling point by more than this (relative) is reported.
inline constexpr double kClampTolerance = 0.1;

// Whether the HPA is annotated attune.io/auto-tune: "true".
bool autoTuneEnabled(const api::ObjectMeta& hpa);
// Whether the HPA's scaleTargetRef names `workload` (same namespace, kind and name).
bool scales(const api::HorizontalPodAutoscaler& hpa, const api::WorkloadRef& workload);
// The key of a cpu or memory Resource / ContainerResource metric in kOriginalTargetsAnnotation;
// empty for any other metric.
std::string metricKey(const api::MetricSpec& metric);
// The policy ("namespace/name") recorded in kOriginalTargetsAnnotation; nullopt when the HPA
// has no such annotation (or it does not parse).
std::optional<std::string> retunedBy(const api::ObjectMeta& hpa);

using ContainerRequests = std::map<std::string, api::ResourceValues, std::less<>>;

// One running pod of the HPA's target.
struct PodRequests {
  // Its requests at the original sizing: the originals of its resize record for the recorded
  // containers, its spec for the others (before this pass's plan).
  ContainerRequests original;
  // Its requests once this pass's plan is carried out (a resize's targets, a revert's
  // originals, else its spec).
  ContainerRequests planned;
};

struct RetuneInput {
  std::vector<PodRequests> pods;
  std::string policy;    // "namespace/name" of the policy whose plan this is
  bool restore = false;  // put the original targets back and remove the annotation
};

// One target that moves.
struct MetricRetune {
  std::size_t index = 0;  // into spec.metrics
  std::string metric;     // "cpu", "memory of container app"
  std::int32_t from = 0;  // the current target (percent)
  std::int32_t to = 0;    // the new target (percent)
  std::int32_t original = 0;
  bool clamped = false;  // clamped, and the scaling point moves by more than kClampTolerance
  bool operator==(const MetricRetune&) const = default;
};

struct Retune {
  api::HorizontalPodAutoscaler hpa;  // the input HPA with the new targets and annotation
  std::vector<MetricRetune> changes;
  // Metrics left alone, each with why ("metric 2 (Pods): not relative to requests").
  std::vector<std::string> notRetuned;
  bool changed = false;  // `hpa` differs from the input (a target or the annotation)
  bool clamped = false;  // some change is clamped
  std::string message;   // the event's sentence
};

// The HPA as it should be after the plan described by `input`. Pods without the request a
// metric divides by (or without its container) leave that metric unchanged, with a note; a
// malformed annotation leaves the whole HPA unchanged, with a note.
Retune retune(const api::HorizontalPodAutoscaler& hpa, const RetuneInput& input);

}  // namespace attune::hpa
