#include "webhook/admission_review.h"

#include <nlohmann/json.hpp>

#include "api/k8s/decode.h"
#include "api/policy/policy_codec.h"
#include "safety/annotations.h"

namespace attune::webhook {

namespace {

api::AdmissionResponse allow(const api::AdmissionRequest& request) {
  return api::AdmissionResponse{.uid = request.uid, .allowed = true};
}

bool skipped(const api::ObjectMeta& meta) {
  auto it = meta.annotations.find(safety::kSkipAnnotation);
  return it != meta.annotations.end() && it->second == "true";
}

std::string diagnosticText(const api::PolicyDiagnostic& d) {
  return d.error.field.empty() ? d.error.message : d.error.field + ": " + d.error.message;
}

// request.object without the server-managed fields the policy decoder does not know.
std::string policyDocument(std::string_view object) {
  auto doc = nlohmann::json::parse(object, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return std::string(object);
  if (auto meta = doc.find("metadata"); meta != doc.end() && meta->is_object()) {
    meta->erase("managedFields");
  }
  return doc.dump();
}

}  // namespace

PodReview reviewPod(const api::AdmissionRequest& request, const SizingLookup& lookup) {
  PodReview review{.response = allow(request)};
  if (request.operation != "CREATE" || request.kind.kind != "Pod" || !request.kind.group.empty()) {
    return review;
  }
  auto pod = api::decodePod(request.object);
  if (!pod) {
    review.outcome = PodReviewOutcome::kUndecodable;
    return review;
  }
  review.workload = workloadOfNewPod(*pod, request.namespace_);
  if (!review.workload || skipped(pod->metadata)) return review;
  const auto sizing = lookup(*review.workload);
  if (!sizing) {
    review.outcome = PodReviewOutcome::kNoSizing;
    return review;
  }
  auto ops = podSizingPatch(*pod, *sizing);
  const bool resized = !ops.empty();
  // Marked either way: a pod of a workload with sizing that lacks the mark skipped the webhook.
  ops.push_back(admissionSizedMarker(*pod, resized ? kAdmissionSized : kAdmissionUnchanged));
  review.outcome = PodReviewOutcome::kUnchanged;
  auto patch = api::encodeJsonPatch(ops);
  if (!patch) return review;
  review.response.patch = std::move(*patch);
  review.response.patchType = "JSONPatch";
  if (resized) review.outcome = PodReviewOutcome::kSized;
  return review;
}

api::AdmissionResponse reviewPolicy(const api::AdmissionRequest& request) {
  api::AdmissionResponse response = allow(request);
  if ((request.operation != "CREATE" && request.operation != "UPDATE") ||
      request.kind.kind != api::kPolicyKind) {
    return response;
  }
  const auto checked = api::checkPolicies(policyDocument(request.object));
  std::vector<std::string> errors;
  for (const auto& doc : checked) {
    for (const auto& e : doc.errors) errors.push_back(diagnosticText(e));
    for (const auto& w : doc.warnings) response.warnings.push_back(diagnosticText(w));
  }
  if (checked.empty()) errors.emplace_back("the request holds no AttunePolicy");
  if (errors.empty()) return response;
  std::string message = std::string(api::kPolicyKind) + " \"" + request.name + "\" is invalid: ";
  for (std::size_t i = 0; i < errors.size(); ++i) message += (i ? "; " : "") + errors[i];
  response.allowed = false;
  response.status = api::ApiStatus{"Failure", message, "Invalid", 422};
  return response;
}

}  // namespace attune::webhook
