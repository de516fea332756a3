#include "recommend/resource_pipeline.h"

#include <gtest/gtest.h>

#include "recommend/attune_strategy.h"
#include "recommend_testing.h"

namespace attune::recommend {
namespace {

using namespace attune::literals;
using testing::minute;
using testing::minuteSamples;

TEST(ResourcePipelineTest, RoundsUpIgnoringFloatNoise) {
  EXPECT_EQ(roundUpUnits(0.412 * 1000), 412);
  EXPECT_EQ(roundUpUnits(412.2), 413);
  EXPECT_EQ(roundUpUnits(-3), 0);
  EXPECT_EQ(roundUpUnits(1e30), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(formatUnits(Resource::kCpu, 1500), "1500m");
  EXPECT_EQ(formatUnits(Resource::kMemory, 512.0 * 1024 * 1024), "512Mi");
  EXPECT_EQ(formatUnits(Resource::kMemory, 1707116259), "1707116259 (1628.0Mi)");
  EXPECT_EQ(formatUnits(Resource::kMemory, 1000), "1k");
}

TEST(ResourcePipelineTest, FormatsPercent) {
  EXPECT_EQ(formatPercent(8), "+8%");
  EXPECT_EQ(formatPercent(-12.54), "-12.5%");
  EXPECT_EQ(formatPercent(20), "+20%");
}

TEST(ResourcePipelineTest, ChangeRulesInOrder) {
  std::vector<ExplanationStep> steps;
  Explainer ex(Resource::kCpu, steps);
  const ChangeRules rules{.current = 1000, .maxChangePercent = 50, .allowDecrease = true};
  EXPECT_EQ(applyChangeRules(1080, rules, ex), 1000);  // +8%: kept
  EXPECT_EQ(steps.back().what, "cpu: change +8% < 10%: kept current");
  EXPECT_EQ(steps.back().value, "1");
  EXPECT_EQ(applyChangeRules(1200, rules, ex), 1200);  // +20%: as is
  EXPECT_EQ(applyChangeRules(3000, rules, ex), 1500);  // +200% capped
  EXPECT_EQ(steps.back().what, "cpu: change +200% capped at ±50%");
  EXPECT_EQ(applyChangeRules(100, rules, ex), 500);  // -90% capped
  EXPECT_EQ(applyChangeRules(100, {.current = 1000, .allowDecrease = false}, ex), 1000);
  EXPECT_EQ(applyChangeRules(100, {}, ex), 100);  // no current: no rule
}

TEST(ResourcePipelineTest, LimitKeepsRatioOrStays) {
  std::vector<ExplanationStep> steps;
  Explainer ex(Resource::kMemory, steps);
  ResourceOutcome o = withLimit(300, 100, 250, true, ex);
  EXPECT_EQ(o.request, 300);
  EXPECT_EQ(o.limit, 750);
  o = withLimit(300, 100, 250, false, ex);  // requests only: limit stays, request capped
  EXPECT_EQ(o.request, 250);
  EXPECT_EQ(o.limit, 250);
  o = withLimit(300, 100, std::nullopt, true, ex);  // no limit stays none
  EXPECT_EQ(o.limit, std::nullopt);
}

TEST(ResourcePipelineTest, ResolvesPolicyDefaults) {
  api::AttunePolicySpec spec;
  spec.cpu.percentile = 0;  // 0 means the default
  const ResourceSettings cpu = resolveSettings(spec, Resource::kCpu);
  EXPECT_EQ(cpu.percentile, 95);
  EXPECT_EQ(cpu.overheadPercent, 20);
  EXPECT_EQ(cpu.minAllowed, 1);
  EXPECT_EQ(cpu.maxAllowed, 4000);
  EXPECT_TRUE(cpu.allowDecrease);
  EXPECT_FALSE(cpu.controlLimits);
  const ResourceSettings memory = resolveSettings(spec, Resource::kMemory);
  EXPECT_EQ(memory.percentile, 99);
  EXPECT_EQ(memory.overheadPercent, 30);
  EXPECT_FALSE(memory.allowDecrease);
  EXPECT_EQ(memory.maxChangePercent, 30);
}

TEST(ResourcePipelineTest, FactoryKnowsFiveStrategies) {
  for (std::string_view name : {"adaptive", "attune", "cruisekube", "vpa", "krr"}) {
    auto s = makeStrategy(name);
    ASSERT_TRUE(s.has_value()) << name;
    EXPECT_EQ((*s)->name(), name);
  }
  auto bad = makeStrategy("goldilocks");
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kInvalidArgument);
}

// Each tool's admission webhook: VPA's admission controller and adaptive size a new pod at their
// own recommendation, CruiseKube at its Phase 1 sizing; the public operator and krr have none.
TEST(ResourcePipelineTest, EachStrategySaysWhatItsToolDoesAtAdmission) {
  const std::pair<std::string_view, AdmissionSizing> expected[] = {
      {"adaptive", AdmissionSizing::kRecommendation},
      {"vpa", AdmissionSizing::kRecommendation},
      {"cruisekube", AdmissionSizing::kCruiseKube},
      {"attune", AdmissionSizing::kNone},
      {"krr", AdmissionSizing::kNone}};
  for (const auto& [name, sizing] : expected) {
    auto s = makeStrategy(name);
    ASSERT_TRUE(s.has_value()) << name;
    EXPECT_EQ((*s)->admissionSizing(), sizing) << name;
  }
}

// Every strategy refuses to give numbers below minimumDataPoints.
TEST(ResourcePipelineTest, NotEnoughDataGivesNoNumbers) {
  stats::StatsConfig config;
  stats::ContainerStats s(config);
  testing::feed(s, minuteSamples(
                       12, [](auto) { return 0.2; }, [](auto) { return 1e8; }));
  const api::AttunePolicySpec policy;  // minimumDataPoints defaults to 48
  for (std::string_view name : {"adaptive", "attune", "cruisekube", "vpa", "krr"}) {
    const Recommendation r = (*makeStrategy(name))
                                 ->recommend({.stats = s,
                                              .now = minute(11),
                                              .current = {.cpuRequest = 100_m},
                                              .policy = policy});
    EXPECT_FALSE(r.enoughData) << name;
    EXPECT_EQ(r.reason, "12 of 48 data points") << name;
    EXPECT_EQ(r.resources, api::ResourceValues{}) << name;
  }
  api::AttunePolicySpec lenient;
  lenient.metricsSource.minimumDataPoints = 12;
  const Recommendation r = makeAttuneStrategy()->recommend(
      {.stats = s, .now = minute(11), .current = {}, .policy = lenient});
  EXPECT_TRUE(r.enoughData);
  EXPECT_TRUE(r.resources.cpuRequest.has_value());
  EXPECT_FALSE(explanationText(r).empty());
}

}  // namespace
}  // namespace attune::recommend
