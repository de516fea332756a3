// A small simulated cluster for the sim/telemetry tests: pods created in a ClusterState, and
// kubelet runtime maps the tests fill by hand (no Kubelet), recorded one 60-second tick at a
// time.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>

#include "core/clock.h"
#include "sim/cluster/cluster_state.h"
#include "sim/kubelet/kubelet.h"
#include "sim/telemetry/recorder.h"
#include "unit/sim/cluster/pod_builder.h"
#include "unit/sim/control/control_builders.h"

namespace attune::sim::testing {

inline constexpr Duration kTick = std::chrono::seconds(60);

class TelemetryFixture {
 public:
  explicit TelemetryFixture(RecorderOptions options = {}, Time start = fixedTime())
      : recorder(options), clock(start) {}

  // Creates `pod` bound to `node` in the state and a runtime entry whose containers are running
  // with zero counters; returns the runtime entry (keyed by the pod's uid).
  PodRuntime& addPod(api::Pod pod, const std::string& node = "n1") {
    pod.spec.nodeName = node;
    for (const auto& c : pod.spec.containers) {
      api::ContainerStatus s;
      s.name = c.name;
      s.state.running = api::ContainerStateRunning{clock.now()};
      pod.status.containerStatuses.push_back(s);
    }
    auto created = state.createPod(std::move(pod));
    EXPECT_TRUE(created.has_value());
    PodRuntime runtime;
    runtime.namespace_ = created->metadata.namespace_;
    runtime.name = created->metadata.name;
    runtime.uid = created->metadata.uid;
    runtime.node = node;
    for (const auto& c : created->spec.containers) {
      ContainerRuntime r;
      r.name = c.name;
      r.running = true;
      runtime.containers.push_back(std::move(r));
    }
    return pods.insert_or_assign(runtime.uid, std::move(runtime)).first->second;
  }

  NodeRuntime& addNode(const std::string& name) {
    NodeRuntime node;
    node.name = name;
    node.started = true;
    return nodes.insert_or_assign(name, node).first->second;
  }

  ContainerRuntime& container(const std::string& ns, const std::string& pod,
                              const std::string& name) {
    for (auto& [uid, p] : pods) {
      if (p.namespace_ != ns || p.name != pod) continue;
      for (auto& c : p.containers) {
        if (c.name == name) return c;
      }
    }
    ADD_FAILURE() << "no runtime container " << ns << "/" << pod << "/" << name;
    static ContainerRuntime none;
    return none;
  }

  // One tick of a container: `cores` of CPU for 60 s, 600 CFS periods of which `throttled` are
  // throttled, `psiCores` × 60 s waiting, and working set `memory`.
  static void run(ContainerRuntime& c, double cores, Bytes memory, std::uint64_t throttled = 0,
                  double psiCores = 0) {
    c.cpuUsageSecondsTotal += cores * 60;
    c.cfsPeriodsTotal += 600;
    c.cfsThrottledPeriodsTotal += throttled;
    c.psiCpuWaitingSecondsTotal += psiCores * 60;
    c.memoryWorkingSet = memory;
  }

  // Advances the clock by one tick and records.
  void tick() {
    clock.advance(kTick);
    recorder.record(clock.now(), state, pods, nodes);
  }

  // fixedTime() (the default start) + `minutes`.
  static Time at(int minutes) { return fixedTime() + std::chrono::minutes(minutes); }

  Recorder recorder;
  SimulatedClock clock;
  ClusterState state{clock};
  std::map<std::string, PodRuntime, std::less<>> pods;
  std::map<std::string, NodeRuntime, std::less<>> nodes;
};

}  // namespace attune::sim::testing
