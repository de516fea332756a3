#include "metrics/prometheus/owners.h"

#include <map>
#include <string>
#include <utility>

namespace attune::metrics {
namespace {

constexpr std::string_view kNone = "<none>";

struct Owner {
  std::string kind;
  std::string name;
  bool controller = false;
};

// (namespace, object name) → its owner.
using OwnerMap = std::map<std::pair<std::string, std::string>, Owner>;

// Keeps the first owner seen for a key unless a controller owner replaces a non-controller.
void addOwner(OwnerMap& map, const PromSeries& s, std::string_view objectLabel) {
  std::string object(s.label(objectLabel));
  if (object.empty()) return;
  Owner owner{std::string(s.label("owner_kind")), std::string(s.label("owner_name")),
              s.label("owner_is_controller") == "true"};
  auto [it, inserted] = map.try_emplace({std::string(s.label("namespace")), object}, owner);
  if (!inserted && owner.controller && !it->second.controller) it->second = std::move(owner);
}

// The owner of `name` in `map` if it has a real one, else nullptr.
const Owner* parentOf(const OwnerMap& map, const std::string& ns, const std::string& name,
                      std::string_view parentKind) {
  auto it = map.find({ns, name});
  if (it == map.end() || it->second.kind != parentKind || it->second.name.empty() ||
      it->second.name == kNone) {
    return nullptr;
  }
  return &it->second;
}

}  // namespace

std::vector<PodOwner> resolvePodOwners(const std::vector<PromSeries>& series) {
  OwnerMap pods;
  OwnerMap replicaSets;
  OwnerMap jobs;
  for (const PromSeries& s : series) {
    const std::string_view name = s.label("__name__");
    if (name == "kube_pod_owner") {
      addOwner(pods, s, "pod");
    } else if (name == "kube_replicaset_owner") {
      addOwner(replicaSets, s, "replicaset");
    } else if (name == "kube_job_owner") {
      addOwner(jobs, s, "job_name");
    }
  }
  std::vector<PodOwner> out;
  out.reserve(pods.size());
  for (const auto& [key, owner] : pods) {
    const auto& [ns, pod] = key;
    api::WorkloadRef workload{ns, owner.kind, owner.name};
    if (owner.kind.empty() || owner.kind == kNone || owner.name.empty() || owner.name == kNone) {
      workload = {ns, "Pod", pod};
    } else if (owner.kind == "ReplicaSet") {
      if (const Owner* d = parentOf(replicaSets, ns, owner.name, "Deployment")) {
        workload = {ns, d->kind, d->name};
      }
    } else if (owner.kind == "Job") {
      if (const Owner* c = parentOf(jobs, ns, owner.name, "CronJob")) {
        workload = {ns, c->kind, c->name};
      }
    }
    out.push_back(PodOwner{ns, pod, std::move(workload)});
  }
  return out;
}

}  // namespace attune::metrics
