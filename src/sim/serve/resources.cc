#include "sim/serve/resources.h"

#include <nlohmann/json.hpp>

#include <array>
#include <vector>

namespace attune::sim::serve {
namespace {

using Json = nlohmann::ordered_json;
constexpr Storage kTyped = Storage::kTyped;
constexpr Storage kOpaque = Storage::kOpaque;

// clang-format off
constexpr std::array kResources = {
    ResourceInfo{"", "v1", "pods", "pod", "Pod", true, kTyped, "po", "status,resize,eviction", "all"},
    ResourceInfo{"", "v1", "nodes", "node", "Node", false, kTyped, "no", "", ""},
    ResourceInfo{"", "v1", "namespaces", "namespace", "Namespace", false, kTyped, "ns", "", ""},
    ResourceInfo{"", "v1", "events", "event", "Event", true, kTyped, "ev", "", ""},
    ResourceInfo{"", "v1", "limitranges", "limitrange", "LimitRange", true, kTyped, "limits", "", ""},
    ResourceInfo{"", "v1", "resourcequotas", "resourcequota", "ResourceQuota", true, kTyped, "quota", "", ""},
    ResourceInfo{"", "v1", "serviceaccounts", "serviceaccount", "ServiceAccount", true, kOpaque, "sa", "", ""},
    ResourceInfo{"", "v1", "services", "service", "Service", true, kOpaque, "svc", "", "all"},
    ResourceInfo{"", "v1", "configmaps", "configmap", "ConfigMap", true, kOpaque, "cm", "", ""},
    ResourceInfo{"", "v1", "secrets", "secret", "Secret", true, kOpaque, "", "", ""},
    ResourceInfo{"apps", "v1", "deployments", "deployment", "Deployment", true, kTyped, "deploy", "scale", "all"},
    ResourceInfo{"apps", "v1", "replicasets", "replicaset", "ReplicaSet", true, kTyped, "rs", "scale", "all"},
    ResourceInfo{"apps", "v1", "statefulsets", "statefulset", "StatefulSet", true, kTyped, "sts", "scale", "all"},
    ResourceInfo{"apps", "v1", "daemonsets", "daemonset", "DaemonSet", true, kTyped, "ds", "", "all"},
    ResourceInfo{"batch", "v1", "jobs", "job", "Job", true, kTyped, "", "", "all"},
    ResourceInfo{"batch", "v1", "cronjobs", "cronjob", "CronJob", true, kTyped, "cj", "", "all"},
    ResourceInfo{"autoscaling", "v2", "horizontalpodautoscalers", "horizontalpodautoscaler", "HorizontalPodAutoscaler", true, kTyped, "hpa", "status", "all"},
    ResourceInfo{"coordination.k8s.io", "v1", "leases", "lease", "Lease", true, kTyped, "", "", ""},
    ResourceInfo{"policy", "v1", "poddisruptionbudgets", "poddisruptionbudget", "PodDisruptionBudget", true, kTyped, "pdb", "status", ""},
    ResourceInfo{"rbac.authorization.k8s.io", "v1", "clusterroles", "clusterrole", "ClusterRole", false, kOpaque, "", "", ""},
    ResourceInfo{"rbac.authorization.k8s.io", "v1", "clusterrolebindings", "clusterrolebinding", "ClusterRoleBinding", false, kOpaque, "", "", ""},
    ResourceInfo{"rbac.authorization.k8s.io", "v1", "roles", "role", "Role", true, kOpaque, "", "", ""},
    ResourceInfo{"rbac.authorization.k8s.io", "v1", "rolebindings", "rolebinding", "RoleBinding", true, kOpaque, "", "", ""},
    ResourceInfo{"admissionregistration.k8s.io", "v1", "mutatingwebhookconfigurations", "mutatingwebhookconfiguration", "MutatingWebhookConfiguration", false, kOpaque, "", "", ""},
    ResourceInfo{"admissionregistration.k8s.io", "v1", "validatingwebhookconfigurations", "validatingwebhookconfiguration", "ValidatingWebhookConfiguration", false, kOpaque, "", "", ""},
    ResourceInfo{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition", false, kOpaque, "crd,crds", "status", ""},
    ResourceInfo{"attune.io", "v1alpha1", "attunepolicies", "attunepolicy", "AttunePolicy", true, kTyped, "ap", "status", "attune"},
    ResourceInfo{"attune.io", "v1alpha1", "attunedefaults", "attunedefaults", "AttuneDefaults", false, kTyped, "ad", "", "attune"},
    ResourceInfo{"attune.io", "v1alpha1", "attunenamespacedefaults", "attunenamespacedefaults", "AttuneNamespaceDefaults", true, kTyped, "and", "", "attune"},
};
// clang-format on

std::vector<std::string> split(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const std::size_t comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
  }
  return out;
}

// The groups in first-appearance order (core excluded), each with its one version.
std::vector<std::pair<std::string_view, std::string_view>> groups() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const ResourceInfo& r : kResources) {
    if (r.group.empty()) continue;
    bool seen = false;
    for (const auto& g : out) seen = seen || g.first == r.group;
    if (!seen) out.emplace_back(r.group, r.version);
  }
  return out;
}

Json groupJson(std::string_view group, std::string_view version) {
  Json v = {{"groupVersion", std::string(group) + "/" + std::string(version)},
            {"version", version}};
  return Json{{"name", group}, {"versions", Json::array({v})}, {"preferredVersion", v}};
}

const Json kVerbs = {"create", "delete", "deletecollection", "get",
                     "list",   "patch",  "update",           "watch"};

// The OpenAPI path of one object of `r`.
std::string objectPath(const ResourceInfo& r) {
  std::string out = r.group.empty() ? "/api/v1/" : "/apis/" + r.apiVersion() + "/";
  if (r.namespaced) out += "namespaces/{namespace}/";
  out += r.plural;
  out += "/{name}";
  return out;
}

}  // namespace

std::string ResourceInfo::apiVersion() const {
  return group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
}

std::string ResourceInfo::qualifiedName() const {
  return group.empty() ? std::string(plural) : std::string(plural) + "." + std::string(group);
}

std::span<const ResourceInfo> servedResources() { return kResources; }

const ResourceInfo* findResource(std::string_view group, std::string_view version,
                                 std::string_view plural) {
  for (const ResourceInfo& r : kResources) {
    if (r.group == group && r.version == version && r.plural == plural) return &r;
  }
  return nullptr;
}

std::string apiVersionsJson(std::string_view serverAddress) {
  return Json{{"kind", "APIVersions"},
              {"versions", {"v1"}},
              {"serverAddressByClientCIDRs",
               Json::array({{{"clientCIDR", "0.0.0.0/0"}, {"serverAddress", serverAddress}}})}}
      .dump();
}

std::string apiGroupListJson() {
  Json list = Json::array();
  for (const auto& [group, version] : groups()) list.push_back(groupJson(group, version));
  return Json{{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", std::move(list)}}.dump();
}

std::optional<std::string> apiGroupJson(std::string_view group) {
  for (const auto& [g, version] : groups()) {
    if (g != group) continue;
    Json out = {{"kind", "APIGroup"}, {"apiVersion", "v1"}};
    out.update(groupJson(g, version));
    return out.dump();
  }
  return std::nullopt;
}

std::optional<std::string> apiResourceListJson(std::string_view group, std::string_view version) {
  Json resources = Json::array();
  for (const ResourceInfo& r : kResources) {
    if (r.group != group || r.version != version) continue;
    Json entry = {{"name", r.plural},
                  {"singularName", r.singular},
                  {"namespaced", r.namespaced},
                  {"kind", r.kind},
                  {"verbs", kVerbs}};
    if (!r.shortNames.empty()) entry["shortNames"] = split(r.shortNames);
    if (!r.categories.empty()) entry["categories"] = split(r.categories);
    resources.push_back(std::move(entry));
    for (const std::string& sub : split(r.subresources)) {
      Json s = {{"name", std::string(r.plural) + "/" + sub},
                {"singularName", ""},
                {"namespaced", r.namespaced},
                {"kind", r.kind},
                {"verbs", {"get", "patch", "update"}}};
      if (sub == "scale") {
        s["group"] = "autoscaling";
        s["version"] = "v1";
        s["kind"] = "Scale";
      }
      if (sub == "eviction") {
        s["group"] = "policy";
        s["version"] = "v1";
        s["kind"] = "Eviction";
        s["verbs"] = {"create"};
      }
      resources.push_back(std::move(s));
    }
  }
  if (resources.empty()) return std::nullopt;
  const std::string groupVersion =
      group.empty() ? std::string(version) : std::string(group) + "/" + std::string(version);
  return Json{{"kind", "APIResourceList"},
              {"apiVersion", "v1"},
              {"groupVersion", groupVersion},
              {"resources", std::move(resources)}}
      .dump();
}

std::string openApiV3RootJson() {
  Json paths = Json::object();
  auto add = [&paths](const std::string& path) {
    paths[path] = {{"serverRelativeURL", "/openapi/v3/" + path + "?hash=0"}};
  };
  add("api/v1");
  for (const auto& [group, version] : groups()) {
    add("apis/" + std::string(group) + "/" + std::string(version));
  }
  return Json{{"paths", std::move(paths)}}.dump();
}

std::optional<std::string> openApiV3Json(std::string_view path) {
  Json paths = Json::object();
  for (const ResourceInfo& r : kResources) {
    const std::string gvPath = r.group.empty() ? "api/v1" : "apis/" + r.apiVersion();
    if (gvPath != path) continue;
    Json gvk = {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
    Json patch = {
        {"operationId", "patch" + std::string(r.kind)},
        {"parameters", Json::array({{{"name", "fieldValidation"},
                                     {"in", "query"},
                                     {"schema", {{"type", "string"}, {"uniqueItems", true}}}},
                                    {{"name", "fieldManager"},
                                     {"in", "query"},
                                     {"schema", {{"type", "string"}, {"uniqueItems", true}}}}})},
        {"responses", {{"200", {{"description", "OK"}}}}},
        {"x-kubernetes-action", "patch"},
        {"x-kubernetes-group-version-kind", std::move(gvk)}};
    paths[objectPath(r)] = {{"patch", std::move(patch)}};
  }
  if (paths.empty()) return std::nullopt;
  return Json{{"openapi", "3.0.0"},
              {"info", {{"title", "Kubernetes"}, {"version", kServedKubernetesVersion}}},
              {"paths", std::move(paths)},
              {"components", {{"schemas", Json::object()}}}}
      .dump();
}

}  // namespace attune::sim::serve
