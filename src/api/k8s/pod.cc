#include "api/k8s/pod.h"

#include <algorithm>
#include <initializer_list>

namespace attune::api {

const Container* PodSpec::findContainer(std::string_view name) const {
  for (const std::vector<Container>* list : {&containers, &initContainers}) {
    for (const Container& c : *list) {
      if (c.name == name) return &c;
    }
  }
  return nullptr;
}

ContainerResize PodSpec::resizeOf(const Container& c, ResourceRequirements resources) const {
  const bool init =
      std::ranges::any_of(initContainers, [&c](const Container& i) { return i.name == c.name; });
  return {.name = c.name, .resources = std::move(resources), .initContainer = init};
}

const ContainerStatus* PodStatus::findContainerStatus(std::string_view name) const {
  for (const std::vector<ContainerStatus>* list : {&containerStatuses, &initContainerStatuses}) {
    for (const ContainerStatus& s : *list) {
      if (s.name == name) return &s;
    }
  }
  return nullptr;
}

bool isPodReady(const Pod& pod) {
  const Condition* ready = findCondition(pod.status.conditions, "Ready");
  return ready != nullptr && ready->isTrue();
}

std::string_view qosClassName(QosClass qos) {
  switch (qos) {
    case QosClass::kBestEffort:
      return "BestEffort";
    case QosClass::kBurstable:
      return "Burstable";
    case QosClass::kGuaranteed:
      return "Guaranteed";
  }
  return "Unknown";
}

// Kubernetes' resourceQOS: the class of one set of requirements, looking at cpu and memory only
// (an absent amount counts as zero).
static QosClass requirementsQos(const ResourceRequirements& r) {
  if (r.requests.empty() && r.limits.empty()) return QosClass::kBestEffort;
  std::optional<QosClass> qos;
  for (std::optional<Quantity> ResourceList::*member :
       {&ResourceList::cpu, &ResourceList::memory}) {
    Quantity request = (r.requests.*member).value_or(Quantity{});
    Quantity limit = (r.limits.*member).value_or(Quantity{});
    if (request != limit) return QosClass::kBurstable;
    QosClass resourceQos = request.isZero() ? QosClass::kBestEffort : QosClass::kGuaranteed;
    if (qos && *qos != resourceQos) return QosClass::kBurstable;
    qos = resourceQos;
  }
  return *qos;
}

QosClass computeQosClass(const PodSpec& spec) {
  if (spec.resources) return requirementsQos(*spec.resources);
  std::optional<QosClass> qos;
  for (const std::vector<Container>* list : {&spec.initContainers, &spec.containers}) {
    for (const Container& c : *list) {
      QosClass containerQos = requirementsQos(c.resources);
      if (containerQos == QosClass::kBurstable) return containerQos;
      if (qos && *qos != containerQos) return QosClass::kBurstable;
      qos = containerQos;
    }
  }
  return qos.value_or(QosClass::kBestEffort);
}

}  // namespace attune::api

namespace attune::api {

bool Toleration::tolerates(const Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) return false;
  if (!key.empty() && key != taint.key) return false;
  if (operator_ == "Exists") return true;
  return (operator_.empty() || operator_ == "Equal") && value == taint.value;
}

}  // namespace attune::api
