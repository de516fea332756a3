#include "support/pod_builder.h"

#include <cassert>
#include <utility>

namespace attune::testing {
namespace {

void setIfGiven(api::ResourceList& list, std::string_view name, std::string_view text) {
  if (!text.empty()) list.set(name, Quantity::parse(text).value());
}

api::Container& lastContainer(api::Pod& pod) {
  assert(!pod.spec.containers.empty() && "add a container first");
  return pod.spec.containers.back();
}

}  // namespace

api::ResourceRequirements resources(std::string_view cpuRequest, std::string_view memoryRequest,
                                    std::string_view cpuLimit, std::string_view memoryLimit) {
  api::ResourceRequirements r;
  setIfGiven(r.requests, "cpu", cpuRequest);
  setIfGiven(r.requests, "memory", memoryRequest);
  setIfGiven(r.limits, "cpu", cpuLimit);
  setIfGiven(r.limits, "memory", memoryLimit);
  return r;
}

PodBuilder::PodBuilder(std::string ns, std::string name) {
  pod_.metadata.namespace_ = std::move(ns);
  pod_.metadata.name = std::move(name);
  pod_.status.phase = "Running";
}

PodBuilder PodBuilder::label(std::string key, std::string value) const {
  return with([&](api::Pod& pod) {
    pod.metadata.labels.insert_or_assign(std::move(key), std::move(value));
  });
}

PodBuilder PodBuilder::labels(api::StringMap labels) const {
  return with([&](api::Pod& pod) { pod.metadata.labels = std::move(labels); });
}

PodBuilder PodBuilder::owner(api::OwnerReference reference) const {
  return with([&](api::Pod& pod) { pod.metadata.ownerReferences.push_back(std::move(reference)); });
}

PodBuilder PodBuilder::node(std::string name) const {
  return with([&](api::Pod& pod) { pod.spec.nodeName = std::move(name); });
}

PodBuilder PodBuilder::phase(std::string phase) const {
  return with([&](api::Pod& pod) { pod.status.phase = std::move(phase); });
}

PodBuilder PodBuilder::container(std::string name, api::ResourceRequirements requirements) const {
  return with([&](api::Pod& pod) {
    api::Container c;
    c.name = std::move(name);
    c.resources = std::move(requirements);
    pod.spec.containers.push_back(std::move(c));
  });
}

PodBuilder PodBuilder::cpuRequest(Millicores cpu) const {
  return with([&](api::Pod& pod) {
    lastContainer(pod).resources.requests.cpu = Quantity::fromMillicores(cpu);
  });
}

PodBuilder PodBuilder::cpuLimit(Millicores cpu) const {
  return with([&](api::Pod& pod) {
    lastContainer(pod).resources.limits.cpu = Quantity::fromMillicores(cpu);
  });
}

PodBuilder PodBuilder::memoryRequest(Bytes memory) const {
  return with([&](api::Pod& pod) {
    lastContainer(pod).resources.requests.memory = Quantity::fromBytes(memory);
  });
}

PodBuilder PodBuilder::memoryLimit(Bytes memory) const {
  return with([&](api::Pod& pod) {
    lastContainer(pod).resources.limits.memory = Quantity::fromBytes(memory);
  });
}

PodBuilder PodBuilder::ready(Time since, std::int32_t restartCount) const {
  return with([&](api::Pod& pod) {
    pod.status.conditions.push_back({"Ready", "True", "", "", since, 0});
    for (const api::Container& c : pod.spec.containers) {
      api::ContainerStatus s;
      s.name = c.name;
      s.ready = true;
      s.restartCount = restartCount;
      s.state.running = api::ContainerStateRunning{since};
      s.resources = c.resources;
      pod.status.containerStatuses.push_back(std::move(s));
    }
  });
}

}  // namespace attune::testing
