#include "control_builders.h"

#include <chrono>

#include "core/quantity.h"

namespace attune::sim::testing {
namespace {

Quantity q(std::string_view text) { return *Quantity::parse(text); }

api::Container container(std::string_view cpu, std::string_view memory) {
  api::Container c;
  c.name = "app";
  c.image = "app:1";
  c.resources.requests.cpu = q(cpu);
  c.resources.requests.memory = q(memory);
  return c;
}

}  // namespace

Time fixedTime() { return Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 1)); }

api::Node readyNode(std::string name, std::string_view cpu, std::string_view memory) {
  api::Node node;
  node.metadata.name = std::move(name);
  node.status.allocatable.cpu = q(cpu);
  node.status.allocatable.memory = q(memory);
  node.status.conditions.push_back(api::Condition{"Ready", "True", "KubeletReady", "", {}, 0});
  return node;
}

api::Node tainted(api::Node node, std::string key, std::string value, std::string effect) {
  node.spec.taints.push_back(api::Taint{std::move(key), std::move(value), std::move(effect)});
  return node;
}

api::Pod pendingPod(std::string name, std::string_view cpu, std::string_view memory) {
  api::Pod pod;
  pod.metadata.namespace_ = "team";
  pod.metadata.name = std::move(name);
  pod.spec.containers.push_back(container(cpu, memory));
  pod.status.phase = "Pending";
  return pod;
}

api::PodTemplateSpec podTemplate(std::string app, std::string image) {
  api::PodTemplateSpec t;
  t.metadata.labels["app"] = std::move(app);
  t.spec.containers.push_back(container("100m", "64Mi"));
  t.spec.containers.back().image = std::move(image);
  return t;
}

}  // namespace attune::sim::testing
