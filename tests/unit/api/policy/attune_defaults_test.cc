// AttuneDefaults and AttuneNamespaceDefaults: decoding (field paths and lines), validation,
// encoding round trips, selection by name, and mergeDefaults() field by field.
#include "api/policy/attune_defaults.h"

#include <gtest/gtest.h>

#include "api/policy/policy_codec.h"
#include "policy_test_util.h"

namespace attune::api {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

constexpr std::string_view kClusterDefaults = R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata:
  name: cluster-defaults
spec:
  metricsSource:
    prometheus:
      address: http://prometheus.monitoring:9090
      bearerTokenSecret: {name: prom, key: token}
    historyWindow: 72h
    minimumDataPoints: 24
  cpu:
    percentile: 95
    overhead: "25"
    maxAllowed: "2"
    startupBoost: {duration: 30s, multiplier: "2.0"}
  memory:
    allowDecrease: true
  updateStrategy:
    type: Auto
    cooldown: 10m
    schedule:
      windows: [{start: "02:00", end: "06:00"}]
  excludeKnownSidecars: false
  costPricing:
    cpuPerCoreHour: "0.04"
    memoryPerGiBHour: "0.005"
)";

constexpr std::string_view kNamespaceDefaults = R"(apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata:
  name: shop-defaults
  namespace: shop
spec:
  cpu:
    percentile: 90
  updateStrategy:
    type: Canary
    canary:
      percentage: 20
      observationPeriod: 15m
)";

AttuneDefaults decodeOneDefaults(std::string_view text) {
  auto results = checkDefaults(text);
  EXPECT_EQ(results.size(), 1u);
  if (results.empty()) return {};
  EXPECT_TRUE(results[0].errors.empty()) << testing::describe(results[0].errors);
  EXPECT_TRUE(results[0].defaults.has_value());
  return results[0].defaults.value_or(AttuneDefaults{});
}

AttunePolicy policyWithSpec(std::string_view specYaml) {
  std::string text(testing::kMinimalPolicy);
  text += specYaml;
  auto decoded = testing::decodeOne(text);
  EXPECT_TRUE(decoded.errors.empty()) << testing::describe(decoded.errors);
  return decoded.policy.value_or(AttunePolicy{});
}

bool hasPreserved(const AttunePolicy& p, std::string_view path) {
  return std::any_of(p.preserved.begin(), p.preserved.end(),
                     [&](const PreservedField& f) { return f.path == path; });
}

TEST(AttuneDefaultsDecodeTest, DecodesBothKinds) {
  const AttuneDefaults cluster = decodeOneDefaults(kClusterDefaults);
  EXPECT_EQ(cluster.scope, DefaultsScope::kCluster);
  EXPECT_EQ(cluster.metadata.name, "cluster-defaults");
  EXPECT_EQ(cluster.spec.metricsSource.prometheus->address, "http://prometheus.monitoring:9090");
  EXPECT_EQ(cluster.spec.metricsSource.historyWindow, hours(72));
  EXPECT_EQ(cluster.spec.cpu.percentile, 95);
  EXPECT_EQ(cluster.spec.cpu.maxAllowed, Millicores(2000));
  EXPECT_EQ(cluster.spec.updateStrategy.type, UpdateMode::kAuto);
  EXPECT_EQ(cluster.spec.excludeKnownSidecars, false);
  ASSERT_TRUE(cluster.spec.costPricing);
  EXPECT_EQ(cluster.spec.costPricing->cpuPerCoreHour, "0.04");
  EXPECT_EQ(cluster.spec.costPricing->memoryPerGiBHour, "0.005");
  ASSERT_TRUE(cluster.spec.cpu.startupBoost);
  EXPECT_EQ(cluster.spec.cpu.startupBoost->multiplier, "2.0");
  EXPECT_EQ(cluster.spec.cpu.startupBoost->duration, std::chrono::seconds(30));
  ASSERT_TRUE(cluster.spec.updateStrategy.schedule);
  EXPECT_EQ(cluster.spec.updateStrategy.schedule->windows.size(), 1u);
  EXPECT_TRUE(cluster.preserved.empty());

  const AttuneDefaults ns = decodeOneDefaults(kNamespaceDefaults);
  EXPECT_EQ(ns.scope, DefaultsScope::kNamespace);
  EXPECT_EQ(ns.metadata.namespace_, "shop");
  EXPECT_EQ(ns.spec.updateStrategy.canary->percentage, 20);
}

TEST(AttuneDefaultsDecodeTest, SkipsOtherKindsInAStream) {
  std::string stream(testing::kMinimalPolicy);
  stream += "---\n";
  stream += kNamespaceDefaults;
  const auto results = decodeDefaults(stream);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].documentIndex, 1);
  EXPECT_EQ(results[0].defaults->metadata.name, "shop-defaults");
}

TEST(AttuneDefaultsDecodeTest, PolicyOnlyFieldsAreErrorsWithPathAndLine) {
  const auto results = decodeDefaults(R"(apiVersion: attune.io/v1alpha1
kind: AttuneDefaults
metadata:
  name: d
spec:
  targetRef:
    kind: Deployment
  cpu:
    percentile: high
  weight: 3
status: {}
)");
  ASSERT_EQ(results.size(), 1u);
  const auto& errors = results[0].errors;
  const PolicyDiagnostic* target = testing::find(errors, "spec.targetRef");
  ASSERT_NE(target, nullptr) << testing::describe(errors);
  EXPECT_EQ(target->line, 6);
  EXPECT_NE(target->error.message.find("unknown field"), std::string::npos);
  const PolicyDiagnostic* percentile = testing::find(errors, "spec.cpu.percentile");
  ASSERT_NE(percentile, nullptr) << testing::describe(errors);
  EXPECT_EQ(percentile->line, 9);
  ASSERT_NE(testing::find(errors, "spec.weight"), nullptr);
  EXPECT_EQ(testing::find(errors, "spec.weight")->line, 10);
  ASSERT_NE(testing::find(errors, "status"), nullptr);
}

TEST(AttuneDefaultsValidateTest, SharedRulesAndPricesWithFieldPaths) {
  const auto results = checkDefaults(R"(apiVersion: attune.io/v1alpha1
kind: AttuneNamespaceDefaults
metadata:
  name: d
  namespace: shop
spec:
  cpu:
    percentile: 42
    minAllowed: "3"
    maxAllowed: "2"
  memory:
    maxChangePercent: 0
  updateStrategy:
    safetyObservationPeriod: 10s
  costPricing:
    cpuPerCoreHour: cheap
)");
  ASSERT_EQ(results.size(), 1u);
  const auto& errors = results[0].errors;
  for (const char* path :
       {"spec.cpu.percentile", "spec.cpu.minAllowed", "spec.memory.maxChangePercent",
        "spec.updateStrategy.safetyObservationPeriod", "spec.costPricing.cpuPerCoreHour"}) {
    EXPECT_NE(testing::find(errors, path), nullptr) << path << "\n" << testing::describe(errors);
  }
  EXPECT_EQ(testing::find(errors, "spec.costPricing.cpuPerCoreHour")->line, 16);
  EXPECT_EQ(testing::find(errors, "spec.cpu.percentile")->line, 8);
  // No target is required of defaults.
  EXPECT_EQ(testing::find(errors, "spec.targetRef.kind"), nullptr);
}

TEST(AttuneDefaultsEncodeTest, RoundTrips) {
  for (std::string_view text : {kClusterDefaults, kNamespaceDefaults}) {
    const AttuneDefaults d = decodeOneDefaults(text);
    for (const std::string& encoded : {encodeDefaultsYaml(d), encodeDefaultsJson(d)}) {
      SCOPED_TRACE(encoded);
      AttuneDefaults again = decodeOneDefaults(encoded);
      again.sources = d.sources;
      EXPECT_EQ(again, d);
      EXPECT_NE(encoded.find(std::string(kindOf(d.scope))), std::string::npos);
    }
  }
}

TEST(AttuneDefaultsSelectTest, SmallestNameWinsPerScope) {
  std::vector<AttuneDefaults> all(3);
  all[0].metadata = {.name = "zeta", .namespace_ = "shop"};
  all[1].metadata = {.name = "alpha", .namespace_ = "other"};
  all[2].metadata = {.name = "beta", .namespace_ = "shop"};
  EXPECT_EQ(selectDefaults(all), &all[1]);
  EXPECT_EQ(selectNamespaceDefaults(all, "shop"), &all[2]);
  EXPECT_EQ(selectNamespaceDefaults(all, "none"), nullptr);
  EXPECT_EQ(selectDefaults(std::vector<AttuneDefaults>{}), nullptr);
}

class MergeDefaultsTest : public ::testing::Test {
 protected:
  AttuneDefaults cluster_ = decodeOneDefaults(kClusterDefaults);
  AttuneDefaults namespace_ = decodeOneDefaults(kNamespaceDefaults);
};

TEST_F(MergeDefaultsTest, NoDefaultsLeavesThePolicy) {
  const AttunePolicy p = policyWithSpec("");
  EXPECT_EQ(mergeDefaults(p, nullptr, nullptr), p);
}

TEST_F(MergeDefaultsTest, PolicyOverNamespaceOverCluster) {
  const AttunePolicy p = policyWithSpec(R"(  cpu:
    overhead: "10"
  updateStrategy:
    cooldown: 2h
)");
  const AttunePolicy m = mergeDefaults(p, &namespace_, &cluster_);
  // cpu.percentile: namespace (90) over cluster (95).
  EXPECT_EQ(m.spec.cpu.percentile, 90);
  // cpu.overhead: the policy's "10" over the cluster's "25".
  EXPECT_EQ(m.spec.cpu.overhead, "10");
  // cpu.maxAllowed: only the cluster sets it.
  EXPECT_EQ(m.spec.cpu.maxAllowed, Millicores(2000));
  EXPECT_EQ(m.spec.cpu.minAllowed, std::nullopt);
  EXPECT_EQ(m.spec.memory.allowDecrease, true);
  // updateStrategy.type: namespace (Canary) over cluster (Auto); canary from the namespace.
  EXPECT_EQ(m.spec.updateStrategy.type, UpdateMode::kCanary);
  EXPECT_EQ(m.spec.updateStrategy.canary->percentage, 20);
  EXPECT_EQ(m.spec.updateStrategy.canary->observationPeriod, minutes(15));
  // cooldown: the policy's 2h over the cluster's 10m.
  EXPECT_EQ(m.spec.updateStrategy.cooldown, hours(2));
  EXPECT_EQ(m.spec.updateStrategy.autoRevert, std::nullopt);  // built-in, by applyDefaults()
  EXPECT_EQ(m.spec.excludeKnownSidecars, false);
  EXPECT_EQ(m.spec.metricsSource.historyWindow, hours(72));
  EXPECT_EQ(m.spec.metricsSource.minimumDataPoints, 24);
  // The policy's own fields and target are untouched.
  EXPECT_EQ(m.spec.targetRef, p.spec.targetRef);
  EXPECT_EQ(m.metadata, p.metadata);
  EXPECT_EQ(m.status, p.status);
  // startupBoost and the schedule are inherited as whole values.
  ASSERT_TRUE(m.spec.cpu.startupBoost);
  EXPECT_EQ(m.spec.cpu.startupBoost->multiplier, "2.0");
  EXPECT_TRUE(m.spec.updateStrategy.schedule.has_value());
}

TEST_F(MergeDefaultsTest, ClusterFillsWhatNamespaceLeavesUnset) {
  const AttunePolicy p = policyWithSpec("");
  const AttunePolicy nsOnly = mergeDefaults(p, &namespace_, nullptr);
  EXPECT_EQ(nsOnly.spec.cpu.percentile, 90);
  EXPECT_EQ(nsOnly.spec.updateStrategy.cooldown, std::nullopt);
  const AttunePolicy both = mergeDefaults(p, &namespace_, &cluster_);
  EXPECT_EQ(both.spec.cpu.percentile, 90);
  EXPECT_EQ(both.spec.updateStrategy.cooldown, minutes(10));
  const AttunePolicy clusterOnly = mergeDefaults(p, nullptr, &cluster_);
  EXPECT_EQ(clusterOnly.spec.cpu.percentile, 95);
  EXPECT_EQ(clusterOnly.spec.updateStrategy.type, UpdateMode::kAuto);
}

TEST_F(MergeDefaultsTest, PercentileZeroAndEmptyOverheadCountAsUnset) {
  const AttunePolicy p = policyWithSpec(R"(  cpu:
    percentile: 0
    overhead: ""
)");
  const AttunePolicy m = mergeDefaults(p, nullptr, &cluster_);
  EXPECT_EQ(m.spec.cpu.percentile, 95);
  EXPECT_EQ(m.spec.cpu.overhead, "25");
}

TEST_F(MergeDefaultsTest, CanaryMergesFieldByField) {
  const AttunePolicy p = policyWithSpec(R"(  updateStrategy:
    canary:
      percentage: 5
)");
  const AttunePolicy m = mergeDefaults(p, &namespace_, nullptr);
  EXPECT_EQ(m.spec.updateStrategy.canary->percentage, 5);
  EXPECT_EQ(m.spec.updateStrategy.canary->observationPeriod, minutes(15));
}

TEST_F(MergeDefaultsTest, TheMetricsProviderComesWholeFromOneTier) {
  // The policy has its own Prometheus: the cluster's token is not attached to it.
  const AttunePolicy own = policyWithSpec("");
  const AttunePolicy m = mergeDefaults(own, nullptr, &cluster_);
  EXPECT_EQ(m.spec.metricsSource.prometheus->address, "http://prometheus.monitoring:9090");
  EXPECT_EQ(m.spec.metricsSource.prometheus->bearerTokenSecret, std::nullopt);

  // A policy without a metrics source takes the cluster's, token and all.
  AttunePolicy bare = own;
  bare.spec.metricsSource.prometheus.reset();
  const AttunePolicy inherited = mergeDefaults(bare, nullptr, &cluster_);
  ASSERT_TRUE(inherited.spec.metricsSource.prometheus);
  EXPECT_EQ(inherited.spec.metricsSource.prometheus->bearerTokenSecret,
            (SecretKeyRef{"prom", "token"}));

  // Namespace defaults that only name a token (no address) supply no provider.
  AttuneDefaults tokenOnly = namespace_;
  tokenOnly.spec.metricsSource.prometheus = PrometheusSource{};
  tokenOnly.spec.metricsSource.prometheus->bearerTokenSecret = SecretKeyRef{"ns", "t"};
  const AttunePolicy both = mergeDefaults(bare, &tokenOnly, &cluster_);
  EXPECT_EQ(both.spec.metricsSource.prometheus->bearerTokenSecret, (SecretKeyRef{"prom", "token"}));

  // A preserved provider (datadog) on the namespace tier wins over the cluster's Prometheus.
  AttuneDefaults datadog = namespace_;
  datadog.preserved.push_back({"spec.metricsSource.datadog", R"({"site":"datadoghq.eu"})"});
  const AttunePolicy dd = mergeDefaults(bare, &datadog, &cluster_);
  EXPECT_FALSE(dd.spec.metricsSource.prometheus);
  EXPECT_TRUE(hasPreserved(dd, "spec.metricsSource.datadog"));
}

TEST_F(MergeDefaultsTest, APolicysStartupBoostIsNotOverwritten) {
  const AttunePolicy p = policyWithSpec(R"(  cpu:
    startupBoost: {duration: 1m, multiplier: "3.0"}
)");
  const AttunePolicy m = mergeDefaults(p, nullptr, &cluster_);
  ASSERT_TRUE(m.spec.cpu.startupBoost);
  EXPECT_EQ(m.spec.cpu.startupBoost->multiplier, "3.0");
  EXPECT_EQ(m.spec.cpu.startupBoost->duration, std::chrono::minutes(1));
  EXPECT_TRUE(std::is_sorted(m.preserved.begin(), m.preserved.end(),
                             [](const auto& a, const auto& b) { return a.path < b.path; }));
}

TEST_F(MergeDefaultsTest, TheMergedPolicyEncodesAndValidates) {
  AttunePolicy m = mergeDefaults(policyWithSpec(""), &namespace_, &cluster_);
  applyDefaults(m);
  EXPECT_TRUE(validatePolicy(m).empty()) << testing::describe(validatePolicy(m));
  const auto again = testing::decodeOne(encodePolicyYaml(m));
  EXPECT_TRUE(again.errors.empty()) << testing::describe(again.errors);
}

}  // namespace
}  // namespace attune::api
