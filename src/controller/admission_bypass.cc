#include "controller/admission_bypass.h"

#include <fmt/format.h>

#include <utility>

#include "rollout/prechecks.h"
#include "webhook/pod_sizing.h"

namespace attune::controller {
namespace {

std::string keyOf(const api::Pod& pod) {
  return pod.metadata.uid.empty() ? pod.metadata.namespace_ + "/" + pod.metadata.name
                                  : pod.metadata.uid;
}

bool marked(const api::Pod& pod) {
  return pod.metadata.annotations.contains(std::string(webhook::kAdmissionSizedAnnotation));
}

}  // namespace

std::vector<BypassedPod> AdmissionBypassWatch::newlyBypassed(
    const std::vector<TargetWorkload>& targets, const AdmissionSizing& sizing, Time now,
    OperatorMetrics& metrics) {
  std::vector<BypassedPod> out;
  std::set<std::string, std::less<>> stillThere;
  for (const TargetWorkload& target : targets) {
    for (const api::Pod* pod : target.pods) {
      if (reported_.contains(keyOf(*pod))) stillThere.insert(keyOf(*pod));
    }
    if (!sizing.lookup(target.ref)) {  // rule 1
      sizedSince_.erase(target.ref);
      continue;
    }
    auto [since, first] = sizedSince_.try_emplace(target.ref, now);
    if (first) metrics.admissionBypasses.inc({target.ref.ns, target.ref.name}, 0);
    for (const api::Pod* pod : target.pods) {
      const std::optional<Time>& created = pod->metadata.creationTimestamp;
      if (!created || *created < since->second + kAdmissionBypassGrace) continue;  // rule 2
      if (marked(*pod) || rollout::optedOut(pod->metadata)) continue;              // rule 3
      if (!stillThere.insert(keyOf(*pod)).second) continue;                        // rule 4
      out.push_back({.workload = &target, .pod = pod});
    }
  }
  // Pods no longer among the targets are gone for good (a new pod has a new uid).
  reported_ = std::move(stillThere);
  return out;
}

void AdmissionBypassWatch::check(const std::vector<TargetWorkload>& targets,
                                 const AdmissionSizing& sizing, Time now, EventRecorder& events,
                                 OperatorMetrics& metrics) {
  for (const BypassedPod& b : newlyBypassed(targets, sizing, now, metrics)) {
    if (b.workload->metadata != nullptr) {
      (void)events.record(referenceToWorkload(b.workload->ref, *b.workload->metadata), "Warning",
                          kAdmissionWebhookBypassedReason, admissionBypassMessage(*b.pod));
    }
    metrics.admissionBypasses.inc({b.workload->ref.ns, b.workload->ref.name});
  }
}

std::string admissionBypassMessage(const api::Pod& pod) {
  return fmt::format(
      "Pod {} was created without Attune's admission sizing (no {} annotation): the API server "
      "did not call the pod admission webhook or the call failed, and failurePolicy Ignore "
      "admitted the pod as its workload asks. Check the webhook Service and its endpoints "
      "(attune-webhook), the serving certificate and the caBundle of the "
      "MutatingWebhookConfiguration (attune-pod-sizing), and "
      "attune_webhook_requests_total{{webhook=\"mutate-pods\"}}",
      pod.metadata.name, webhook::kAdmissionSizedAnnotation);
}

}  // namespace attune::controller
