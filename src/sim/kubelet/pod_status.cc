#include "sim/kubelet/pod_status.h"

#include <algorithm>
#include <string>
#include <utility>

#include "sim/control/conditions.h"

namespace attune::sim {
namespace {

api::ContainerStatus& statusFor(std::vector<api::ContainerStatus>& statuses,
                                std::string_view name) {
  auto it =
      std::find_if(statuses.begin(), statuses.end(), [&](const auto& s) { return s.name == name; });
  if (it != statuses.end()) return *it;
  api::ContainerStatus created;
  created.name = std::string(name);
  statuses.push_back(std::move(created));
  return statuses.back();
}

const api::Container* specFor(const api::PodSpec& spec, const ContainerRuntime& c) {
  const auto& list = c.sidecar ? spec.initContainers : spec.containers;
  auto it = std::find_if(list.begin(), list.end(), [&](const auto& x) { return x.name == c.name; });
  return it == list.end() ? nullptr : &*it;
}

// "back-off 20s restarting failed container=app pod=web_team(uid)", as the kubelet writes.
std::string backOffMessage(const PodRuntime& pod, const ContainerRuntime& c) {
  Duration delay{};
  if (c.restartAt && c.lastTerminated && c.lastTerminated->finishedAt) {
    delay = *c.restartAt - *c.lastTerminated->finishedAt;
  }
  return "back-off " + formatDuration(delay) + " restarting failed container=" + c.name +
         " pod=" + pod.name + "_" + pod.namespace_ + "(" + pod.uid + ")";
}

api::ContainerState stateOf(const PodRuntime& pod, const ContainerRuntime& c) {
  api::ContainerState state;
  if (c.running) {
    state.running = api::ContainerStateRunning{c.runningSince};
  } else if (c.terminated) {
    state.terminated = c.terminated;
  } else if (c.restartAt) {
    state.waiting =
        api::ContainerStateWaiting{std::string(kCrashLoopBackOff), backOffMessage(pod, c)};
  }
  return state;
}

}  // namespace

bool renderPodStatus(api::Pod& pod, const PodRuntime& runtime, Time now) {
  api::PodStatus& status = pod.status;
  const api::PodStatus before = status;
  status.phase = runtime.phase;
  if (!runtime.reason.empty()) {
    status.reason = runtime.reason;
    status.message = runtime.message;
  }
  if (!status.startTime) status.startTime = now;

  for (const ContainerRuntime& c : runtime.containers) {
    auto& list = c.sidecar ? status.initContainerStatuses : status.containerStatuses;
    api::ContainerStatus& s = statusFor(list, c.name);
    if (!s.resources) {
      if (const api::Container* spec = specFor(pod.spec, c)) {
        s.resources = spec->resources;
        s.allocatedResources = spec->resources.requests;
      }
    }
    s.ready = c.ready;
    s.started = c.running;
    s.restartCount = c.restartCount;
    s.state = stateOf(runtime, c);
    s.lastState = api::ContainerState{};
    if (c.lastTerminated) s.lastState.terminated = c.lastTerminated;
  }
  for (const api::Container& init : pod.spec.initContainers) {
    if (init.isSidecar()) continue;
    api::ContainerStatus& s = statusFor(status.initContainerStatuses, init.name);
    if (!s.state.terminated) {
      s.ready = true;
      s.started = false;
      s.state = api::ContainerState{};
      s.state.terminated =
          api::ContainerStateTerminated{0, std::string(kCompleted), "", status.startTime, now};
    }
  }

  std::string reason;
  if (runtime.phase == "Succeeded") {
    reason = std::string(kPodCompleted);
  } else if (runtime.phase == "Failed") {
    reason = std::string(kPodFailed);
  } else if (!runtime.ready) {
    reason = std::string(kContainersNotReady);
  }
  const std::string ready = runtime.ready ? "True" : "False";
  setCondition(status.conditions, api::Condition{"Initialized", "True", "", "", {}, 0}, now);
  setCondition(status.conditions, api::Condition{"ContainersReady", ready, reason, "", {}, 0}, now);
  setCondition(status.conditions, api::Condition{"Ready", ready, reason, "", {}, 0}, now);
  return !(status == before);
}

}  // namespace attune::sim
