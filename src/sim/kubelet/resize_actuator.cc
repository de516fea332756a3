#include "sim/kubelet/resize_actuator.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace attune::sim {
namespace {

using Kind = ResizeDecision::Kind;

// Pod-level cpu and memory requests.
struct Requests {
  Millicores cpu;
  Bytes memory;

  void add(const api::ResourceList& list) {
    if (list.cpu) cpu += list.cpu->toMillicores();
    if (list.memory) memory += list.memory->toBytes();
  }
};

// A container that holds node resources (regular or sidecar) and its status, if any.
struct Slot {
  const api::Container* spec;
  api::ContainerStatus* status;
};

api::ContainerStatus* findStatus(std::vector<api::ContainerStatus>& statuses,
                                 std::string_view name) {
  auto it =
      std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.name == name; });
  return it == statuses.end() ? nullptr : &*it;
}

// `pod`'s slots; the status pointers point into `pod.status`.
std::vector<Slot> slotsOf(api::Pod& pod) {
  std::vector<Slot> slots;
  for (const auto& c : pod.spec.containers) {
    slots.push_back({&c, findStatus(pod.status.containerStatuses, c.name)});
  }
  for (const auto& c : pod.spec.initContainers) {
    if (c.isSidecar()) slots.push_back({&c, findStatus(pod.status.initContainerStatuses, c.name)});
  }
  return slots;
}

bool started(const Slot& s) { return s.status != nullptr && s.status->resources.has_value(); }

bool outstanding(const Slot& s) {
  return started(s) && (s.status->allocatedResources != s.spec->resources.requests ||
                        *s.status->resources != s.spec->resources);
}

Requests desiredRequests(api::Pod& pod) {
  Requests r;
  r.add(pod.spec.overhead);
  for (const Slot& s : slotsOf(pod)) r.add(s.spec->resources.requests);
  return r;
}

// Calls `f(container, status or nullptr)` for every container that holds node resources, as
// slotsOf lists them, without copying the pod.
template <typename F>
void forEachSlot(const api::Pod& pod, F&& f) {
  const auto statusOf = [](const std::vector<api::ContainerStatus>& statuses,
                           std::string_view name) -> const api::ContainerStatus* {
    auto it = std::find_if(statuses.begin(), statuses.end(),
                           [&](const auto& s) { return s.name == name; });
    return it == statuses.end() ? nullptr : &*it;
  };
  for (const auto& c : pod.spec.containers) f(c, statusOf(pod.status.containerStatuses, c.name));
  for (const auto& c : pod.spec.initContainers) {
    if (c.isSidecar()) f(c, statusOf(pod.status.initContainerStatuses, c.name));
  }
}

Requests allocatedRequests(const api::Pod& pod) {
  Requests r;
  r.add(pod.spec.overhead);
  forEachSlot(pod, [&](const api::Container& c, const api::ContainerStatus* status) {
    const bool allocated = status != nullptr && !status->allocatedResources.empty();
    r.add(allocated ? status->allocatedResources : c.resources.requests);
  });
  return r;
}

bool active(const api::Pod& pod, std::string_view nodeName) {
  return pod.spec.nodeName == nodeName && pod.status.phase != "Succeeded" &&
         pod.status.phase != "Failed";
}

// The restartPolicy of `c`'s resizePolicy for `resource`; NotRequired by default.
bool restartsOnResize(const api::Container& c, std::string_view resource) {
  return std::any_of(c.resizePolicy.begin(), c.resizePolicy.end(), [&](const auto& p) {
    return p.resourceName == resource && p.restartPolicy == "RestartContainer";
  });
}

bool changed(const api::ResourceRequirements& a, const api::ResourceRequirements& b,
             std::string_view resource) {
  auto same = [&](const api::ResourceList& x, const api::ResourceList& y) {
    const Quantity* qx = x.find(resource);
    const Quantity* qy = y.find(resource);
    return qx == nullptr ? qy == nullptr : (qy != nullptr && *qx == *qy);
  };
  return !same(a.requests, b.requests) || !same(a.limits, b.limits);
}

// The message of a node that cannot fit `want` (pod requests) within `room`, or nullopt.
std::optional<std::string> shortfall(const Requests& want, const std::optional<Millicores>& cpu,
                                     const std::optional<Bytes>& memory, std::string_view what) {
  if (cpu && want.cpu > *cpu) {
    return "Node didn't have enough " + std::string(what) +
           ": cpu, requested: " + formatCpu(want.cpu) + ", " + std::string(what) + ": " +
           formatCpu(*cpu);
  }
  if (memory && want.memory > *memory) {
    return "Node didn't have enough " + std::string(what) +
           ": memory, requested: " + formatMemory(want.memory) + ", " + std::string(what) + ": " +
           formatMemory(*memory);
  }
  return std::nullopt;
}

// A refused memory-limit decrease of one of `pod`'s containers, or nullopt.
std::optional<std::string> memoryLimitError(api::Pod& pod, const ContainerMemoryUsage& usage) {
  for (const Slot& s : slotsOf(pod)) {
    if (!outstanding(s) || restartsOnResize(*s.spec, "memory")) continue;
    const auto& next = s.spec->resources.limits.memory;
    const auto& prev = s.status->resources->limits.memory;
    if (!next || (prev && *next >= *prev)) continue;
    const Bytes used = usage ? usage(pod, s.spec->name) : Bytes(0);
    if (next->toBytes() < used) {
      return "attempting to set container \"" + s.spec->name + "\" memory limit (" +
             formatMemory(next->toBytes()) + ") below current usage (" + formatMemory(used) + ")";
    }
  }
  return std::nullopt;
}

void restart(api::ContainerStatus& status, Time now) {
  api::ContainerStateTerminated exit;
  exit.exitCode = kResizeRestartExitCode;
  exit.reason = std::string(kResizeRestartReason);
  exit.message = "Container " + status.name + " resize requires restart";
  if (status.state.running) exit.startedAt = status.state.running->startedAt;
  exit.finishedAt = now;
  status.lastState = api::ContainerState{};
  status.lastState.terminated = std::move(exit);
  status.state = api::ContainerState{};
  status.state.running = api::ContainerStateRunning{now};
  ++status.restartCount;
}

void dropCondition(api::PodStatus& status, std::string_view type) {
  std::erase_if(status.conditions, [&](const auto& c) { return c.type == type; });
}

void setCondition(api::PodStatus& status, std::string_view type, std::string_view reason,
                  std::string message, std::int64_t generation, Time now) {
  api::Condition next{std::string(type),  "True", std::string(reason),
                      std::move(message), now,    generation};
  auto it = std::find_if(status.conditions.begin(), status.conditions.end(),
                         [&](const auto& c) { return c.type == type; });
  if (it == status.conditions.end()) {
    status.conditions.push_back(std::move(next));
    return;
  }
  if (it->status == next.status && it->reason == next.reason) {
    next.lastTransitionTime = it->lastTransitionTime;
  }
  *it = std::move(next);
}

// Decides and writes `pod`'s resize into `pod.status`, given the node's allocatable and the
// other pods' allocated requests.
ResizeDecision decide(api::Pod& pod, const api::ResourceList& allocatable, const Requests& others,
                      Time now, const ContainerMemoryUsage& usage) {
  ResizeDecision d{pod.metadata.namespace_, pod.metadata.name, Kind::kApplied, {}};
  const std::int64_t gen = pod.metadata.generation;
  api::PodStatus& status = pod.status;
  status.observedGeneration = gen;

  std::optional<Millicores> cpu;
  std::optional<Bytes> memory;
  if (allocatable.cpu) cpu = allocatable.cpu->toMillicores();
  if (allocatable.memory) memory = allocatable.memory->toBytes();
  const Requests want = desiredRequests(pod);
  if (auto msg = shortfall(want, cpu, memory, "capacity")) {
    d = {d.namespace_, d.name, Kind::kInfeasible, *msg};
    setCondition(status, api::kPodResizePending, kResizeInfeasible, *msg, gen, now);
    return d;
  }
  if (cpu) *cpu -= others.cpu;
  if (memory) *memory -= others.memory;
  if (auto msg = shortfall(want, cpu, memory, "free")) {
    d = {d.namespace_, d.name, Kind::kDeferred, *msg};
    setCondition(status, api::kPodResizePending, kResizeDeferred, *msg, gen, now);
    return d;
  }

  // Admitted: allocate, then actuate.
  dropCondition(status, api::kPodResizePending);
  const auto error = memoryLimitError(pod, usage);
  for (const Slot& s : slotsOf(pod)) {
    if (!outstanding(s)) continue;
    s.status->allocatedResources = s.spec->resources.requests;
    if (error) continue;
    const bool restartNeeded = (restartsOnResize(*s.spec, "cpu") &&
                                changed(*s.status->resources, s.spec->resources, "cpu")) ||
                               (restartsOnResize(*s.spec, "memory") &&
                                changed(*s.status->resources, s.spec->resources, "memory"));
    s.status->resources = s.spec->resources;
    if (restartNeeded) restart(*s.status, now);
  }
  if (error) {
    d = {d.namespace_, d.name, Kind::kError, *error};
    setCondition(status, api::kPodResizeInProgress, kResizeError, *error, gen, now);
  } else {
    dropCondition(status, api::kPodResizeInProgress);
  }
  return d;
}

}  // namespace

Result<std::vector<ResizeDecision>> actuateResizes(ClusterState& state, std::string_view nodeName,
                                                   Time now, const ContainerMemoryUsage& usage) {
  std::vector<PodName> everyPod;
  state.pods.forEach([&](const api::Pod& pod) {
    everyPod.emplace_back(pod.metadata.namespace_, pod.metadata.name);
  });
  return actuateResizes(state, nodeName, std::move(everyPod), now, usage);
}

Result<std::vector<ResizeDecision>> actuateResizes(ClusterState& state, std::string_view nodeName,
                                                   std::vector<PodName> candidates, Time now,
                                                   const ContainerMemoryUsage& usage) {
  const api::Node* node = state.nodes.find("", nodeName);
  if (node == nullptr) return std::unexpected(notFoundError("nodes", nodeName));
  const api::ResourceList allocatable = node->status.allocatable;

  // The node's active pods, in (namespace, name) order, and the requests allocated to them all.
  std::ranges::sort(candidates);
  candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  std::vector<std::pair<std::string, std::string>> onNode;
  Requests allocated;
  for (const auto& [ns, name] : candidates) {
    const api::Pod* pod = state.pods.find(ns, name);
    if (pod == nullptr || !active(*pod, nodeName)) continue;
    onNode.emplace_back(ns, name);
    const Requests r = allocatedRequests(*pod);
    allocated.cpu += r.cpu;
    allocated.memory += r.memory;
  }

  std::vector<ResizeDecision> decisions;
  for (const auto& [ns, name] : onNode) {
    const api::Pod& current = *state.pods.find(ns, name);
    bool any = false;  // a resize outstanding (outstanding(), read in place)
    forEachSlot(current, [&](const api::Container& c, const api::ContainerStatus* status) {
      any = any || (status != nullptr && status->resources.has_value() &&
                    (status->allocatedResources != c.resources.requests ||
                     *status->resources != c.resources));
    });
    if (!any) continue;

    // The other pods' requests as allocated now (an earlier pod's resize may have changed the
    // total): the node's total without this pod's own.
    const Requests own = allocatedRequests(current);
    const Requests others{allocated.cpu - own.cpu, allocated.memory - own.memory};

    ResizeDecision decision;
    Requests after = own;
    auto written = state.pods.modify(ns, name, {}, [&](api::Pod& pod) -> Result<Change> {
      const api::PodStatus before = pod.status;
      decision = decide(pod, allocatable, others, now, usage);
      after = allocatedRequests(pod);
      return pod.status == before ? Change::kNone : Change::kMetadata;
    });
    if (!written) return std::unexpected(written.error());
    allocated.cpu += after.cpu - own.cpu;
    allocated.memory += after.memory - own.memory;
    decisions.push_back(std::move(decision));
  }
  return decisions;
}

}  // namespace attune::sim
