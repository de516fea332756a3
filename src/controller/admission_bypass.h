// Pods that skipped the pod admission webhook (docs/webhooks.md, "When the webhook is down").
// The shipped MutatingWebhookConfiguration has failurePolicy Ignore: when the webhook is
// unreachable, its certificate is not trusted or it times out, the API server creates the pod
// as its workload asks, unsized, and says nothing. The webhook marks every pod it gives a
// workload's sizing to (webhook::kAdmissionSizedAnnotation), so a pass can tell.
//
// A target pod (Running, bound: target_resolution.h) is reported as bypassed when all hold:
//  1. its workload has sizing published now (AdmissionSizing::lookup): the webhook patches no
//     other pod, so no other pod is expected to carry the mark;
//  2. it was created at least kAdmissionBypassGrace after `sizedSince`, the time of the first
//     pass that found the workload's sizing published, in an unbroken run of passes that all
//     found it. A pass that finds no sizing forgets the time, so a pod created before the
//     webhook could size it (no sizing yet, or withdrawn in between) is never reported. The
//     grace covers a review in flight while the sizing was published (the API server waits at
//     most 30 s for a webhook) and the pod's creationTimestamp being set after admission;
//  3. it lacks the mark, and is not opted out (attune.io/skip: the webhook leaves it alone);
//  4. it was not reported before (by uid). What was reported is kept in memory, per policy:
//     a restarted controller, or a policy whose spec changed, starts again from rule 2 with a
//     new sizedSince, so it reports no pod twice but neither the pods created before.
//
// Each bypassed pod gets a Warning Event AdmissionWebhookBypassed on its workload and one
// increment of attune_admission_webhook_bypassed_pods_total{namespace,workload}; that series
// is created at 0 when a workload's sizing is first found, so increase() sees the first bypass.
#pragma once

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "api/k8s/workload_ref.h"
#include "controller/admission_sizing.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "controller/target_resolution.h"
#include "core/time.h"

namespace attune::controller {

inline constexpr Duration kAdmissionBypassGrace = std::chrono::seconds(30);
inline constexpr std::string_view kAdmissionWebhookBypassedReason = "AdmissionWebhookBypassed";

// A target pod that was created without the webhook's sizing (pointers into the pass's targets).
struct BypassedPod {
  const TargetWorkload* workload = nullptr;
  const api::Pod* pod = nullptr;
};

// What one policy's passes remember (PolicyState). Not thread-safe.
class AdmissionBypassWatch {
 public:
  // Rules 1–4 over `targets`, with `sizing` as this pass published it and `now` read after the
  // publication; remembers the pods returned. New workloads with sizing get their counter
  // series at 0 in `metrics`.
  std::vector<BypassedPod> newlyBypassed(const std::vector<TargetWorkload>& targets,
                                         const AdmissionSizing& sizing, Time now,
                                         OperatorMetrics& metrics);

  // newlyBypassed(), then each pod booked: its Event (through `events`) and counter increment.
  void check(const std::vector<TargetWorkload>& targets, const AdmissionSizing& sizing, Time now,
             EventRecorder& events, OperatorMetrics& metrics);

 private:
  std::map<api::WorkloadRef, Time> sizedSince_;
  std::set<std::string, std::less<>> reported_;  // pod uids (namespace/name without one)
};

// The Event message for `pod` of `workload`.
std::string admissionBypassMessage(const api::Pod& pod);

}  // namespace attune::controller
