#include "sim/serve/admission_dispatch.h"

#include <algorithm>
#include <chrono>
#include <string_view>

#include "api/k8s/base64.h"
#include "api/k8s/decode.h"
#include "api/k8s/encode.h"
#include "http/http_client.h"
#include "sim/serve/patch_apply.h"

namespace attune::sim::serve {
namespace {

bool listed(const std::vector<std::string>& values, std::string_view value) {
  return std::ranges::any_of(values, [&](const std::string& v) { return v == "*" || v == value; });
}

bool ruleMatches(const api::WebhookRule& rule, const api::AdmissionRequest& r) {
  const std::string resource =
      r.subResource.empty() ? r.resource.resource : r.resource.resource + "/" + r.subResource;
  return listed(rule.operations, r.operation) && listed(rule.apiGroups, r.resource.group) &&
         listed(rule.apiVersions, r.resource.version) && listed(rule.resources, resource);
}

std::string urlOf(const api::AdmissionWebhook& webhook, const ServiceHost& serviceHost) {
  if (!webhook.url.empty() || !webhook.service) return webhook.url;
  const api::WebhookService& s = *webhook.service;
  return "https://" + serviceHost(s) + ":" + std::to_string(s.port.value_or(443)) + s.path;
}

// The webhook's answer, or why there is none.
Result<api::AdmissionResponse> call(const api::AdmissionWebhook& webhook,
                                    const api::AdmissionRequest& request,
                                    const ServiceHost& serviceHost) {
  http::HttpClientOptions options;
  options.caData = api::base64Decode(webhook.caBundle).value_or("");
  options.timeout = std::chrono::seconds(webhook.timeoutSeconds.value_or(10));
  options.connectTimeout = options.timeout;
  http::CurlHttpClient client(options);
  auto response = client.send({.method = http::HttpRequest::Method::kPost,
                               .url = urlOf(webhook, serviceHost),
                               .body = api::encodeAdmissionReviewRequest(request),
                               .contentType = "application/json"});
  if (!response) return std::unexpected(response.error());
  if (response->status != 200) {
    return fail(ErrorCode::kUnavailable,
                "the server responded with status " + std::to_string(response->status));
  }
  auto review = api::decodeAdmissionReview(response->body);
  if (!review) return std::unexpected(review.error());
  if (!review->response) return fail(ErrorCode::kInvalidArgument, "the review has no response");
  return *review->response;
}

api::ApiStatus refusal(int code, std::string reason, std::string message) {
  api::ApiStatus status;
  status.status = "Failure";
  status.code = code;
  status.reason = std::move(reason);
  status.message = std::move(message);
  return status;
}

}  // namespace

bool webhookMatches(const api::AdmissionWebhook& webhook, const AdmissionCall& call) {
  if (!std::ranges::any_of(
          webhook.rules, [&](const api::WebhookRule& r) { return ruleMatches(r, call.request); })) {
    return false;
  }
  if (webhook.namespaceSelector && !call.request.namespace_.empty() &&
      !api::selectorMatches(*webhook.namespaceSelector, call.namespaceLabels)) {
    return false;
  }
  return !webhook.objectSelector ||
         api::selectorMatches(*webhook.objectSelector, call.objectLabels);
}

AdmissionVerdict runAdmission(std::span<const api::WebhookConfiguration> configurations,
                              const AdmissionCall& admission, const ServiceHost& serviceHost) {
  AdmissionVerdict verdict{.allowed = true, .object = admission.request.object};
  for (auto kind :
       {api::WebhookConfigurationKind::kMutating, api::WebhookConfigurationKind::kValidating}) {
    for (const api::WebhookConfiguration& config : configurations) {
      if (config.kind != kind) continue;
      for (const api::AdmissionWebhook& webhook : config.webhooks) {
        if (!webhookMatches(webhook, admission)) continue;
        api::AdmissionRequest request = admission.request;
        request.object = verdict.object;
        auto answer = call(webhook, request, serviceHost);
        if (!answer) {
          if (webhook.failurePolicy == "Ignore") continue;
          verdict.allowed = false;
          verdict.status = refusal(500, "InternalError",
                                   "Internal error occurred: failed calling webhook \"" +
                                       webhook.name + "\": " + answer.error().toString());
          return verdict;
        }
        verdict.warnings.insert(verdict.warnings.end(), answer->warnings.begin(),
                                answer->warnings.end());
        if (!answer->allowed) {
          const api::ApiStatus given = answer->status.value_or(api::ApiStatus{});
          verdict.allowed = false;
          verdict.status = refusal(
              given.code != 0 ? given.code : 400,
              given.reason.empty() ? "BadRequest" : given.reason,
              "admission webhook \"" + webhook.name + "\" denied the request: " + given.message);
          return verdict;
        }
        if (kind == api::WebhookConfigurationKind::kMutating && !answer->patch.empty()) {
          auto patched = applyPatch(verdict.object, answer->patch, PatchType::kJsonPatch);
          if (!patched) {
            if (webhook.failurePolicy == "Ignore") continue;
            verdict.allowed = false;
            verdict.status = refusal(
                500, "InternalError",
                "Internal error occurred: webhook \"" + webhook.name +
                    "\" returned a patch that does not apply: " + patched.error().toString());
            return verdict;
          }
          verdict.object = std::move(*patched);
        }
      }
    }
  }
  return verdict;
}

}  // namespace attune::sim::serve
