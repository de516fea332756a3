// Plans carried out together (ControllerOptions::actuationBatch): over an api that runs tasks
// several at once, the passes whose plans write hand their actuation to ClusterApi::runTasks,
// at most a batch at a time; each pod's writes keep their order (its record before its resize,
// the resize before its workload's cooldown), and the cluster, the statuses and the actions
// reported end as when each pass carries out its own plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "api/forwarding_cluster_api.h"
#include "api/policy/policy_codec.h"
#include "safety/annotations.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

// What the controller's writes looked like, kept by the test (the harness owns the api).
struct Seen {
  std::vector<std::size_t> batches;  // the size of each runTasks call
  // Each pod's writes in their order: "record" (annotations that set a resize record), "clear"
  // (that remove it), other "annotations", "resize", and "cooldown" for its workload's
  // annotations, written right after.
  std::map<std::string, std::vector<std::string>> writes;
  bool inTasks = false;     // a runTasks call is running
  std::size_t outside = 0;  // pod writes made outside runTasks
};

// Claims four lanes and runs each call's tasks last first, one after another, on itself: a
// controller that relied on the order of the tasks (or carried a plan out anywhere else) would
// not end as the reference does.
class ReversedTasksApi final : public api::ForwardingClusterApi {
 public:
  ReversedTasksApi(api::ClusterApi& inner, Seen& seen) : ForwardingClusterApi(inner), seen_(seen) {}

  std::size_t taskLanes() const override { return 4; }
  void runTasks(std::span<const Task> tasks) override {
    seen_.batches.push_back(tasks.size());
    seen_.inTasks = true;
    for (auto it = tasks.rbegin(); it != tasks.rend(); ++it) (*it)(*this);
    seen_.inTasks = false;
  }

  Result<api::ObjectMeta> patchPodAnnotations(std::string_view ns, std::string_view name,
                                              const api::AnnotationChanges& changes,
                                              std::string_view resourceVersion) override {
    const auto at = changes.find(std::string(safety::kResizedAtAnnotation));
    note(ns, name,
         at == changes.end() ? "annotations" : (at->second.has_value() ? "record" : "clear"));
    lastPod_ = std::string(ns) + "/" + std::string(name);
    return ForwardingClusterApi::patchPodAnnotations(ns, name, changes, resourceVersion);
  }
  Result<api::Pod> resizePod(std::string_view ns, std::string_view name,
                             std::span<const api::ContainerResize> containers) override {
    note(ns, name, "resize");
    lastPod_ = std::string(ns) + "/" + std::string(name);
    return ForwardingClusterApi::resizePod(ns, name, containers);
  }
  Result<api::ObjectMeta> patchWorkloadAnnotations(api::WorkloadKind kind, std::string_view ns,
                                                   std::string_view name,
                                                   const api::AnnotationChanges& changes,
                                                   std::string_view resourceVersion) override {
    // The workload's cooldown follows its pod's resize: booked under that pod.
    if (!lastPod_.empty()) seen_.writes[lastPod_].push_back("cooldown");
    return ForwardingClusterApi::patchWorkloadAnnotations(kind, ns, name, changes, resourceVersion);
  }

 private:
  void note(std::string_view ns, std::string_view name, const char* what) {
    seen_.writes[std::string(ns) + "/" + std::string(name)].push_back(what);
    if (!seen_.inTasks) ++seen_.outside;
  }

  Seen& seen_;
  std::string lastPod_;
};

std::string eightPolicies() { return overRequestingWorkloads(8, 2); }

HarnessOptions reversed(Seen& seen, std::size_t batch) {
  HarnessOptions options;
  options.controller.actuationBatch = batch;
  options.wrapApi = [&seen](api::ClusterApi& cluster) -> std::unique_ptr<api::ClusterApi> {
    return std::make_unique<ReversedTasksApi>(cluster, seen);
  };
  return options;
}

TEST(ActuationBatchTest, PlansCarriedOutTogetherEndAsIfEachPassCarriedOutItsOwn) {
  Seen together;
  ScenarioHarness h(eightPolicies(), reversed(together, 3));
  Seen alone;
  ScenarioHarness reference(eightPolicies(), reversed(alone, 0));
  ASSERT_TRUE(h.usable());
  ASSERT_TRUE(reference.usable());
  h.run(3h);
  reference.run(3h);

  // Something was resized, and every plan that wrote went through runTasks, at most three at a
  // time; without a batch nothing did.
  const auto resized = h.actions(ActionRecord::Kind::kResized);
  ASSERT_GE(resized.size(), 8U) << api::encodePolicyJson(h.policy("apps", "web-0"));
  ASSERT_FALSE(together.batches.empty());
  for (std::size_t size : together.batches) {
    EXPECT_GE(size, 1U);
    EXPECT_LE(size, 3U);
  }
  EXPECT_EQ(together.outside, 0U);
  EXPECT_TRUE(alone.batches.empty());
  EXPECT_GT(alone.outside, 0U);

  // Each pod is resized only while its record is stored (set before the resize, removed after
  // the restore of a revert).
  for (const auto& [pod, writes] : together.writes) {
    bool recorded = false;
    for (const std::string& w : writes) {
      if (w == "record") recorded = true;
      if (w == "clear") recorded = false;
      if (w == "resize") {
        EXPECT_TRUE(recorded) << pod;
      }
    }
  }
  EXPECT_EQ(together.writes, alone.writes);

  // The same end: pods, statuses and the actions reported.
  for (int i = 0; i < 8; ++i) {
    const std::string name = "web-" + std::to_string(i);
    const std::vector<api::Pod> pods = h.pods("apps", name);
    const std::vector<api::Pod> expected = reference.pods("apps", name);
    ASSERT_EQ(pods.size(), expected.size()) << name;
    for (std::size_t p = 0; p < pods.size(); ++p) {
      EXPECT_EQ(pods[p].spec.containers, expected[p].spec.containers) << name;
      EXPECT_EQ(pods[p].metadata.annotations, expected[p].metadata.annotations) << name;
    }
    EXPECT_EQ(h.policy("apps", name).status, reference.policy("apps", name).status) << name;
  }
  // Booked in the order the passes were decided, those that wrote after the batch they were
  // carried out in: the same actions, each policy's in its order.
  const auto byPolicy = [](const std::vector<ActionRecord>& actions) {
    std::map<std::string, std::vector<std::string>> out;
    for (const ActionRecord& a : actions) {
      out[a.policy].push_back(std::string(toString(a.kind)) + " " + a.pod + " " + a.detail);
    }
    return out;
  };
  EXPECT_EQ(byPolicy(h.actions()), byPolicy(reference.actions()));
}

}  // namespace
}  // namespace attune::controller::testing
