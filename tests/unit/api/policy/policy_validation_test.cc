// One test per validation rule: each breaks exactly one rule of a valid defaulted policy and checks
// the field path and message of the single error.
#include "api/policy/policy_validation.h"

#include <gtest/gtest.h>

#include "policy_test_util.h"

namespace attune::api {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using testing::expectOnly;

class PolicyValidationTest : public ::testing::Test {
 protected:
  AttunePolicy p = testing::defaultedMinimalPolicy();
  std::vector<PolicyDiagnostic> errors() const { return validatePolicy(p); }
  void withCanary() {
    p.spec.updateStrategy.type = UpdateMode::kCanary;
    p.spec.updateStrategy.canary = CanaryConfig{10, 30min, false};
  }
};

TEST_F(PolicyValidationTest, MetadataNameIsRequired) {
  p.metadata.name.clear();
  expectOnly(errors(), "metadata.name", "required");
}

TEST_F(PolicyValidationTest, MetadataNameMustBeADnsSubdomain) {
  p.metadata.name = "Checkout_1";
  expectOnly(errors(), "metadata.name",
             "must be a DNS-1123 subdomain (lowercase letters, digits, '-' and '.'; at most 253 "
             "characters), got \"Checkout_1\"");
}

TEST_F(PolicyValidationTest, MetadataNamespaceMustBeADnsLabel) {
  p.metadata.namespace_ = "shop.eu";
  expectOnly(errors(), "metadata.namespace",
             "must be a DNS-1123 label (lowercase letters, digits and '-'; at most 63 characters), "
             "got \"shop.eu\"");
}

TEST_F(PolicyValidationTest, TargetKindIsRequired) {
  p.spec.targetRef.kind.reset();
  expectOnly(errors(), "spec.targetRef.kind", "required");
}

TEST_F(PolicyValidationTest, TargetNeedsNameOrSelector) {
  p.spec.targetRef.name.clear();
  expectOnly(errors(), "spec.targetRef", "must set name or selector (or both)");
  p.spec.targetRef.selector = LabelSelector{.matchLabels = {{"tier", "api"}}};
  EXPECT_TRUE(errors().empty());
}

TEST_F(PolicyValidationTest, TargetNameMustBeADnsSubdomain) {
  p.spec.targetRef.name = "Checkout";
  expectOnly(errors(), "spec.targetRef.name", "must be a DNS-1123 subdomain, got \"Checkout\"");
}

TEST_F(PolicyValidationTest, SelectorRequirementNeedsKeyAndOperator) {
  p.spec.targetRef.selector = LabelSelector{.matchExpressions = {{"", "Exists", {}}}};
  expectOnly(errors(), "spec.targetRef.selector.matchExpressions[0].key", "required");
  p.spec.targetRef.selector = LabelSelector{.matchExpressions = {{"tier", "", {}}}};
  expectOnly(errors(), "spec.targetRef.selector.matchExpressions[0].operator", "required");
}

TEST_F(PolicyValidationTest, SelectorOperatorMustBeKnown) {
  p.spec.targetRef.selector = LabelSelector{.matchExpressions = {{"tier", "Like", {"api"}}}};
  expectOnly(errors(), "spec.targetRef.selector.matchExpressions[0].operator",
             "must be one of In, NotIn, Exists, DoesNotExist; got \"Like\"");
}

TEST_F(PolicyValidationTest, SelectorValuesMustMatchOperator) {
  p.spec.targetRef.selector = LabelSelector{.matchExpressions = {{"tier", "In", {}}}};
  expectOnly(errors(), "spec.targetRef.selector.matchExpressions[0].values",
             "must not be empty when operator is In");
  p.spec.targetRef.selector = LabelSelector{.matchExpressions = {{"tier", "Exists", {"x"}}}};
  expectOnly(errors(), "spec.targetRef.selector.matchExpressions[0].values",
             "must be empty when operator is Exists");
}

TEST_F(PolicyValidationTest, PrometheusAddressIsRequired) {
  p.spec.metricsSource.prometheus->address.clear();
  expectOnly(errors(), "spec.metricsSource.prometheus.address", "required");
}

TEST_F(PolicyValidationTest, PrometheusAddressMustBeAnHttpUrl) {
  p.spec.metricsSource.prometheus->address = "prometheus:9090";
  expectOnly(errors(), "spec.metricsSource.prometheus.address",
             "must be an http:// or https:// URL, got \"prometheus:9090\"");
}

TEST_F(PolicyValidationTest, PrometheusHeaderNamesMustBeTokens) {
  p.spec.metricsSource.prometheus->headers = {{"X Tenant", "a"}};
  expectOnly(errors(), "spec.metricsSource.prometheus.headers[X Tenant]",
             "must be a valid HTTP header name");
}

TEST_F(PolicyValidationTest, QueryParametersMayNotSetTheQueryItself) {
  p.spec.metricsSource.prometheus->queryParameters = {{"dedup", "true"}};
  EXPECT_TRUE(errors().empty());
  for (const char* reserved : {"query", "start", "end", "step", "time", "timeout"}) {
    p.spec.metricsSource.prometheus->queryParameters = {{"dedup", "true"}, {reserved, "1"}};
    expectOnly(errors(),
               std::string("spec.metricsSource.prometheus.queryParameters[") + reserved + "]",
               "is set by the operator for every query and cannot be overridden");
  }
}

TEST_F(PolicyValidationTest, BearerTokenSecretNeedsNameAndKey) {
  p.spec.metricsSource.prometheus->bearerTokenSecret = SecretKeyRef{"prom-token", ""};
  expectOnly(errors(), "spec.metricsSource.prometheus.bearerTokenSecret.key", "required");
  p.spec.metricsSource.prometheus->bearerTokenSecret = SecretKeyRef{"", "token"};
  expectOnly(errors(), "spec.metricsSource.prometheus.bearerTokenSecret.name", "required");
}

TEST_F(PolicyValidationTest, HistoryWindowHasAMinimum) {
  p.spec.metricsSource.historyWindow = 5s;
  p.spec.metricsSource.queryStep = 10s;
  p.spec.metricsSource.rateWindow = 30s;
  // 5s is below both the 10s minimum and queryStep; both rules report it, and rateWindow now
  // exceeds historyWindow.
  const auto e = errors();
  ASSERT_NE(testing::find(e, "spec.metricsSource.historyWindow"), nullptr) << testing::describe(e);
  EXPECT_EQ(e[0].error.message, "must be at least 10s, got 5s");
}

TEST_F(PolicyValidationTest, HistoryWindowMustCoverQueryStep) {
  p.spec.metricsSource.historyWindow = 30min;
  p.spec.metricsSource.queryStep = 1h;
  p.spec.metricsSource.rateWindow = 30s;
  expectOnly(errors(), "spec.metricsSource.historyWindow",
             "must be at least queryStep (1h), got 30m");
}

TEST_F(PolicyValidationTest, MinimumDataPointsIsAtLeastOne) {
  p.spec.metricsSource.minimumDataPoints = 0;
  expectOnly(errors(), "spec.metricsSource.minimumDataPoints", "must be at least 1, got 0");
}

TEST_F(PolicyValidationTest, QueryStepIsBetweenTenSecondsAndAnHour) {
  p.spec.metricsSource.queryStep = 5s;
  expectOnly(errors(), "spec.metricsSource.queryStep", "must be at least 10s, got 5s");
  p.spec.metricsSource.queryStep = 2h;
  expectOnly(errors(), "spec.metricsSource.queryStep", "must be at most 1h, got 2h");
}

TEST_F(PolicyValidationTest, RateWindowIsAtLeastThirtySeconds) {
  p.spec.metricsSource.rateWindow = 20s;
  expectOnly(errors(), "spec.metricsSource.rateWindow", "must be at least 30s, got 20s");
}

TEST_F(PolicyValidationTest, RateWindowIsAtMostHistoryWindow) {
  p.spec.metricsSource.rateWindow = 200h;
  expectOnly(errors(), "spec.metricsSource.rateWindow",
             "must be at most historyWindow (168h), got 200h");
}

TEST_F(PolicyValidationTest, PercentileIsEnumerated) {
  p.spec.cpu.percentile = 97;
  expectOnly(errors(), "spec.cpu.percentile", "must be one of 0, 50, 90, 95, 99; got 97");
}

TEST_F(PolicyValidationTest, OverheadIsADecimalPercentage) {
  p.spec.memory.overhead = "20%";
  expectOnly(errors(), "spec.memory.overhead",
             "must be a non-negative decimal percentage such as \"20\", got \"20%\"");
}

TEST_F(PolicyValidationTest, OverheadIsAtMostNineHundred) {
  p.spec.cpu.overhead = "900";
  EXPECT_TRUE(errors().empty());
  p.spec.cpu.overhead = "900.5";
  expectOnly(errors(), "spec.cpu.overhead", "must be at most 900, got 900.5");
}

TEST_F(PolicyValidationTest, MaxAllowedMustBePositive) {
  p.spec.cpu.minAllowed = 0_m;
  p.spec.cpu.maxAllowed = 0_m;
  expectOnly(errors(), "spec.cpu.maxAllowed", "must be greater than 0, got 0");
}

TEST_F(PolicyValidationTest, MinAllowedMustNotExceedMaxAllowed) {
  p.spec.memory.minAllowed = 2_Gi;
  p.spec.memory.maxAllowed = 1_Gi;
  expectOnly(errors(), "spec.memory.minAllowed", "must be at most maxAllowed (1Gi), got 2Gi");
  p.spec.memory = testing::defaultedMinimalPolicy().spec.memory;
  p.spec.cpu.minAllowed = 500_m;
  p.spec.cpu.maxAllowed = 250_m;
  expectOnly(errors(), "spec.cpu.minAllowed", "must be at most maxAllowed (250m), got 500m");
}

TEST_F(PolicyValidationTest, MaxChangePercentIsBetweenOneAndHundred) {
  p.spec.cpu.maxChangePercent = 101;
  expectOnly(errors(), "spec.cpu.maxChangePercent", "must be at most 100, got 101");
  p.spec.cpu.maxChangePercent = 50;
  p.spec.memory.maxChangePercent = 0;
  expectOnly(errors(), "spec.memory.maxChangePercent", "must be at least 1, got 0");
}

TEST_F(PolicyValidationTest, CanaryTypeNeedsCanarySettings) {
  p.spec.updateStrategy.type = UpdateMode::kCanary;
  expectOnly(errors(), "spec.updateStrategy.canary", "required when type is Canary");
}

TEST_F(PolicyValidationTest, CanaryNeedsPercentageAndObservationPeriod) {
  withCanary();
  p.spec.updateStrategy.canary->percentage.reset();
  expectOnly(errors(), "spec.updateStrategy.canary.percentage", "required");
  withCanary();
  p.spec.updateStrategy.canary->observationPeriod.reset();
  expectOnly(errors(), "spec.updateStrategy.canary.observationPeriod", "required");
}

TEST_F(PolicyValidationTest, CanaryPercentageIsBetweenOneAndHundred) {
  withCanary();
  p.spec.updateStrategy.canary->percentage = 0;
  expectOnly(errors(), "spec.updateStrategy.canary.percentage", "must be at least 1, got 0");
  p.spec.updateStrategy.canary->percentage = 101;
  expectOnly(errors(), "spec.updateStrategy.canary.percentage", "must be at most 100, got 101");
}

TEST_F(PolicyValidationTest, CanaryObservationPeriodIsAtLeastAMinute) {
  withCanary();
  p.spec.updateStrategy.canary->observationPeriod = 45s;
  expectOnly(errors(), "spec.updateStrategy.canary.observationPeriod",
             "must be at least 1m, got 45s");
}

TEST_F(PolicyValidationTest, CooldownMustNotBeNegative) {
  p.spec.updateStrategy.cooldown = -1s;
  expectOnly(errors(), "spec.updateStrategy.cooldown", "must not be negative, got -1s");
  p.spec.updateStrategy.cooldown = 0s;
  EXPECT_TRUE(errors().empty());
}

TEST_F(PolicyValidationTest, SafetyObservationPeriodIsAtLeastAMinute) {
  p.spec.updateStrategy.safetyObservationPeriod = 30s;
  expectOnly(errors(), "spec.updateStrategy.safetyObservationPeriod",
             "must be at least 1m, got 30s");
}

TEST_F(PolicyValidationTest, MaxConcurrentResizesIsBetweenOneAndFifty) {
  p.spec.updateStrategy.maxConcurrentResizes = 51;
  expectOnly(errors(), "spec.updateStrategy.maxConcurrentResizes", "must be at most 50, got 51");
  p.spec.updateStrategy.maxConcurrentResizes = 0;
  expectOnly(errors(), "spec.updateStrategy.maxConcurrentResizes", "must be at least 1, got 0");
}

TEST_F(PolicyValidationTest, WeightIsBetweenOneAndThousand) {
  p.spec.weight = 1001;
  expectOnly(errors(), "spec.weight", "must be at most 1000, got 1001");
}

TEST_F(PolicyValidationTest, ExcludedContainerNamesMustNotBeEmpty) {
  p.spec.excludedContainers = {"istio-proxy", ""};
  expectOnly(errors(), "spec.excludedContainers[1]", "must not be empty");
}

TEST_F(PolicyValidationTest, AtMostHundredExcludedContainers) {
  p.spec.excludedContainers.assign(101, "sidecar");
  expectOnly(errors(), "spec.excludedContainers", "must have at most 100 items, got 101");
}

TEST_F(PolicyValidationTest, ConditionsNeedTypeAndKnownStatus) {
  p.status.conditions = {Condition{.type = "Ready", .status = "Maybe"}};
  expectOnly(errors(), "status.conditions[0].status",
             "must be one of True, False, Unknown; got \"Maybe\"");
  p.status.conditions = {Condition{.type = "", .status = "True"}};
  expectOnly(errors(), "status.conditions[0].type", "required");
  p.status.conditions = {Condition{.type = "Ready"}};
  expectOnly(errors(), "status.conditions[0].status", "required");
}

TEST_F(PolicyValidationTest, GenerationsAndCountsAreNotNegative) {
  p.status.conditions = {Condition{.type = "Ready", .status = "True", .observedGeneration = -1}};
  expectOnly(errors(), "status.conditions[0].observedGeneration", "must be at least 0, got -1");
  p.status.conditions.clear();
  p.status.observedGeneration = -2;
  expectOnly(errors(), "status.observedGeneration", "must be at least 0, got -2");
  p.status.observedGeneration = 3;
  p.status.consecutiveReverts = -1;
  expectOnly(errors(), "status.consecutiveReverts", "must be at least 0, got -1");
}

TEST_F(PolicyValidationTest, RecommendationConfidenceAndDataPointsAreInRange) {
  p.status.recommendations = {WorkloadRecommendation{
      .workload = "checkout",
      .kind = "Deployment",
      .containers = {ContainerRecommendation{.name = "app", .confidence = 1.5}}}};
  expectOnly(errors(), "status.recommendations[0].containers[0].confidence",
             "must be between 0 and 1, got 1.5");
  p.status.recommendations[0].containers[0].confidence = 0.5;
  p.status.recommendations[0].containers[0].dataPoints = -1;
  expectOnly(errors(), "status.recommendations[0].containers[0].dataPoints",
             "must be at least 0, got -1");
}

TEST_F(PolicyValidationTest, ReportsEveryBrokenRuleAtOnce) {
  p.metadata.name.clear();
  p.spec.weight = 0;
  p.spec.updateStrategy.safetyObservationPeriod = 10s;
  EXPECT_EQ(errors().size(), 3u) << testing::describe(errors());
}

TEST_F(PolicyValidationTest, ErrorsCarryTheFieldLineOrItsNearestAncestors) {
  const DecodedPolicy doc = testing::decodeOne(std::string(testing::kMinimalPolicy) +
                                               "  updateStrategy:\n"
                                               "    safetyObservationPeriod: 30s\n");
  ASSERT_TRUE(doc.policy);
  AttunePolicy policy = *doc.policy;
  applyDefaults(policy);
  policy.spec.updateStrategy.canary = CanaryConfig{};  // never written: reported at its parent
  const auto e = validatePolicy(policy);
  ASSERT_EQ(e.size(), 3u) << testing::describe(e);
  const auto* period = testing::find(e, "spec.updateStrategy.safetyObservationPeriod");
  ASSERT_NE(period, nullptr);
  EXPECT_EQ(period->line, 14);
  EXPECT_EQ(period->column, 5);
  const auto* percentage = testing::find(e, "spec.updateStrategy.canary.percentage");
  ASSERT_NE(percentage, nullptr);
  EXPECT_EQ(percentage->line, 13);
}

TEST(PolicyWarningsTest, CanaryBlockIsIgnoredUnlessTypeIsCanary) {
  AttunePolicy p = testing::defaultedMinimalPolicy();
  p.spec.updateStrategy.canary = CanaryConfig{10, 30min, false};
  expectOnly(policyWarnings(p), "spec.updateStrategy.canary",
             "ignored: updateStrategy.type is Recommend, not Canary");
  p.spec.updateStrategy.type = UpdateMode::kCanary;
  EXPECT_TRUE(policyWarnings(p).empty());
}

TEST(PolicyWarningsTest, DisabledTlsVerificationIsFlagged) {
  AttunePolicy p = testing::defaultedMinimalPolicy();
  p.spec.metricsSource.prometheus->insecureSkipVerify = true;
  expectOnly(policyWarnings(p), "spec.metricsSource.prometheus.tls.insecureSkipVerify",
             "TLS certificate verification of the Prometheus server is disabled");
}

TEST(PolicyWarningsTest, CredentialInAHeaderIsFlagged) {
  AttunePolicy p = testing::defaultedMinimalPolicy();
  p.spec.metricsSource.prometheus->headers = {{"X-Scope-OrgID", "team-a"},
                                              {"authorization", "Basic YTpi"}};
  expectOnly(policyWarnings(p), "spec.metricsSource.prometheus.headers[authorization]",
             "a credential in the policy is readable by anyone who can read the policy; prefer "
             "bearerTokenSecret where the server accepts a bearer token");
}

}  // namespace
}  // namespace attune::api
