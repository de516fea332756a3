// REST paths and query strings of the resources HttpClusterApi reads and writes.
#pragma once

#include <string>
#include <string_view>

#include "api/k8s/admission.h"
#include "api/k8s/meta.h"
#include "core/error.h"

namespace attune::kube {

// One resource type: its group-version prefix and plural name.
struct Resource {
  std::string_view prefix;  // "/api/v1", "/apis/apps/v1", ...
  std::string_view plural;  // "pods", "deployments", ...
  bool namespaced = true;
};

inline constexpr Resource kPods{"/api/v1", "pods"};
inline constexpr Resource kNodes{"/api/v1", "nodes", false};
inline constexpr Resource kNamespaces{"/api/v1", "namespaces", false};
inline constexpr Resource kEvents{"/api/v1", "events"};
inline constexpr Resource kLimitRanges{"/api/v1", "limitranges"};
inline constexpr Resource kResourceQuotas{"/api/v1", "resourcequotas"};
inline constexpr Resource kDeployments{"/apis/apps/v1", "deployments"};
inline constexpr Resource kStatefulSets{"/apis/apps/v1", "statefulsets"};
inline constexpr Resource kDaemonSets{"/apis/apps/v1", "daemonsets"};
inline constexpr Resource kReplicaSets{"/apis/apps/v1", "replicasets"};
inline constexpr Resource kJobs{"/apis/batch/v1", "jobs"};
inline constexpr Resource kCronJobs{"/apis/batch/v1", "cronjobs"};
inline constexpr Resource kHpas{"/apis/autoscaling/v2", "horizontalpodautoscalers"};
inline constexpr Resource kPodDisruptionBudgets{"/apis/policy/v1", "poddisruptionbudgets"};
inline constexpr Resource kSecrets{"/api/v1", "secrets"};
inline constexpr Resource kLeases{"/apis/coordination.k8s.io/v1", "leases"};
inline constexpr Resource kMutatingWebhookConfigurations{"/apis/admissionregistration.k8s.io/v1",
                                                         "mutatingwebhookconfigurations", false};
inline constexpr Resource kValidatingWebhookConfigurations{
    "/apis/admissionregistration.k8s.io/v1", "validatingwebhookconfigurations", false};
// The resource of a Mutating- or ValidatingWebhookConfiguration.
inline constexpr const Resource& webhookConfigurations(api::WebhookConfigurationKind kind) {
  return kind == api::WebhookConfigurationKind::kMutating ? kMutatingWebhookConfigurations
                                                          : kValidatingWebhookConfigurations;
}
inline constexpr Resource kAttunePolicies{"/apis/attune.io/v1alpha1", "attunepolicies"};
inline constexpr Resource kAttuneDefaults{"/apis/attune.io/v1alpha1", "attunedefaults", false};
inline constexpr Resource kAttuneNamespaceDefaults{"/apis/attune.io/v1alpha1",
                                                   "attunenamespacedefaults"};

// The collection: "/api/v1/namespaces/{ns}/pods", or "/api/v1/pods" for all namespaces (an empty
// `ns`, and always for cluster-scoped resources). Segments are percent-encoded.
std::string collectionPath(const Resource& r, std::string_view ns);
// One object: collectionPath(r, ns) + "/" + name, then "/" + subresource when not empty.
std::string objectPath(const Resource& r, std::string_view ns, std::string_view name,
                       std::string_view subresource = {});

// The labelSelector query syntax: matchLabels as "k=v", then matchExpressions as
// "k in (a,b)", "k notin (a,b)", "k" (Exists), "!k" (DoesNotExist), joined with ",".
// Empty for an empty selector. kInvalidArgument (field
// "labelSelector.matchExpressions[i].operator") for an unknown operator.
Result<std::string> selectorQuery(const api::LabelSelector& selector);

}  // namespace attune::kube
