// Pods created without the pod admission webhook (admission_bypass.h): end to end on the
// simulated cluster, whose API server calls no webhook, so every pod it creates lacks the mark
// unless its template carries it; and the watch's rules on hand-built targets.
#include "controller/admission_bypass.h"

#include <gtest/gtest.h>

#include "scenario_harness.h"
#include "support/pod_builder.h"
#include "webhook/pod_sizing.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;

const api::WorkloadRef kWeb = api::workloadRef(api::WorkloadKind::kDeployment, "apps", "web");
constexpr std::string_view kBypassed =
    R"(attune_admission_webhook_bypassed_pods_total{namespace="apps",workload="web"})";
constexpr std::string_view kMarked = "    podAnnotations: {attune.io/admission-sized: sized}\n";

// Deployment apps/web (one replica) under policy `policy`, with the controller serving the
// webhook's sizing from `sizing`.
class BypassScenario {
 public:
  explicit BypassScenario(const PolicyYaml& policy, std::string_view workloadExtra = {})
      : harness_(
            scenarioYaml(workloadYaml({.name = "web", .workloadExtra = std::string(workloadExtra)}),
                         policyYaml(policy)),
            options()) {}

  ScenarioHarness& h() { return harness_; }

  // Runs 30 minutes (the passes publish the policy's sizing, if it has one, within them), then
  // evicts the workload's pod: its ReplicaSet creates another at the next tick. Returns whether
  // the sizing of web was published by then.
  bool sizeThenReplacePod() {
    EXPECT_TRUE(harness_.usable());
    if (!harness_.usable()) return false;
    harness_.runMinutes(30);
    api::Eviction eviction;
    eviction.metadata.namespace_ = "apps";
    eviction.metadata.name = harness_.pod("apps", "web").metadata.name;
    EXPECT_TRUE(harness_.sim().api().evictPod(eviction).has_value());
    return sizing_.lookup(kWeb).has_value();
  }

 private:
  HarnessOptions options() {
    HarnessOptions o;
    o.controller.admissionSizing = &sizing_;
    return o;
  }

  AdmissionSizing sizing_;  // before harness_: the controller keeps a pointer to it
  ScenarioHarness harness_;
};

TEST(AdmissionBypassTest, APodCreatedWithoutTheWebhookIsReportedOnceByEventAndCounter) {
  BypassScenario s({.name = "web", .target = "web"});
  ScenarioHarness& h = s.h();
  ASSERT_TRUE(s.sizeThenReplacePod());
  h.runMinutes(3);
  const api::Pod replacement = h.pod("apps", "web");
  auto events = h.events(kAdmissionWebhookBypassedReason);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].type, "Warning");
  EXPECT_EQ(events[0].involvedObject.kind, "Deployment");
  EXPECT_EQ(events[0].involvedObject.name, "web");
  EXPECT_NE(events[0].message.find(replacement.metadata.name), std::string::npos);
  EXPECT_NE(events[0].message.find("failurePolicy Ignore"), std::string::npos);
  EXPECT_EQ(h.metric(kBypassed), 1);

  h.runMinutes(10);  // ten more passes: the same pod is not reported again
  events = h.events(kAdmissionWebhookBypassedReason);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].count, 1);
  EXPECT_EQ(h.metric(kBypassed), 1);
}

TEST(AdmissionBypassTest, PodsCreatedBeforeTheSizingWasPublishedAreNotReported) {
  BypassScenario s({.name = "web", .target = "web"});
  ScenarioHarness& h = s.h();
  ASSERT_TRUE(s.sizeThenReplacePod());
  // The first pod dates from the start, before the first sizing.
  EXPECT_TRUE(h.events(kAdmissionWebhookBypassedReason).empty());
  EXPECT_EQ(h.metric(kBypassed), 0) << "the series exists from the first sizing";

  // A restarted controller publishes anew: the pod it reported before is older than that.
  h.runMinutes(3);
  ASSERT_EQ(h.metric(kBypassed), 1);
  h.restartController();
  h.runMinutes(10);
  EXPECT_EQ(h.events(kAdmissionWebhookBypassedReason).front().count, 1);
  EXPECT_EQ(h.metric(kBypassed), 1);
}

TEST(AdmissionBypassTest, APodTheWebhookMarkedIsNotReported) {
  BypassScenario s({.name = "web", .target = "web"}, kMarked);
  ScenarioHarness& h = s.h();
  ASSERT_TRUE(s.sizeThenReplacePod());
  h.runMinutes(5);
  ASSERT_TRUE(h.pod("apps", "web")
                  .metadata.annotations.contains(std::string(webhook::kAdmissionSizedAnnotation)));
  EXPECT_TRUE(h.events(kAdmissionWebhookBypassedReason).empty());
  EXPECT_EQ(h.metric(kBypassed), 0);
}

TEST(AdmissionBypassTest, PodsOfAWorkloadWithoutSizingAreNotReported) {
  // Recommend mode publishes no sizing: the webhook gives these pods no patch and no mark.
  BypassScenario s({.name = "web", .target = "web", .updateStrategy = "{type: Recommend}"});
  ScenarioHarness& h = s.h();
  ASSERT_FALSE(s.sizeThenReplacePod());
  h.runMinutes(5);
  EXPECT_TRUE(h.events(kAdmissionWebhookBypassedReason).empty());
  EXPECT_FALSE(h.metric(kBypassed).has_value());
}

// ---- The watch's rules on hand-built targets.

class AdmissionBypassWatchTest : public ::testing::Test {
 protected:
  const Time t0 = *parseRfc3339(kStart);

  // A running pod of web, created at `created`.
  api::Pod pod(std::string name, Time created) {
    api::Pod p = attune::testing::PodBuilder("apps", std::move(name)).node("node").build();
    p.metadata.uid = "uid-" + p.metadata.name;
    p.metadata.creationTimestamp = created;
    return p;
  }
  std::vector<BypassedPod> check(const std::vector<const api::Pod*>& pods, Time now) {
    targets_ = {TargetWorkload{.ref = kWeb, .pods = pods}};
    return watch_.newlyBypassed(targets_, sizing_, now, metrics_);
  }
  void publish() { sizing_.publish("apps/web", {{kWeb, {{.container = "app"}}}}); }

  AdmissionSizing sizing_;
  metrics::Registry registry_;
  OperatorMetrics metrics_{registry_};
  AdmissionBypassWatch watch_;
  std::vector<TargetWorkload> targets_;
};

TEST_F(AdmissionBypassWatchTest, TheGraceAfterTheFirstSizingAndOptedOutPodsAreLeftAlone) {
  publish();
  EXPECT_TRUE(check({}, t0).empty());  // sizedSince = t0
  const api::Pod inFlight = pod("web-a", t0 + kAdmissionBypassGrace - 1s);
  const api::Pod after = pod("web-b", t0 + kAdmissionBypassGrace);
  api::Pod skipped = pod("web-c", t0 + 5min);
  skipped.metadata.annotations["attune.io/skip"] = "true";
  const auto found = check({&inFlight, &after, &skipped}, t0 + 10min);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].pod, &after);
}

TEST_F(AdmissionBypassWatchTest, APassWithoutSizingStartsTheWaitAgain) {
  publish();
  EXPECT_TRUE(check({}, t0).empty());
  sizing_.withdraw("apps/web");
  EXPECT_TRUE(check({}, t0 + 10min).empty());
  publish();
  // Created while the workload had no sizing: the webhook had nothing to give it.
  const api::Pod meanwhile = pod("web-a", t0 + 15min);
  EXPECT_TRUE(check({&meanwhile}, t0 + 20min).empty());
  const api::Pod later = pod("web-b", t0 + 25min);
  EXPECT_EQ(check({&meanwhile, &later}, t0 + 30min).size(), 1u);
}

}  // namespace
}  // namespace attune::controller::testing
