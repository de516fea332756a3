// The simulated API server's admission chain (issue 12 point 4): the registered Mutating- then
// ValidatingWebhookConfigurations called as the API server calls them — a real
// admission.k8s.io/v1 AdmissionReview POSTed over HTTPS (libcurl) with clientConfig.caBundle
// as the only trusted CA, to clientConfig.url or, for clientConfig.service, to
// https://<host>:<port><path> where `host` comes from the caller (there is no cluster DNS: see
// docs/webhooks.md). Honoured: rules (operations, apiGroups, apiVersions, resources with
// "*" and subresources), namespaceSelector, objectSelector, failurePolicy (Ignore skips a
// webhook that fails; Fail, the default, refuses), timeoutSeconds (default 10). A mutating
// webhook's JSONPatch is applied before the next webhook is called. The API server front end
// (api_server.h) calls it for pod creation, the pods/resize subresource and AttunePolicy
// writes.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "api/k8s/admission.h"
#include "api/k8s/meta.h"

namespace attune::sim::serve {

// What is being admitted. request.object is the object's JSON.
struct AdmissionCall {
  api::AdmissionRequest request;
  api::StringMap objectLabels;
  api::StringMap namespaceLabels;
};

struct AdmissionVerdict {
  bool allowed = true;
  std::string object;  // the object after every mutating webhook's patch
  // When refused: code and message as the API server reports them, e.g. 400
  // `admission webhook "x" denied the request: ...` (the webhook's own code when it gave one).
  std::optional<api::ApiStatus> status;
  std::vector<std::string> warnings;
};

// The host name a service reference is reached at (e.g. "127.0.0.1" for every service).
using ServiceHost = std::function<std::string(const api::WebhookService& service)>;

// Runs every webhook of `configurations` that matches `call`, mutating ones first (in the
// order given), stopping at the first refusal. Blocks for the calls (each bounded by its
// timeoutSeconds).
AdmissionVerdict runAdmission(std::span<const api::WebhookConfiguration> configurations,
                              const AdmissionCall& call, const ServiceHost& serviceHost);

// Whether `webhook` is to be called for `call` (rules and both selectors).
bool webhookMatches(const api::AdmissionWebhook& webhook, const AdmissionCall& call);

}  // namespace attune::sim::serve
