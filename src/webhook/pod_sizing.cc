#include "webhook/pod_sizing.h"

#include <algorithm>

namespace attune::webhook {

namespace {

constexpr std::string_view kPodTemplateHashLabel = "pod-template-hash";

// The requirements `sizing` gives a container whose current ones are `current`.
api::ResourceRequirements sized(const api::ResourceRequirements& current,
                                const ContainerSizing& sizing) {
  api::ResourceRequirements out = current;
  if (sizing.cpuRequest) out.requests.cpu = Quantity::fromMillicores(*sizing.cpuRequest);
  if (sizing.memoryRequest) out.requests.memory = Quantity::fromBytes(*sizing.memoryRequest);
  if (sizing.memoryLimit) out.limits.memory = Quantity::fromBytes(*sizing.memoryLimit);
  if (sizing.removeCpuLimit) out.limits.cpu.reset();
  if (out.requests.memory && out.limits.memory &&
      out.limits.memory->toBytes() < out.requests.memory->toBytes()) {
    out.requests.memory = out.limits.memory;
  }
  return out;
}

}  // namespace

std::optional<api::WorkloadRef> workloadOfNewPod(const api::Pod& pod, std::string_view ns) {
  const api::OwnerReference* owner = pod.metadata.controllerRef();
  if (owner == nullptr) return std::nullopt;
  if (owner->kind == "ReplicaSet") {
    auto hash = pod.metadata.labels.find(kPodTemplateHashLabel);
    const std::string suffix = hash == pod.metadata.labels.end() ? "" : "-" + hash->second;
    if (!suffix.empty() && owner->name.size() > suffix.size() && owner->name.ends_with(suffix)) {
      return api::WorkloadRef{std::string(ns), "Deployment",
                              owner->name.substr(0, owner->name.size() - suffix.size())};
    }
  }
  return api::WorkloadRef{std::string(ns), owner->kind, owner->name};
}

std::vector<api::JsonPatchOp> podSizingPatch(const api::Pod& pod,
                                             std::span<const ContainerSizing> sizing) {
  std::vector<api::JsonPatchOp> ops;
  const auto& containers = pod.spec.containers;
  for (std::size_t i = 0; i < containers.size(); ++i) {
    auto it = std::ranges::find(sizing, containers[i].name, &ContainerSizing::container);
    if (it == sizing.end()) continue;
    const api::ResourceRequirements next = sized(containers[i].resources, *it);
    if (next == containers[i].resources) continue;
    const std::string index = std::to_string(i);
    ops.push_back({api::JsonPatchOpType::kAdd,
                   api::jsonPointer({"spec", "containers", index, "resources"}),
                   api::jsonResourceRequirements(next)});
  }
  return ops;
}

api::JsonPatchOp admissionSizedMarker(const api::Pod& pod, std::string_view value) {
  if (pod.metadata.annotations.empty()) {
    return {api::JsonPatchOpType::kAdd, api::jsonPointer({"metadata", "annotations"}),
            "{" + api::jsonString(kAdmissionSizedAnnotation) + ":" + api::jsonString(value) + "}"};
  }
  return {api::JsonPatchOpType::kAdd,
          api::jsonPointer({"metadata", "annotations", kAdmissionSizedAnnotation}),
          api::jsonString(value)};
}

}  // namespace attune::webhook
