// The HPA target retune (hpa/retune.h): the scaling point target × request per pod kept over
// Resource and ContainerResource metrics, canary partial sums, rounding, bounds, what needs no
// retune, the remembered originals, restore.
#include "hpa/retune.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attune::hpa {
namespace {

using namespace attune::literals;

api::MetricSpec utilization(std::string resource, std::int32_t percent,
                            std::string container = "") {
  api::MetricSpec m;
  api::MetricValue t{
      .type = "Utilization", .value = {}, .averageValue = {}, .averageUtilization = percent};
  if (container.empty()) {
    m.type = "Resource";
    m.resource = api::ResourceMetricSource{std::move(resource), t};
  } else {
    m.type = "ContainerResource";
    m.containerResource =
        api::ContainerResourceMetricSource{std::move(resource), std::move(container), t};
  }
  return m;
}

api::HorizontalPodAutoscaler hpaOn(std::vector<api::MetricSpec> metrics) {
  api::HorizontalPodAutoscaler h;
  h.metadata.namespace_ = "apps";
  h.metadata.name = "web";
  h.metadata.annotations[std::string(kAutoTuneAnnotation)] = "true";
  h.spec.scaleTargetRef = {"apps/v1", "Deployment", "web"};
  h.spec.maxReplicas = 10;
  h.spec.metrics = std::move(metrics);
  return h;
}

api::ResourceValues cpu(std::int64_t m) { return {.cpuRequest = Millicores(m)}; }

// A pod with containers app and log-shipper at their original cpu requests, app planned at
// `appAfter`.
PodRequests pod(std::int64_t app, std::int64_t appAfter, std::int64_t shipper = 100) {
  return {.original = {{"app", cpu(app)}, {"log-shipper", cpu(shipper)}},
          .planned = {{"app", cpu(appAfter)}, {"log-shipper", cpu(shipper)}}};
}

std::int32_t targetOf(const api::HorizontalPodAutoscaler& h, std::size_t i = 0) {
  const api::MetricSpec& m = h.spec.metrics[i];
  return *(m.resource ? m.resource->target : m.containerResource->target).averageUtilization;
}

TEST(Retune, ResourceMetricKeepsTargetTimesPodRequestSum) {
  // Per pod 500m + 100m = 600m at 60 %: scaling point 360m. After: 250m + 100m = 350m.
  const auto h = hpaOn({utilization("cpu", 60)});
  const Retune r = retune(h, {.pods = {pod(500, 250), pod(500, 250)}, .policy = "apps/web"});
  ASSERT_TRUE(r.changed);
  EXPECT_EQ(targetOf(r.hpa), 103);  // 60 × 600 / 350 = 102.86
  EXPECT_NEAR(targetOf(r.hpa) * 350 / 100.0, 360, 0.5 * 350 / 100.0);
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].from, 60);
  EXPECT_EQ(r.changes[0].to, 103);
  EXPECT_FALSE(r.clamped);
  EXPECT_EQ(r.hpa.metadata.annotations.at(std::string(kOriginalTargetsAnnotation)),
            R"({"metrics":{"Resource/cpu":{"podRequest":"600m","retuned":103,"target":60}},)"
            R"("policy":"apps/web"})");
  EXPECT_EQ(retunedBy(r.hpa.metadata), "apps/web");
  EXPECT_NE(r.message.find("60% -> 103%"), std::string::npos) << r.message;
}

TEST(Retune, ContainerResourceMetricCountsItsContainerOnly) {
  const auto h = hpaOn({utilization("cpu", 60, "app")});
  const Retune r = retune(h, {.pods = {pod(500, 250)}, .policy = "apps/web"});
  EXPECT_EQ(targetOf(r.hpa), 120);  // 60 × 500 / 250; the log-shipper does not count
}

TEST(Retune, CanaryPlansCountEveryPodOfTheWorkload) {
  // One of four pods resized: 60 × 2000 / 1750 = 68.57.
  const auto h = hpaOn({utilization("cpu", 60, "app")});
  const Retune r = retune(
      h, {.pods = {pod(500, 250), pod(500, 500), pod(500, 500), pod(500, 500)}, .policy = "p"});
  EXPECT_EQ(targetOf(r.hpa), 69);
}

TEST(Retune, RoundsToTheNearestPercent) {
  const auto h = hpaOn({utilization("cpu", 70, "app")});
  EXPECT_EQ(targetOf(retune(h, {.pods = {pod(500, 300)}, .policy = "p"}).hpa), 117);  // 116.67
  EXPECT_EQ(targetOf(retune(h, {.pods = {pod(500, 400)}, .policy = "p"}).hpa), 88);   // 87.5
  EXPECT_EQ(targetOf(retune(h, {.pods = {pod(500, 600)}, .policy = "p"}).hpa), 58);   // 58.33
}

TEST(Retune, ClampsToTheBoundsAndReportsAMovedScalingPoint) {
  const auto h = hpaOn({utilization("cpu", 60, "app")});
  const Retune high = retune(h, {.pods = {pod(500, 50)}, .policy = "p"});  // 600 %
  EXPECT_EQ(targetOf(high.hpa), kMaxTarget);
  EXPECT_TRUE(high.clamped);
  EXPECT_TRUE(high.changes[0].clamped);
  EXPECT_NE(high.message.find("clamped"), std::string::npos) << high.message;
  const Retune low = retune(h, {.pods = {pod(100, 1000)}, .policy = "p"});  // 6 %
  EXPECT_EQ(targetOf(low.hpa), kMinTarget);
  EXPECT_TRUE(low.clamped);
  // Within the tolerance a clamp is not reported: 10 × 500 / 540 = 9.26 → 10 (8 % off).
  const auto ten = hpaOn({utilization("cpu", 10, "app")});
  const Retune near = retune(ten, {.pods = {pod(500, 540)}, .policy = "p"});
  EXPECT_FALSE(near.clamped);
  EXPECT_FALSE(near.changed) << "the target does not move: nothing to write";
}

TEST(Retune, AbsoluteTargetsAndOtherMetricsNeedNoRetune) {
  api::MetricSpec average = utilization("cpu", 60);
  average.resource->target = {.type = "AverageValue",
                              .value = {},
                              .averageValue = Quantity::parse("300m").value(),
                              .averageUtilization = {}};
  api::MetricSpec pods;
  pods.type = "Pods";
  pods.pods = api::NamedMetricSource{{"requests_per_second", {}}, {}};
  const auto h = hpaOn({average, pods});
  const Retune r = retune(h, {.pods = {pod(500, 250)}, .policy = "p"});
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.hpa, h);
  ASSERT_EQ(r.notRetuned.size(), 2u);
  EXPECT_NE(r.notRetuned[0].find("AverageValue target is absolute"), std::string::npos);
  EXPECT_NE(r.notRetuned[1].find("not relative to requests"), std::string::npos);
  EXPECT_FALSE(r.hpa.metadata.annotations.contains(std::string(kOriginalTargetsAnnotation)));
}

TEST(Retune, MemoryUtilizationRetunesWithMemoryRequests) {
  const auto h = hpaOn({utilization("memory", 80, "app"), utilization("cpu", 60, "app")});
  PodRequests p{.original = {{"app", {.cpuRequest = 500_m, .memoryRequest = 512_Mi}}},
                .planned = {{"app", {.cpuRequest = 500_m, .memoryRequest = 256_Mi}}}};
  const Retune r = retune(h, {.pods = {p}, .policy = "p"});
  EXPECT_EQ(targetOf(r.hpa, 0), 160);
  EXPECT_EQ(targetOf(r.hpa, 1), 60) << "cpu requests unchanged";
  ASSERT_EQ(r.changes.size(), 1u);
  EXPECT_EQ(r.changes[0].metric, "memory of container app");
  EXPECT_NE(r.hpa.metadata.annotations.at(std::string(kOriginalTargetsAnnotation))
                .find(R"("ContainerResource/app/memory":{"podRequest":"512Mi")"),
            std::string::npos);
}

TEST(Retune, TheRememberedOriginalsMakeItIdempotentAndReversible) {
  const auto h = hpaOn({utilization("cpu", 60, "app")});
  const Retune first = retune(h, {.pods = {pod(500, 250)}, .policy = "p"});
  // The next pass: the pod runs 250m (its record still says 500m, or not any more).
  for (const PodRequests& p : {pod(500, 250), pod(250, 250)}) {
    const Retune again = retune(first.hpa, {.pods = {p}, .policy = "p"});
    EXPECT_FALSE(again.changed);
    EXPECT_EQ(targetOf(again.hpa), 120);
  }
  // Halved again from 250m: the original 60 % at 500m is the reference, not 120 % at 250m.
  EXPECT_EQ(targetOf(retune(first.hpa, {.pods = {pod(250, 125)}, .policy = "p"}).hpa), 240);
  // A revert plans the originals: the original target again (the annotation stays).
  const Retune reverted = retune(first.hpa, {.pods = {pod(500, 500)}, .policy = "p"});
  EXPECT_EQ(targetOf(reverted.hpa), 60);
  // Restore: the original target, the annotation removed.
  const Retune restored = retune(first.hpa, {.pods = {}, .policy = "p", .restore = true});
  EXPECT_EQ(targetOf(restored.hpa), 60);
  EXPECT_FALSE(restored.hpa.metadata.annotations.contains(std::string(kOriginalTargetsAnnotation)));
  EXPECT_EQ(restored.hpa, h);
}

TEST(Retune, ATargetChangedByTheUserBecomesTheNewOriginal) {
  auto h =
      retune(hpaOn({utilization("cpu", 60, "app")}), {.pods = {pod(500, 250)}, .policy = "p"}).hpa;
  h.spec.metrics[0].containerResource->target.averageUtilization = 90;  // kubectl edit
  // At 250m now, halved to 125m: 90 × 250 / 125.
  const Retune r = retune(h, {.pods = {pod(250, 125)}, .policy = "p"});
  EXPECT_EQ(targetOf(r.hpa), 180);
  EXPECT_EQ(targetOf(retune(h, {.pods = {}, .policy = "p", .restore = true}).hpa), 90);
}

TEST(Retune, MissingRequestsAndMalformedAnnotationsLeaveTheHpaAlone) {
  const auto h = hpaOn({utilization("cpu", 60)});
  PodRequests noRequest = pod(500, 250);
  noRequest.planned["log-shipper"] = {};
  Retune r = retune(h, {.pods = {noRequest}, .policy = "p"});
  EXPECT_FALSE(r.changed);
  ASSERT_EQ(r.notRetuned.size(), 1u);
  EXPECT_NE(r.notRetuned[0].find("no cpu request"), std::string::npos);

  auto broken = h;
  broken.metadata.annotations[std::string(kOriginalTargetsAnnotation)] = "{not json";
  r = retune(broken, {.pods = {pod(500, 250)}, .policy = "p"});
  EXPECT_FALSE(r.changed);
  EXPECT_EQ(r.hpa, broken);
  EXPECT_EQ(retunedBy(broken.metadata), std::nullopt);
}

TEST(Retune, OptInAndTarget) {
  auto h = hpaOn({utilization("cpu", 60)});
  EXPECT_TRUE(autoTuneEnabled(h.metadata));
  h.metadata.annotations[std::string(kAutoTuneAnnotation)] = "false";
  EXPECT_FALSE(autoTuneEnabled(h.metadata));
  EXPECT_TRUE(scales(h, api::workloadRef(api::WorkloadKind::kDeployment, "apps", "web")));
  EXPECT_FALSE(scales(h, api::workloadRef(api::WorkloadKind::kDeployment, "other", "web")));
  EXPECT_FALSE(scales(h, api::workloadRef(api::WorkloadKind::kStatefulSet, "apps", "web")));
}

}  // namespace
}  // namespace attune::hpa
