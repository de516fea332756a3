// A fixture for the kubelet model tests: a ClusterState on a SimulatedClock, nodes and pods
// created directly in the stores, and usage models whose values the test sets while it runs.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/quantity.h"
#include "sim/cluster/cluster_state.h"
#include "sim/kubelet/kubelet.h"

namespace attune::sim::testing {

using namespace std::chrono_literals;
using namespace attune::literals;

// What a FakeModel returns; the test changes it between ticks.
struct FakeUsage {
  double cpu = 0;
  Bytes memory{0};
  Bytes leakPerMinute{0};          // the working set grows by this per minute of the run
  std::optional<Duration> runFor;  // the container's work is done after this long
};

class FakeModel final : public UsageModel {
 public:
  explicit FakeModel(std::shared_ptr<FakeUsage> usage) : usage_(std::move(usage)) {}
  Usage usage(Time, Duration sinceStart) override {
    const double minutes = std::chrono::duration<double, std::ratio<60>>(sinceStart).count();
    const auto leak =
        static_cast<std::int64_t>(static_cast<double>(usage_->leakPerMinute.value()) * minutes);
    return Usage{usage_->cpu, usage_->memory + Bytes(leak)};
  }
  bool finished(Time, Duration sinceStart) const override {
    return usage_->runFor && sinceStart >= *usage_->runFor;
  }

 private:
  std::shared_ptr<FakeUsage> usage_;
};

// One container of a test pod; empty quantities are left unset.
struct TestContainer {
  std::string name = "app";
  std::string cpuRequest;
  std::string memoryRequest;
  std::string cpuLimit;
  std::string memoryLimit;
  std::vector<api::ContainerResizePolicy> resizePolicy;
  bool sidecar = false;
};

inline Quantity q(std::string_view text) { return Quantity::parse(text).value(); }

class KubeletTest : public ::testing::Test {
 protected:
  const Time kT0 = *parseRfc3339("2025-01-01T00:00:00Z");

  // The usage of container `container` of pod `pod` (created on first use, zero).
  FakeUsage& usage(const std::string& pod, const std::string& container = "app") {
    auto& u = usage_[pod + "/" + container];
    if (!u) u = std::make_shared<FakeUsage>();
    return *u;
  }

  // A node with `cpu` and `memory` as capacity and allocatable.
  void addNode(std::string name, std::string_view cpu, std::string_view memory) {
    api::Node node;
    node.metadata.name = std::move(name);
    node.status.capacity.cpu = q(cpu);
    node.status.capacity.memory = q(memory);
    node.status.allocatable = node.status.capacity;
    node.status.conditions.push_back(api::Condition{"Ready", "True", "KubeletReady", "", {}, 0});
    ASSERT_TRUE(state_.nodes.create(std::move(node)));
  }

  // A pending pod "team/<name>" bound to `node` ("" = unbound).
  void addPod(std::string name, std::string node, std::vector<TestContainer> containers,
              std::string restartPolicy = "Always", std::int32_t priority = 0) {
    api::Pod pod;
    pod.metadata.namespace_ = "team";
    pod.metadata.name = std::move(name);
    pod.spec.nodeName = std::move(node);
    pod.spec.restartPolicy = std::move(restartPolicy);
    pod.spec.priority = priority;
    pod.status.phase = "Pending";
    for (const auto& tc : containers) {
      api::Container c;
      c.name = tc.name;
      c.image = "app:1";
      if (!tc.cpuRequest.empty()) c.resources.requests.cpu = q(tc.cpuRequest);
      if (!tc.memoryRequest.empty()) c.resources.requests.memory = q(tc.memoryRequest);
      if (!tc.cpuLimit.empty()) c.resources.limits.cpu = q(tc.cpuLimit);
      if (!tc.memoryLimit.empty()) c.resources.limits.memory = q(tc.memoryLimit);
      c.resizePolicy = tc.resizePolicy;
      if (tc.sidecar) {
        c.restartPolicy = "Always";
        pod.spec.initContainers.push_back(std::move(c));
      } else {
        pod.spec.containers.push_back(std::move(c));
      }
    }
    auto created = state_.createPod(std::move(pod));
    ASSERT_TRUE(created) << created.error().toString();
  }

  Kubelet& kubelet() {
    if (!kubelet_) {
      kubelet_.emplace(
          options_, [this](const api::Pod& pod, const api::Container& c) -> Result<UsageModelPtr> {
            if (failingModels_.contains(pod.metadata.name)) {
              return fail(ErrorCode::kInvalidArgument, "no such trace", "model.trace");
            }
            usage(pod.metadata.name, c.name);
            return std::make_unique<FakeModel>(usage_[pod.metadata.name + "/" + c.name]);
          });
    }
    return *kubelet_;
  }

  // Advances the clock by `dt` and runs one kubelet tick.
  void tick(Duration dt = 1s) {
    clock_.advance(dt);
    auto ok = kubelet().tick(state_, clock_.now(), dt);
    ASSERT_TRUE(ok) << ok.error().toString();
  }
  // Ticks of `dt` until `total` has passed.
  void runFor(Duration total, Duration dt = 1s) {
    for (Duration t{}; t < total; t += dt) tick(dt);
  }

  const api::Pod& pod(std::string_view name) {
    const api::Pod* p = state_.pods.find("team", name);
    EXPECT_NE(p, nullptr) << name;
    return *p;
  }
  const api::ContainerStatus& status(std::string_view podName, std::string_view container = "app") {
    const api::ContainerStatus* s = pod(podName).status.findContainerStatus(container);
    EXPECT_NE(s, nullptr) << podName << "/" << container;
    return *s;
  }
  bool podReady(std::string_view name) {
    const api::Condition* c = api::findCondition(pod(name).status.conditions, "Ready");
    return c != nullptr && c->isTrue();
  }
  const PodRuntime& podRuntime(std::string_view name) {
    const PodRuntime* found = nullptr;
    for (const auto& [uid, p] : kubelet().pods()) {
      if (p.name == name) found = &p;
    }
    EXPECT_NE(found, nullptr) << name;
    return *found;
  }
  const ContainerRuntime& runtime(std::string_view podName, std::string_view container = "app") {
    for (const auto& c : podRuntime(podName).containers) {
      if (c.name == container) return c;
    }
    ADD_FAILURE() << "no runtime for " << podName << "/" << container;
    return podRuntime(podName).containers.front();
  }
  const NodeRuntime& node(std::string_view name) { return kubelet().nodes().find(name)->second; }
  const api::Condition* nodeCondition(std::string_view node, std::string_view type) {
    return api::findCondition(state_.nodes.find("", node)->status.conditions, type);
  }

  SimulatedClock clock_{kT0};
  ClusterState state_{clock_};
  KubeletOptions options_;
  std::set<std::string> failingModels_;

 private:
  std::map<std::string, std::shared_ptr<FakeUsage>> usage_;
  std::optional<Kubelet> kubelet_;
};

}  // namespace attune::sim::testing
