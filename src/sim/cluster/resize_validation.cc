#include "sim/cluster/resize_validation.h"

#include <algorithm>
#include <string>
#include <vector>

namespace attune::sim {
namespace {

// The container named `name` that a resize may change, and its field path; nullptr if none.
api::Container* findResizable(api::PodSpec& spec, std::string_view name, std::string& path) {
  for (std::size_t i = 0; i < spec.containers.size(); ++i) {
    if (spec.containers[i].name == name) {
      path = "spec.containers[" + std::to_string(i) + "]";
      return &spec.containers[i];
    }
  }
  for (std::size_t i = 0; i < spec.initContainers.size(); ++i) {
    if (spec.initContainers[i].name == name && spec.initContainers[i].isSidecar()) {
      path = "spec.initContainers[" + std::to_string(i) + "]";
      return &spec.initContainers[i];
    }
  }
  return nullptr;
}

// Checks one resource list of a request against the current one; `path` ends in
// ".requests" or ".limits".
Result<void> checkList(const api::ResourceList& current, const api::ResourceList& desired,
                       const std::string& path) {
  Result<void> result;
  desired.forEach([&](std::string_view name, const Quantity& q) {
    if (result && q.sign() < 0) {
      result = fail(ErrorCode::kInvalidArgument, "must be greater than or equal to 0",
                    joinPath(path, name));
    }
  });
  if (!result) return result;
  // Only cpu and memory are resizable: every other entry must be exactly as it was.
  auto differs = [](const api::ResourceList& a, const api::ResourceList& b) -> const std::string* {
    for (const auto& [name, q] : a.other) {
      auto it = b.other.find(name);
      if (it == b.other.end() || !(it->second == q)) return &name;
    }
    return nullptr;
  };
  const std::string* changed = differs(desired, current);
  if (!changed) changed = differs(current, desired);
  if (changed) {
    return fail(ErrorCode::kInvalidArgument, "only cpu and memory resources can be resized",
                joinPath(path, *changed));
  }
  return {};
}

Result<void> checkRequestWithinLimit(const api::ResourceRequirements& r, std::string_view name,
                                     const std::string& path) {
  const Quantity* request = r.requests.find(name);
  const Quantity* limit = r.limits.find(name);
  if (request && limit && *limit < *request) {
    return fail(
        ErrorCode::kInvalidArgument,
        "must be less than or equal to " + std::string(name) + " limit of " + limit->toString(),
        path + ".resources.requests");
  }
  return {};
}

Result<void> checkNonNegative(const api::ResourceList& list, const std::string& path) {
  Result<void> result;
  list.forEach([&](std::string_view name, const Quantity& q) {
    if (result && q.sign() < 0) {
      result = fail(ErrorCode::kInvalidArgument, "must be greater than or equal to 0",
                    joinPath(path, name));
    }
  });
  return result;
}

Result<void> checkContainers(const std::vector<api::Container>& containers,
                             std::string_view field) {
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const api::Container& c = containers[i];
    const std::string path = "spec." + std::string(field) + "[" + std::to_string(i) + "]";
    if (auto ok = checkNonNegative(c.resources.requests, path + ".resources.requests"); !ok) {
      return ok;
    }
    if (auto ok = checkNonNegative(c.resources.limits, path + ".resources.limits"); !ok) return ok;
    for (std::string_view name : {"cpu", "memory"}) {
      if (auto ok = checkRequestWithinLimit(c.resources, name, path); !ok) return ok;
    }
  }
  return {};
}

api::QosClass storedQos(const api::Pod& pod) {
  for (auto qos :
       {api::QosClass::kBestEffort, api::QosClass::kBurstable, api::QosClass::kGuaranteed}) {
    if (pod.status.qosClass == api::qosClassName(qos)) return qos;
  }
  return api::computeQosClass(pod.spec);
}

}  // namespace

Result<api::PodSpec> applyResize(const api::Pod& pod,
                                 std::span<const api::ContainerResize> containers) {
  api::PodSpec spec = pod.spec;
  for (const api::ContainerResize& request : containers) {
    std::string path;
    api::Container* c = findResizable(spec, request.name, path);
    if (!c) {
      return fail(ErrorCode::kInvalidArgument,
                  "container \"" + request.name + "\" not found or not resizable",
                  "spec.containers");
    }
    const std::string resources = path + ".resources";
    if (auto ok =
            checkList(c->resources.requests, request.resources.requests, resources + ".requests");
        !ok) {
      return std::unexpected(ok.error());
    }
    if (auto ok = checkList(c->resources.limits, request.resources.limits, resources + ".limits");
        !ok) {
      return std::unexpected(ok.error());
    }
    for (std::string_view name : {"cpu", "memory"}) {
      if (auto ok = checkRequestWithinLimit(request.resources, name, path); !ok) {
        return std::unexpected(ok.error());
      }
    }
    c->resources = request.resources;
  }
  const api::QosClass before = storedQos(pod);
  const api::QosClass after = api::computeQosClass(spec);
  if (before != after) {
    return fail(ErrorCode::kInvalidArgument,
                "Invalid value: \"" + std::string(api::qosClassName(after)) +
                    "\": Pod QOS Class may not change as a result of resizing",
                "spec");
  }
  return spec;
}

Result<void> checkMemoryLimitDecrease(const api::PodSpec& before, const api::PodSpec& after,
                                      const api::ServerVersion& version) {
  if (version.atLeast(1, 34)) return {};
  const auto check = [](const std::vector<api::Container>& was,
                        const std::vector<api::Container>& now,
                        std::string_view field) -> Result<void> {
    for (std::size_t i = 0; i < now.size() && i < was.size(); ++i) {
      const Quantity* oldLimit = was[i].resources.limits.find("memory");
      const Quantity* newLimit = now[i].resources.limits.find("memory");
      if (!oldLimit || !newLimit || !(*newLimit < *oldLimit)) continue;
      const auto& policies = now[i].resizePolicy;
      const bool restarts = std::any_of(policies.begin(), policies.end(), [](const auto& p) {
        return p.resourceName == "memory" && p.restartPolicy == "RestartContainer";
      });
      if (restarts) continue;
      return fail(
          ErrorCode::kInvalidArgument,
          "Forbidden: memory limits cannot be decreased unless resizePolicy is "
          "RestartContainer",
          "spec." + std::string(field) + "[" + std::to_string(i) + "].resources.limits.memory");
    }
    return {};
  };
  if (auto ok = check(before.containers, after.containers, "containers"); !ok) return ok;
  return check(before.initContainers, after.initContainers, "initContainers");
}

Result<void> validatePodResources(const api::PodSpec& spec) {
  if (auto ok = checkContainers(spec.containers, "containers"); !ok) return ok;
  return checkContainers(spec.initContainers, "initContainers");
}

}  // namespace attune::sim
