// The recreate fallback's decisions: which kubelet states call for recreation and when, the
// RestoreAction an eviction replaces, and the pods never evicted.
#include "rollout/recreate_fallback.h"

#include <gtest/gtest.h>

#include "support/pod_builder.h"

namespace attune::rollout {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using testing::PodBuilder;
using testing::resources;

const Time kNow = Time(std::chrono::sys_days(std::chrono::year(2026) / 1 / 5)) + 10h;
const api::WorkloadRef kWeb{"shop", "Deployment", "web"};

// A pod resized 300m -> 600m (its spec holds the target) with the given resize condition.
api::Pod resizedPod(std::string name, std::string_view type, std::string_view reason, Time since) {
  api::Pod pod = PodBuilder("shop", std::move(name))
                     .node("n1")
                     .container("app", resources("600m", "256Mi", "", ""))
                     .ready(kNow - 1h)
                     .build();
  pod.metadata.uid = "uid-" + pod.metadata.name;
  if (!type.empty()) {
    api::Condition c;
    c.type = std::string(type);
    c.status = "True";
    c.reason = std::string(reason);
    c.lastTransitionTime = since;
    pod.status.conditions.push_back(c);
  }
  return pod;
}

ObservedPod observed(const api::Pod& pod, const api::WorkloadRef& ref = kWeb) {
  safety::ResizeRecord record{.resizedAt = kNow - 10min, .workload = ref.name, .policy = "web"};
  record.containers.push_back({.name = "app",
                               .original = {.cpuRequest = 300_m, .memoryRequest = 256_Mi},
                               .target = {.cpuRequest = 600_m, .memoryRequest = 256_Mi},
                               .restartCount = 0});
  return {.workload = ref, .pod = &pod, .record = record, .verdict = std::nullopt};
}

std::map<api::WorkloadRef, RecreateWorkload> workloadsWith(int running) {
  return {{kWeb, RecreateWorkload{.metadata = {}, .runningPods = running}}};
}

TEST(RecreateFallbackTest, StallsAreRecognisedWithTheirTimeouts) {
  EXPECT_EQ(stalledResize(resizedPod("a", api::kPodResizePending, "Infeasible", kNow), kNow)->cause,
            "infeasible");
  EXPECT_EQ(stalledResize(resizedPod("a", api::kPodResizeInProgress, "Error", kNow), kNow)->cause,
            "resize-error");
  std::optional<Duration> recheck;
  EXPECT_FALSE(stalledResize(resizedPod("a", api::kPodResizePending, "Deferred", kNow - 4min), kNow,
                             &recheck));
  EXPECT_EQ(recheck, 1min);
  EXPECT_EQ(
      stalledResize(resizedPod("a", api::kPodResizePending, "Deferred", kNow - 5min), kNow)->cause,
      "deferred-timeout");
  EXPECT_FALSE(stalledResize(resizedPod("a", api::kPodResizeInProgress, "", kNow - 59min), kNow));
  EXPECT_EQ(stalledResize(resizedPod("a", api::kPodResizeInProgress, "", kNow - 1h), kNow)->cause,
            "in-progress-timeout");
  EXPECT_FALSE(stalledResize(resizedPod("a", "", "", kNow), kNow));
}

TEST(RecreateFallbackTest, AnEvictionReplacesTheRestoreOfAnInfeasibleResize) {
  const api::Pod pod = resizedPod("web-1", api::kPodResizePending, "Infeasible", kNow);
  const std::vector<ObservedPod> pods = {observed(pod)};
  Plan plan;
  plan.actions.emplace_back(RestoreAction{.workload = kWeb, .pod = "web-1"});
  planRecreateFallback(pods, workloadsWith(2), kNow, plan);
  EXPECT_TRUE(plan.all<RestoreAction>().empty());
  const auto evictions = plan.all<EvictAction>();
  ASSERT_EQ(evictions.size(), 1u);
  EXPECT_EQ(evictions[0]->pod, "web-1");
  EXPECT_EQ(evictions[0]->podUid, "uid-web-1");
  EXPECT_EQ(evictions[0]->cause, "infeasible");
  EXPECT_TRUE(evictions[0]->workloadAnnotations.contains("attune.io/last-resize-time"));
}

TEST(RecreateFallbackTest, TheOnlyPodAndBarePodsAreNeverEvicted) {
  const api::Pod pod = resizedPod("web-1", api::kPodResizePending, "Infeasible", kNow);
  const std::vector<ObservedPod> pods = {observed(pod)};
  Plan single;
  single.actions.emplace_back(RestoreAction{.workload = kWeb, .pod = "web-1"});
  planRecreateFallback(pods, workloadsWith(1), kNow, single);
  EXPECT_TRUE(single.all<EvictAction>().empty());
  EXPECT_EQ(single.all<RestoreAction>().size(), 1u) << "restored as under InPlaceOnly";
  ASSERT_EQ(single.all<EventAction>().size(), 1u);
  EXPECT_EQ(single.all<EventAction>()[0]->reason, "EvictionBlocked");

  auto optedIn = workloadsWith(1);
  optedIn[kWeb].metadata.annotations["attune.io/recreate-single-replica"] = "true";
  Plan allowed;
  planRecreateFallback(pods, optedIn, kNow, allowed);
  EXPECT_EQ(allowed.all<EvictAction>().size(), 1u);

  const api::WorkloadRef bare{"shop", "Pod", "web-1"};
  const std::vector<ObservedPod> barePods = {observed(pod, bare)};
  std::map<api::WorkloadRef, RecreateWorkload> bareWorkloads = {
      {bare, RecreateWorkload{.metadata = {}, .runningPods = 5}}};
  Plan none;
  planRecreateFallback(barePods, bareWorkloads, kNow, none);
  EXPECT_TRUE(none.all<EvictAction>().empty());
}

}  // namespace
}  // namespace attune::rollout
