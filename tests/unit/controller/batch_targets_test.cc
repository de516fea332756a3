// Jobs and CronJobs are recommend-only whatever the mode (the public operator's rule for batch
// targets): their recommendations are published, their pods are never resized nor evicted, and
// the workload gets one Skipped history entry and one ResizeSkipped Warning with reason
// BatchWorkload.
#include <gtest/gtest.h>

#include <string>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace attune::literals;
using Kind = ActionRecord::Kind;

// A batch workload of `kind` (Job or CronJob) with one container `app` over-provisioned
// fourfold (500m / 512Mi requested, 200m / 200Mi used) for `seconds` per run.
std::string batchWorkloadYaml(std::string_view kind, std::string_view name, std::string_view extra,
                              int seconds) {
  return "  - kind: " + std::string(kind) +
         "\n    namespace: apps\n    name: " + std::string(name) + "\n" + std::string(extra) +
         "    containers:\n    - name: app\n      requests: {cpu: 500m, memory: 512Mi}\n"
         "      limits: {cpu: \"1\", memory: 1Gi}\n"
         "      model: {kind: batch, cpuCores: 200m, memoryBytes: 200Mi, durationSeconds: " +
         std::to_string(seconds) + ", noise: 0}\n";
}

// policyYaml() targets a Deployment; the same policy for a workload of `kind`.
std::string batchPolicyYaml(std::string_view kind, std::string_view name, std::string_view mode) {
  std::string yaml =
      policyYaml({.name = std::string(name),
                  .target = std::string(name),
                  .updateStrategy = "{type: " + std::string(mode) + ", maxConcurrentResizes: 5}"});
  const std::string from = "{kind: Deployment, name: ";
  yaml.replace(yaml.find(from), from.size(), "{kind: " + std::string(kind) + ", name: ");
  return yaml;
}

bool untouched(const api::Pod& pod) {
  return specResources(pod, "app") == api::ResourceValues{.cpuRequest = 500_m,
                                                          .cpuLimit = 1000_m,
                                                          .memoryRequest = 512_Mi,
                                                          .memoryLimit = 1_Gi} &&
         !hasAnnotationPrefix(pod.metadata, "attune.io/");
}

// The workload `name` of `kind` was recommended and skipped once for BatchWorkload, nothing
// more: one history entry, one ResizeSkipped Warning on the workload.
void expectRecommendOnly(ScenarioHarness& h, std::string_view kind, std::string_view name) {
  SCOPED_TRACE(std::string(kind) + " " + std::string(name));
  const api::AttunePolicy p = h.policy("apps", name);
  ASSERT_EQ(p.status.recommendations.size(), 1u);
  ASSERT_EQ(p.status.recommendations[0].containers.size(), 1u);
  EXPECT_EQ(p.status.recommendations[0].kind, kind);
  EXPECT_TRUE(near(p.status.recommendations[0].containers[0].recommended.cpuRequest, 300_m));
  const auto skips = history(p, api::ResizeResult::kSkipped);
  ASSERT_EQ(skips.size(), 1u) << "one entry for a skip repeated every pass";
  EXPECT_EQ(skips[0].reason, "BatchWorkload");
  EXPECT_EQ(skips[0].workload, name);
  EXPECT_TRUE(skips[0].pod.empty());
  EXPECT_EQ(p.status.resizeHistory.size(), 1u) << "no Success, Failed or Evicted entry";
  int skipped = 0;
  for (const api::Event& e : h.events()) {
    if (e.involvedObject.name != name) continue;
    ++skipped;
    EXPECT_EQ(e.involvedObject.kind, kind);
    EXPECT_EQ(e.reason, "ResizeSkipped");
    EXPECT_EQ(e.type, "Warning");
    EXPECT_TRUE(e.message.starts_with("BatchWorkload: " + std::string(kind) + " " +
                                      std::string(name) + " is recommend-only"))
        << e.message;
  }
  EXPECT_EQ(skipped, 1);
  EXPECT_EQ(h.metric(R"(attune_resize_skipped_total{namespace="apps",workload=")" +
                     std::string(name) + R"(",reason="BatchWorkload"})"),
            1.0);
}

// In Auto mode a long Job's pod and the pods of every run of a CronJob keep the resources they
// were created with, while a Deployment under the same settings is resized.
TEST(BatchTargetsTest, JobsAndCronJobsAreRecommendOnlyInAutoMode) {
  ScenarioHarness h(scenarioYaml(
      batchWorkloadYaml("Job", "etl", "", 2 * 24 * 3600) +
          batchWorkloadYaml("CronJob", "report", "    schedule: \"*/30 * * * *\"\n", 25 * 60) +
          workloadYaml({.name = "web"}),
      batchPolicyYaml("Job", "etl", "Auto") + batchPolicyYaml("CronJob", "report", "Auto") +
          policyYaml({.name = "web", .target = "web"})));
  ASSERT_TRUE(h.usable());
  int reportPodsSeen = 0;
  for (int minute = 0; minute < 150; ++minute) {
    h.runMinutes(1);
    for (const api::Pod& pod : h.pods("apps", "etl")) EXPECT_TRUE(untouched(pod));
    for (const api::Pod& pod : h.pods("apps", "report")) {
      EXPECT_TRUE(untouched(pod)) << pod.metadata.name;
      ++reportPodsSeen;
    }
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(h.pods("apps", "etl").size(), 1u);
  EXPECT_GT(reportPodsSeen, 60) << "the CronJob ran";
  for (const ActionRecord& a : h.actions(Kind::kResized)) EXPECT_EQ(a.workload.name, "web");
  EXPECT_FALSE(h.actions(Kind::kResized).empty()) << "the Deployment is resized";
  expectRecommendOnly(h, "Job", "etl");
  expectRecommendOnly(h, "CronJob", "report");
}

}  // namespace
}  // namespace attune::controller::testing
