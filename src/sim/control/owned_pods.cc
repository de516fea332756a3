#include "sim/control/owned_pods.h"

#include <cstdint>

#include "sim/control/conditions.h"

namespace attune::sim {

PodsByController podsByController(const ClusterState& state) {
  PodsByController out;
  state.pods.forEach([&](const api::Pod& pod) {
    const api::OwnerReference* ref = pod.metadata.controllerRef();
    if (ref != nullptr) out[ref->uid].push_back(&pod);
  });
  return out;
}

namespace {

// FNV-1a, 64 bits, over a canonical rendering of the template.
class TemplateHasher {
 public:
  void add(std::string_view text) {
    for (unsigned char c : text) {
      hash_ ^= c;
      hash_ *= 1099511628211ULL;
    }
    hash_ ^= 0xff;  // field separator
    hash_ *= 1099511628211ULL;
  }
  void add(const api::StringMap& map) {
    for (const auto& [key, value] : map) {
      add(key);
      add(value);
    }
  }
  void add(const api::ResourceList& list) {
    list.forEach([&](std::string_view name, const Quantity& q) {
      add(name);
      add(q.toString());
    });
  }
  void add(const std::vector<api::Container>& containers) {
    for (const auto& c : containers) {
      add(c.name);
      add(c.image);
      add(c.restartPolicy);
      add(c.resources.requests);
      add("limits");
      add(c.resources.limits);
      for (const auto& p : c.resizePolicy) add(p.resourceName + "=" + p.restartPolicy);
    }
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 14695981039346656037ULL;
};

}  // namespace

std::string templateHash(const api::PodTemplateSpec& t) {
  TemplateHasher h;
  h.add(t.metadata.labels);
  h.add(t.metadata.annotations);
  h.add(t.spec.containers);
  h.add("init");
  h.add(t.spec.initContainers);
  h.add(t.spec.nodeSelector);
  h.add(t.spec.restartPolicy);
  h.add(t.spec.priorityClassName);
  h.add(t.spec.schedulerName);
  h.add(t.spec.overhead);
  constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";  // rand.SafeEncodeString
  std::uint64_t v = h.value();
  std::string out;
  for (int i = 0; i < 10; ++i, v /= kAlphabet.size()) out += kAlphabet[v % kAlphabet.size()];
  return out;
}

std::string revisionOf(const api::ObjectMeta& owner, const api::PodTemplateSpec& podTemplate) {
  return owner.name + "-" + templateHash(podTemplate);
}

api::PodTemplateSpec withRevisionLabel(const api::ObjectMeta& owner,
                                       api::PodTemplateSpec podTemplate) {
  podTemplate.metadata.labels[std::string(kRevisionHashLabel)] = revisionOf(owner, podTemplate);
  return podTemplate;
}

api::Pod podFromTemplate(const Owner& owner, const api::PodTemplateSpec& podTemplate,
                         std::string name) {
  api::Pod pod;
  pod.metadata.namespace_ = owner.meta.namespace_;
  pod.metadata.name = std::move(name);
  if (pod.metadata.name.empty()) pod.metadata.generateName = owner.meta.name + "-";
  pod.metadata.labels = podTemplate.metadata.labels;
  pod.metadata.annotations = podTemplate.metadata.annotations;
  pod.metadata.ownerReferences.push_back(
      api::OwnerReference{owner.apiVersion, owner.kind, owner.meta.name, owner.meta.uid, true});
  pod.spec = podTemplate.spec;
  pod.status.phase = "Pending";
  return pod;
}

std::vector<api::Pod> controlledPods(const ClusterState& state, std::string_view ns,
                                     std::string_view uid) {
  // Reads the namespace in place and copies only the pods the owner controls: controllers run
  // every tick, and copying every pod of the namespace for each owner dominated a tick.
  std::vector<api::Pod> out;
  state.pods.forEachInNamespace(ns, [&](const api::Pod& pod) {
    const api::OwnerReference* ref = pod.metadata.controllerRef();
    if (ref != nullptr && ref->uid == uid) out.push_back(pod);
  });
  return out;
}

std::vector<const api::Pod*> controlledPodRefs(const ClusterState& state, std::string_view ns,
                                               std::string_view uid) {
  std::vector<const api::Pod*> out;
  state.pods.forEachInNamespace(ns, [&](const api::Pod& pod) {
    const api::OwnerReference* ref = pod.metadata.controllerRef();
    if (ref != nullptr && ref->uid == uid) out.push_back(&pod);
  });
  return out;
}

bool isPodActive(const api::Pod& pod) {
  return pod.status.phase != "Succeeded" && pod.status.phase != "Failed" &&
         !pod.metadata.deletionTimestamp;
}

std::string labelOf(const api::Pod& pod, std::string_view key) {
  auto it = pod.metadata.labels.find(key);
  return it == pod.metadata.labels.end() ? std::string() : it->second;
}

Result<api::Pod> markPodSucceeded(ClusterState& state, std::string_view ns, std::string_view name,
                                  Time now) {
  return state.pods.modify(ns, name, "", [&](api::Pod& pod) {
    pod.status.phase = "Succeeded";
    setCondition(pod.status.conditions, api::Condition{"Ready", "False", "PodCompleted", "", {}, 0},
                 now);
    return Change::kMetadata;
  });
}

}  // namespace attune::sim
