// admission.k8s.io/v1 AdmissionReview: the request a mutating webhook receives and the response
// it returns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/meta.h"

namespace attune::api {

struct GroupVersionKind {
  std::string group;
  std::string version;
  std::string kind;
  bool operator==(const GroupVersionKind&) const = default;
};

struct GroupVersionResource {
  std::string group;
  std::string version;
  std::string resource;
  bool operator==(const GroupVersionResource&) const = default;
};

struct AdmissionRequest {
  std::string uid;
  GroupVersionKind kind;
  GroupVersionResource resource;
  std::string subResource;
  std::string name;
  std::string namespace_;
  std::string operation;  // CREATE, UPDATE, DELETE, CONNECT
  std::string username;   // userInfo.username
  // The raw JSON text of request.object / request.oldObject (empty when absent or null), to be
  // decoded with the decoder of the kind, e.g. decodePod(request.object).
  std::string object;
  std::string oldObject;
  bool dryRun = false;

  bool operator==(const AdmissionRequest&) const = default;
};

struct AdmissionResponse {
  std::string uid;  // must echo request.uid
  bool allowed = false;
  std::optional<ApiStatus> status;  // reason shown to the user when not allowed
  // The RFC 6902 JSON Patch document, as plain JSON text (base64-encoded on the wire); empty
  // for no patch.
  std::string patch;
  std::string patchType;  // "JSONPatch" whenever patch is set
  // Warnings returned to the client (kubectl prints each as "Warning: ...").
  std::vector<std::string> warnings;

  bool operator==(const AdmissionResponse&) const = default;
};

struct AdmissionReview {
  std::string apiVersion;  // admission.k8s.io/v1
  std::optional<AdmissionRequest> request;
  std::optional<AdmissionResponse> response;

  bool operator==(const AdmissionReview&) const = default;
};

// admissionregistration.k8s.io/v1 Mutating- and ValidatingWebhookConfiguration: the parts
// Attune keeps up to date for its own webhooks (the CA bundle after certificate rotation) and
// the simulated API server honours when it calls webhooks (rules, selectors, failure policy,
// timeout). Match conditions are not decoded.
struct WebhookService {
  std::string namespace_;
  std::string name;
  std::string path;
  std::optional<std::int32_t> port;
  bool operator==(const WebhookService&) const = default;
};

// One entry of rules: which operations on which resources the webhook is called for ("*" in any
// list matches everything; a resource "pods/status" names a subresource).
struct WebhookRule {
  std::vector<std::string> operations;  // CREATE, UPDATE, DELETE, CONNECT or *
  std::vector<std::string> apiGroups;
  std::vector<std::string> apiVersions;
  std::vector<std::string> resources;
  std::string scope;  // Cluster, Namespaced or * (empty: *)
  bool operator==(const WebhookRule&) const = default;
};

struct AdmissionWebhook {
  std::string name;
  std::string url;                        // clientConfig.url
  std::optional<WebhookService> service;  // clientConfig.service
  std::string caBundle;                   // clientConfig.caBundle, base64 text as on the wire
  std::vector<WebhookRule> rules;
  std::string failurePolicy;  // Ignore or Fail (empty: Fail, the API server's default)
  std::string sideEffects;
  std::optional<std::int32_t> timeoutSeconds;  // unset: 10, the API server's default
  std::vector<std::string> admissionReviewVersions;
  std::optional<LabelSelector> namespaceSelector;
  std::optional<LabelSelector> objectSelector;
  std::string reinvocationPolicy;  // mutating webhooks only
  bool operator==(const AdmissionWebhook&) const = default;
};
using MutatingWebhook = AdmissionWebhook;

enum class WebhookConfigurationKind { kMutating, kValidating };
// "MutatingWebhookConfiguration" or "ValidatingWebhookConfiguration".
std::string_view kindName(WebhookConfigurationKind kind);
// "mutatingwebhookconfigurations" or "validatingwebhookconfigurations".
std::string_view resourceName(WebhookConfigurationKind kind);

struct WebhookConfiguration {
  WebhookConfigurationKind kind = WebhookConfigurationKind::kMutating;  // from the "kind" field
  ObjectMeta metadata;
  std::vector<AdmissionWebhook> webhooks;
  bool operator==(const WebhookConfiguration&) const = default;
};
using MutatingWebhookConfiguration = WebhookConfiguration;

}  // namespace attune::api
