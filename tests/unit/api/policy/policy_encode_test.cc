#include <gtest/gtest.h>

#include "api/policy/policy_codec.h"
#include "policy_test_util.h"

namespace attune::api {
namespace {

using namespace attune::literals;
using testing::decodeOne;
using testing::describe;

// Decodes `text`, which must hold one policy without errors.
AttunePolicy decodeClean(std::string_view text) {
  DecodedPolicy doc = decodeOne(text);
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors) << text;
  return doc.policy.value_or(AttunePolicy{});
}

void expectRoundTrip(const AttunePolicy& policy) {
  const std::string yaml = encodePolicyYaml(policy);
  EXPECT_EQ(decodeClean(yaml), policy) << yaml;
  const std::string json = encodePolicyJson(policy);
  EXPECT_EQ(decodeClean(json), policy) << json;
}

TEST(PolicyEncodeTest, FullPolicyRoundTrips) { expectRoundTrip(decodeClean(testing::kFullPolicy)); }

TEST(PolicyEncodeTest, DefaultedPolicyRoundTrips) {
  AttunePolicy p = decodeClean(testing::kFullPolicy);
  applyDefaults(p);
  expectRoundTrip(p);
  expectRoundTrip(testing::defaultedMinimalPolicy());
}

TEST(PolicyEncodeTest, PolicyBuiltInCodeRoundTrips) {
  expectRoundTrip(testing::builtInCodePolicy());
}

TEST(PolicyEncodeTest, YamlHasStableOrderAndCanonicalValues) {
  const std::string yaml = encodePolicyYaml(testing::defaultedMinimalPolicy());
  EXPECT_EQ(yaml, R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata:
  name: checkout
  namespace: shop
spec:
  targetRef:
    kind: Deployment
    name: checkout
  metricsSource:
    prometheus:
      address: http://prometheus.monitoring:9090
    historyWindow: 168h
    minimumDataPoints: 48
    queryStep: 5m
    rateWindow: 5m
    podAggregation: Max
  cpu:
    percentile: 95
    overhead: "20"
    minAllowed: 1m
    maxAllowed: "4"
    controlledValues: RequestsOnly
    allowDecrease: true
    maxChangePercent: 50
  memory:
    percentile: 99
    overhead: "30"
    minAllowed: 4Mi
    maxAllowed: 8Gi
    controlledValues: RequestsOnly
    allowDecrease: false
    maxChangePercent: 30
    decreaseUsageMarginPercent: 10
  updateStrategy:
    type: Recommend
    cooldown: 1h
    autoRevert: true
    safetyObservationPeriod: 5m
    maxConcurrentResizes: 1
    resizeMethod: InPlaceOnly
  excludeKnownSidecars: true
  paused: false
  weight: 100
  strategy: attune
)");
}

TEST(PolicyEncodeTest, JsonHasTheSameOrder) {
  const std::string json = encodePolicyJson(decodeClean(testing::kMinimalPolicy));
  EXPECT_EQ(json, R"({
  "apiVersion": "attune.io/v1alpha1",
  "kind": "AttunePolicy",
  "metadata": {
    "name": "checkout",
    "namespace": "shop"
  },
  "spec": {
    "targetRef": {
      "kind": "Deployment",
      "name": "checkout"
    },
    "metricsSource": {
      "prometheus": {
        "address": "http://prometheus.monitoring:9090"
      }
    }
  }
}
)");
}

TEST(PolicyEncodeTest, QuantitiesAndDurationsAreCanonical) {
  const AttunePolicy p = decodeClean(std::string(testing::kMinimalPolicy) + R"(  cpu:
    minAllowed: "0.5"
    maxAllowed: 1500m
  memory:
    minAllowed: 1024Mi
    maxAllowed: "1e9"
  updateStrategy:
    cooldown: 90m
    safetyObservationPeriod: 300s
)");
  const std::string yaml = encodePolicyYaml(p);
  for (std::string_view expected :
       {"minAllowed: 500m", "maxAllowed: 1500m", "minAllowed: 1Gi", "maxAllowed: \"1000000000\"",
        "cooldown: 1h30m", "safetyObservationPeriod: 5m"}) {
    EXPECT_NE(yaml.find(expected), std::string::npos) << expected << "\n" << yaml;
  }
}

TEST(PolicyEncodeTest, PreservedPublicFieldsAreWrittenBack) {
  const AttunePolicy p = decodeClean(std::string(testing::kMinimalPolicy) + R"(  cpu:
    percentile: 90
    startupBoost: {multiplier: "3.0", duration: 2m}
  updateStrategy:
    schedule:
      windows: [{start: "02:00", end: "06:00"}]
      timezone: America/New_York
status:
  recommendations:
    - workload: checkout
      containers:
        - name: app
          explanation: {cpu: {overhead: 20.5, boundsApplied: "no"}}
)");
  const std::string yaml = encodePolicyYaml(p);
  EXPECT_NE(yaml.find("  cpu:\n    percentile: 90\n    startupBoost:\n      multiplier: \"3.0\"\n"
                      "      duration: 2m\n"),
            std::string::npos)
      << yaml;
  EXPECT_NE(yaml.find("boundsApplied: \"no\""), std::string::npos) << yaml;
  expectRoundTrip(p);
}

TEST(PolicyEncodeTest, StringsThatLookLikeOtherTypesAreQuoted) {
  AttunePolicy p = testing::defaultedMinimalPolicy();
  p.spec.excludedContainers = {"yes",   "123",   "1e3",         "0x1F",       "null",      "~",
                               "true",  "1_000", "-.inf",       "plain-name", "two words", "a: b",
                               "#hash", "",      "line\nbreak", "ünïcode"};
  p.metadata.labels = {{"true", "1"}, {"app.kubernetes.io/name", "checkout"}};
  const std::string yaml = encodePolicyYaml(p);
  EXPECT_NE(yaml.find("- \"yes\""), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("- plain-name"), std::string::npos) << yaml;
  expectRoundTrip(p);
}

}  // namespace
}  // namespace attune::api
