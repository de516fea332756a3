// The API resources `attune sim serve` serves and their discovery documents: /version, /api,
// /apis, the group-version APIResourceLists, and a minimal OpenAPI v3 (the PATCH operation of
// each kind with its fieldValidation parameter, which is what kubectl checks before it lets
// the server validate fields). Pure; thread-safe.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace attune::sim::serve {

// The Kubernetes version the OpenAPI documents name (/version answers the simulated cluster's own,
// ClusterState::kubernetesVersion).
inline constexpr std::string_view kServedKubernetesVersion = "v1.33.0";

// How a resource's objects are kept.
enum class Storage {
  kTyped,   // in the simulation's ClusterState (typed objects with the simulator's semantics)
  kOpaque,  // stored as given (JSON), for kinds the simulator does not model
};

struct ResourceInfo {
  std::string_view group;  // "" for the core group
  std::string_view version;
  std::string_view plural;
  std::string_view singular;
  std::string_view kind;
  bool namespaced = true;
  Storage storage = Storage::kTyped;
  std::string_view shortNames;    // comma-separated
  std::string_view subresources;  // comma-separated: status, resize, eviction
  std::string_view categories;    // comma-separated

  // "v1" or "apps/v1".
  std::string apiVersion() const;
  // "pods" or "deployments.apps", as in the API server's messages.
  std::string qualifiedName() const;
};

// Every served resource, core group first.
std::span<const ResourceInfo> servedResources();
// The resource `plural` of group/version, or nullptr.
const ResourceInfo* findResource(std::string_view group, std::string_view version,
                                 std::string_view plural);

// /api: APIVersions (["v1"]), with `serverAddress` ("127.0.0.1:8443") for every client CIDR.
std::string apiVersionsJson(std::string_view serverAddress);
// /apis: APIGroupList of every non-core group.
std::string apiGroupListJson();
// /apis/<group>: one APIGroup; nullopt for a group not served.
std::optional<std::string> apiGroupJson(std::string_view group);
// /api/v1 or /apis/<group>/<version>: APIResourceList with each resource and subresource and
// its verbs; nullopt for a group-version not served.
std::optional<std::string> apiResourceListJson(std::string_view group, std::string_view version);

// /openapi/v3: the root listing one document per served group-version.
std::string openApiV3RootJson();
// /openapi/v3/api/v1 or /openapi/v3/apis/<group>/<version> (`path` without the prefix, e.g.
// "apis/apps/v1"); nullopt when not served.
std::optional<std::string> openApiV3Json(std::string_view path);

}  // namespace attune::sim::serve
