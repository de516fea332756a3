#include "api/policy/policy_defaults.h"

#include <gtest/gtest.h>

#include "api/policy/attune_policy.h"
#include "policy_test_util.h"

namespace attune::api {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;

AttunePolicy defaulted(AttunePolicy policy) {
  applyDefaults(policy);
  return policy;
}

TEST(PolicyDefaultsTest, FillsMetricsSource) {
  const AttunePolicy p = defaulted({});
  const MetricsSource& m = p.spec.metricsSource;
  EXPECT_EQ(m.historyWindow, 168h);
  EXPECT_EQ(m.minimumDataPoints, 48);
  EXPECT_EQ(m.queryStep, 5min);
  EXPECT_EQ(m.rateWindow, 5min);
  EXPECT_EQ(m.podAggregation, PodAggregation::kMax);
  EXPECT_FALSE(m.prometheus) << "the Prometheus address is never invented";
}

TEST(PolicyDefaultsTest, RateWindowFollowsQueryStepButNotBelowThirtySeconds) {
  AttunePolicy p;
  p.spec.metricsSource.queryStep = 2min;
  EXPECT_EQ(defaulted(p).spec.metricsSource.rateWindow, 2min);
  p.spec.metricsSource.queryStep = 10s;
  EXPECT_EQ(defaulted(p).spec.metricsSource.rateWindow, 30s);
}

TEST(PolicyDefaultsTest, FillsCpu) {
  const CpuPolicy cpu = defaulted({}).spec.cpu;
  EXPECT_EQ(cpu.percentile, 95);
  EXPECT_EQ(cpu.overhead, "20");
  EXPECT_EQ(cpu.minAllowed, 1_m);
  EXPECT_EQ(cpu.maxAllowed, 4000_m);
  EXPECT_EQ(cpu.controlledValues, ControlledValues::kRequestsOnly);
  EXPECT_EQ(cpu.allowDecrease, true);
  EXPECT_EQ(cpu.maxChangePercent, 50);
}

TEST(PolicyDefaultsTest, FillsMemory) {
  const MemoryPolicy memory = defaulted({}).spec.memory;
  EXPECT_EQ(memory.percentile, 99);
  EXPECT_EQ(memory.overhead, "30");
  EXPECT_EQ(memory.minAllowed, 4_Mi);
  EXPECT_EQ(memory.maxAllowed, 8_Gi);
  EXPECT_EQ(memory.controlledValues, ControlledValues::kRequestsOnly);
  EXPECT_EQ(memory.allowDecrease, false);
  EXPECT_EQ(memory.maxChangePercent, 30);
}

TEST(PolicyDefaultsTest, PercentileZeroAndEmptyOverheadMeanUnset) {
  AttunePolicy p;
  p.spec.cpu.percentile = 0;
  p.spec.memory.overhead = "";
  const AttunePolicy d = defaulted(p);
  EXPECT_EQ(d.spec.cpu.percentile, 95);
  EXPECT_EQ(d.spec.memory.overhead, "30");
}

TEST(PolicyDefaultsTest, DefaultedBoundGivesWayToExplicitOtherBound) {
  AttunePolicy p;
  p.spec.memory.maxAllowed = 2_Mi;  // below the 4Mi default minimum
  p.spec.cpu.minAllowed = 8000_m;   // above the 4000m default maximum
  const AttunePolicy d = defaulted(p);
  EXPECT_EQ(d.spec.memory.minAllowed, 2_Mi);
  EXPECT_EQ(d.spec.memory.maxAllowed, 2_Mi);
  EXPECT_EQ(d.spec.cpu.minAllowed, 8000_m);
  EXPECT_EQ(d.spec.cpu.maxAllowed, 8000_m);
}

TEST(PolicyDefaultsTest, FillsUpdateStrategy) {
  const UpdateStrategy u = defaulted({}).spec.updateStrategy;
  EXPECT_EQ(u.type, UpdateMode::kRecommend);
  EXPECT_EQ(u.cooldown, 1h);
  EXPECT_EQ(u.autoRevert, true);
  EXPECT_EQ(u.safetyObservationPeriod, 5min);
  EXPECT_EQ(u.maxConcurrentResizes, 1);
  EXPECT_FALSE(u.canary) << "no canary block is invented";
}

TEST(PolicyDefaultsTest, CanaryObservationPeriodIsTheSafetyObservationDefault) {
  AttunePolicy p;
  p.spec.updateStrategy.canary = CanaryConfig{.percentage = 10, .observationPeriod = 30min};
  const UpdateStrategy u = defaulted(p).spec.updateStrategy;
  EXPECT_EQ(u.safetyObservationPeriod, 30min);
  EXPECT_EQ(u.canary->autoPromote, false);

  p.spec.updateStrategy.safetyObservationPeriod = 2min;  // an explicit value wins
  EXPECT_EQ(defaulted(p).spec.updateStrategy.safetyObservationPeriod, 2min);
}

TEST(PolicyDefaultsTest, FillsTopLevelSpecFields) {
  const AttunePolicySpec s = defaulted({}).spec;
  EXPECT_EQ(s.excludeKnownSidecars, true);
  EXPECT_EQ(s.paused, false);
  EXPECT_EQ(s.weight, 100);
  EXPECT_EQ(s.strategy, RecommendationStrategy::kAttune);
  EXPECT_TRUE(s.excludedContainers.empty());
}

TEST(PolicyDefaultsTest, KeepsEverySetField) {
  AttunePolicy p;
  p.spec.cpu = {.percentile = 50,
                .overhead = "5",
                .minAllowed = 10_m,
                .maxAllowed = 20_m,
                .controlledValues = ControlledValues::kRequestsAndLimits,
                .allowDecrease = false,
                .maxChangePercent = 10};
  p.spec.updateStrategy = {.type = UpdateMode::kAuto,
                           .cooldown = 0s,
                           .autoRevert = false,
                           .safetyObservationPeriod = 1min,
                           .maxConcurrentResizes = 7,
                           .resizeMethod = ResizeFallback::kInPlaceOrRecreate};
  p.spec.strategy = RecommendationStrategy::kCruisekube;
  p.spec.weight = 3;
  const AttunePolicy d = defaulted(p);
  EXPECT_EQ(d.spec.cpu, p.spec.cpu);
  EXPECT_EQ(d.spec.updateStrategy, p.spec.updateStrategy);
  EXPECT_EQ(d.spec.strategy, RecommendationStrategy::kCruisekube);
  EXPECT_EQ(d.spec.weight, 3);
}

TEST(PolicyDefaultsTest, IsIdempotentAndLeavesMetadataAndStatusAlone) {
  AttunePolicy p = testing::defaultedMinimalPolicy();
  const AttunePolicy once = p;
  applyDefaults(p);
  EXPECT_EQ(p, once);
  EXPECT_EQ(p.metadata.name, "checkout");
  EXPECT_EQ(p.status, AttunePolicyStatus{});
}

TEST(PolicyDefaultsTest, DefaultedMinimalPolicyIsValid) {
  EXPECT_TRUE(validatePolicy(testing::defaultedMinimalPolicy()).empty());
}

TEST(PolicyContainerExclusionTest, KnownSidecarsAreExcludedByDefault) {
  AttunePolicy p;
  for (std::string_view sidecar : knownSidecarContainers()) {
    EXPECT_TRUE(isExcludedContainer(p, sidecar)) << sidecar;
  }
  EXPECT_EQ(knownSidecarContainers().size(), 8u);
  EXPECT_FALSE(isExcludedContainer(p, "app"));
}

TEST(PolicyContainerExclusionTest, ExcludeKnownSidecarsFalseKeepsOnlyTheList) {
  AttunePolicy p;
  p.spec.excludeKnownSidecars = false;
  p.spec.excludedContainers = {"log-shipper"};
  EXPECT_FALSE(isExcludedContainer(p, "istio-proxy"));
  EXPECT_TRUE(isExcludedContainer(p, "log-shipper"));
  EXPECT_FALSE(isExcludedContainer(p, "app"));
}

TEST(PolicyParsePercentTest, AcceptsDecimalsOnly) {
  EXPECT_EQ(parsePercent("20"), 20.0);
  EXPECT_EQ(parsePercent("12.5"), 12.5);
  EXPECT_EQ(parsePercent("0"), 0.0);
  for (std::string_view bad : {"", ".5", "5.", "-1", "1e2", "20%", " 20"}) {
    EXPECT_FALSE(parsePercent(bad)) << bad;
  }
}

}  // namespace
}  // namespace attune::api
