// previewPasses: the plan of a policy's next pass, computed by the controller's own stages and
// carried out nowhere; without metrics nothing is planned to resize.
#include "controller/plan_preview.h"

#include <gtest/gtest.h>

#include "core/units.h"
#include "scenario_harness.h"

namespace attune::controller::testing {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;

// A controller that only recommends (its mode overridden) has watched `web` for 30 minutes:
// its pods are untouched and its policy (spec Auto) has recommendations.
class PlanPreviewTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HarnessOptions options;
    options.controller.modeOverride = api::UpdateMode::kRecommend;
    h_ = std::make_unique<ScenarioHarness>(
        scenarioYaml(
            workloadYaml({.name = "web", .replicas = 2}),
            policyYaml({.name = "web", .target = "web", .updateStrategy = "{type: Auto}"})),
        options);
    ASSERT_TRUE(h_->usable());
    h_->runMinutes(30);
  }

  Result<std::vector<PolicyPreview>> preview(metrics::MetricsSource& metrics) {
    return previewPasses(h_->sim().api(), metrics, h_->sim().clock(), ControllerOptions{},
                         {h_->policy("apps", "web")}, {"apps"});
  }

  std::unique_ptr<ScenarioHarness> h_;
};

TEST_F(PlanPreviewTest, PlansTheResizeTheNextPassWouldMakeAndWritesNothing) {
  const api::AttunePolicy before = h_->policy("apps", "web");
  const std::vector<api::Pod> podsBefore = h_->pods("apps", "web");
  const std::size_t eventsBefore = h_->events().size();
  ASSERT_FALSE(before.status.recommendations.empty());

  auto previews = preview(h_->sim().metrics());
  ASSERT_TRUE(previews.has_value()) << previews.error().toString();
  ASSERT_EQ(previews->size(), 1u);
  const PolicyPreview& p = previews->front();
  EXPECT_FALSE(p.invalid);
  EXPECT_FALSE(p.metricsError);
  ASSERT_EQ(p.recommended.size(), 1u);
  // Auto with maxConcurrentResizes 1: one pod resized this pass, the other waits.
  const auto resizes = p.plan.all<rollout::ResizeAction>();
  ASSERT_EQ(resizes.size(), 1u);
  EXPECT_EQ(resizes[0]->workload.name, "web");
  EXPECT_NE(resizes[0]->message.find("app: cpu 500m -> "), std::string::npos)
      << resizes[0]->message;
  EXPECT_EQ(p.plan.waiting, 1);

  // Nothing was carried out, booked or written.
  EXPECT_EQ(h_->pods("apps", "web"), podsBefore);
  EXPECT_EQ(h_->policy("apps", "web"), before);
  EXPECT_EQ(h_->events().size(), eventsBefore);
}

TEST_F(PlanPreviewTest, WithoutMetricsNothingIsResized) {
  ObservedMetricsSource down(h_->sim().metrics());
  down.fail();
  auto previews = preview(down);
  ASSERT_TRUE(previews.has_value()) << previews.error().toString();
  const PolicyPreview& p = previews->front();
  ASSERT_TRUE(p.metricsError.has_value());
  EXPECT_NE(p.metricsError->find("unreachable"), std::string::npos) << *p.metricsError;
  EXPECT_TRUE(p.plan.all<rollout::ResizeAction>().empty());
}

}  // namespace
}  // namespace attune::controller::testing
