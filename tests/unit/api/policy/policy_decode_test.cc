#include <gtest/gtest.h>

#include "api/policy/policy_codec.h"
#include "policy_test_util.h"

namespace attune::api {
namespace {

using namespace std::chrono_literals;
using namespace attune::literals;
using testing::decodeOne;
using testing::describe;
using testing::expectOnly;
using testing::kMinimalPolicy;

std::string withSpec(std::string_view extra) {
  return std::string(kMinimalPolicy) + std::string(extra);
}

TEST(PolicyDecodeTest, DecodesAMinimalPolicy) {
  const DecodedPolicy doc = decodeOne(kMinimalPolicy);
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  EXPECT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
  ASSERT_TRUE(doc.policy);
  EXPECT_EQ(doc.documentIndex, 0);
  EXPECT_EQ(doc.line, 1);
  const AttunePolicy& p = *doc.policy;
  EXPECT_EQ(p.metadata.name, "checkout");
  EXPECT_EQ(p.metadata.namespace_, "shop");
  EXPECT_EQ(p.spec.targetRef.kind, TargetKind::kDeployment);
  EXPECT_EQ(p.spec.targetRef.name, "checkout");
  ASSERT_TRUE(p.spec.metricsSource.prometheus);
  EXPECT_EQ(p.spec.metricsSource.prometheus->address, "http://prometheus.monitoring:9090");
  EXPECT_FALSE(p.spec.cpu.percentile) << "decoding does not default";
}

TEST(PolicyDecodeTest, DecodesEveryModeledField) {
  const DecodedPolicy doc = decodeOne(testing::kFullPolicy);
  ASSERT_TRUE(doc.errors.empty()) << describe(doc.errors);
  ASSERT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
  const AttunePolicy& p = *doc.policy;
  EXPECT_EQ(p.metadata.labels.at("team"), "payments");
  const auto& selector = *p.spec.targetRef.selector;
  EXPECT_EQ(selector.matchLabels.at("app"), "checkout");
  ASSERT_EQ(selector.matchExpressions.size(), 1u);
  EXPECT_EQ(selector.matchExpressions[0].operator_, "In");
  EXPECT_EQ(selector.matchExpressions[0].values, (std::vector<std::string>{"api", "web"}));
  const MetricsSource& m = p.spec.metricsSource;
  EXPECT_EQ(m.prometheus->headers.at("X-Scope-OrgID"), "shop");
  EXPECT_EQ(m.prometheus->bearerTokenSecret, (SecretKeyRef{"prom-token", "token"}));
  EXPECT_EQ(m.prometheus->insecureSkipVerify, false);
  EXPECT_EQ(m.historyWindow, 336h);
  EXPECT_EQ(m.minimumDataPoints, 96);
  EXPECT_EQ(m.queryStep, 1min);
  EXPECT_EQ(m.rateWindow, 2min);
  EXPECT_EQ(m.podAggregation, PodAggregation::kAvg);
  EXPECT_EQ(p.spec.cpu,
            (CpuPolicy{90, "15", 50_m, 2000_m, ControlledValues::kRequestsAndLimits, true, 40}));
  EXPECT_EQ(p.spec.memory,
            (MemoryPolicy{99, "25.5", 64_Mi, 4_Gi, ControlledValues::kRequestsOnly, false, 20}));
  const UpdateStrategy& u = p.spec.updateStrategy;
  EXPECT_EQ(u.type, UpdateMode::kCanary);
  EXPECT_EQ(u.canary, (CanaryConfig{10, 30min, true}));
  EXPECT_EQ(u.cooldown, 2h);
  EXPECT_EQ(u.autoRevert, true);
  EXPECT_EQ(u.safetyObservationPeriod, 10min);
  EXPECT_EQ(u.maxConcurrentResizes, 5);
  EXPECT_EQ(p.spec.excludedContainers, std::vector<std::string>{"log-shipper"});
  EXPECT_EQ(p.spec.weight, 200);
  EXPECT_EQ(p.spec.strategy, RecommendationStrategy::kCruisekube);

  const AttunePolicyStatus& s = p.status;
  EXPECT_EQ(s.observedGeneration, 3);
  EXPECT_EQ(s.consecutiveReverts, 1);
  ASSERT_EQ(s.conditions.size(), 1u);
  EXPECT_EQ(s.conditions[0].status, "True");
  EXPECT_EQ(s.conditions[0].observedGeneration, 3);
  const ContainerRecommendation& c = s.recommendations.at(0).containers.at(0);
  EXPECT_EQ(c.current.cpuLimit, 1000_m);
  EXPECT_EQ(c.recommended.memoryRequest, 384_Mi);
  EXPECT_FALSE(c.recommended.memoryLimit);
  EXPECT_EQ(c.confidence, 0.92);
  EXPECT_EQ(c.dataPoints, 2016);
  EXPECT_EQ(c.lastUpdated, *parseRfc3339("2025-01-02T03:04:05.250Z"));
  const ResizeHistoryEntry& e = s.resizeHistory.at(0);
  EXPECT_EQ(e.pod, "checkout-7d9f-abcde");
  EXPECT_EQ(e.resource, ResizedResource::kCpu);
  EXPECT_EQ(e.method, ResizeMethod::kInPlace);
  EXPECT_EQ(e.result, ResizeResult::kApplied);
}

TEST(PolicyDecodeTest, UnknownFieldIsAnErrorWithItsLine) {
  const DecodedPolicy doc = decodeOne(withSpec("  cpu:\n    percentile: 95\n    percentil: 90\n"));
  expectOnly(doc.errors, "spec.cpu.percentil", "unknown field \"percentil\"");
  EXPECT_EQ(doc.errors[0].line, 15);
  EXPECT_EQ(doc.errors[0].column, 5);
  ASSERT_TRUE(doc.policy) << "the rest of the policy is still decoded";
  EXPECT_EQ(doc.policy->spec.cpu.percentile, 95);
}

TEST(PolicyDecodeTest, UnknownFieldInsideAPublicOnlyBlockIsAnError) {
  const DecodedPolicy doc = decodeOne(
      withSpec("  cpu:\n    startupBoost:\n      multiplyer: \"3\"\n      duration: 2m\n"));
  expectOnly(doc.errors, "spec.cpu.startupBoost.multiplyer", "unknown field \"multiplyer\"");
  EXPECT_EQ(doc.errors[0].line, 15);
}

TEST(PolicyDecodeTest, PublicButUnimplementedFieldsAreAcceptedWithAWarning) {
  const DecodedPolicy doc = decodeOne(withSpec(R"(  containerPolicies:
    - containerName: app
      cpu: {percentile: 99}
  cpu:
    startupBoost: {multiplier: "3.0", duration: 2m}
    maxIncreasePercent: 20
  updateStrategy:
    resizeMethod: InPlaceOrRecreate
    schedule:
      windows: [{start: "02:00", end: "06:00"}]
      daysOfWeek: [Monday]
    sloGuardrails: [{name: p99, query: up, threshold: "1"}]
    export: {configMap: true}
)"));
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  std::vector<std::string> paths;
  for (const auto& w : doc.warnings) {
    paths.push_back(w.error.field);
    EXPECT_EQ(w.error.code, ErrorCode::kUnsupported);
    EXPECT_GT(w.line, 0);
  }
  // cpu.startupBoost and updateStrategy.sloGuardrails are modelled (slo_startup_boost_test.cc).
  EXPECT_EQ(paths,
            (std::vector<std::string>{"spec.containerPolicies", "spec.cpu.maxIncreasePercent",
                                      "spec.updateStrategy.export"}));
  EXPECT_EQ(doc.warnings[0].line, 13);
  ASSERT_EQ(doc.policy->preserved.size(), 3u);
  EXPECT_EQ(doc.policy->preserved[1], (PreservedField{"spec.cpu.maxIncreasePercent", "20"}));
}

TEST(PolicyDecodeTest, OtherMetricSourcesAreAcceptedWithAWarning) {
  const DecodedPolicy doc = decodeOne(R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: batch}
spec:
  targetRef: {kind: CronJob, name: nightly}
  metricsSource:
    datadog:
      site: datadoghq.eu
      apiKeySecretRef: {name: dd, key: api-key}
    queryParameters: {dedup: "true"}
)");
  // queryParameters belongs under prometheus: at this level it exists in neither API.
  expectOnly(doc.errors, "spec.metricsSource.queryParameters", "unknown field \"queryParameters\"");
  expectOnly(doc.warnings, "spec.metricsSource.datadog",
             "accepted for compatibility with the public Attune API, but not implemented by "
             "Attune: it has no effect");
}

TEST(PolicyDecodeTest, UnimplementedExtensionsAreAcceptedWithAnExtensionWarning) {
  const DecodedPolicy doc = decodeOne(withSpec(R"(  cpu:
    limitMultiplier: "1.5"
    startupBoost: {multiplier: "2", duration: 1m, excludeFromHistory: true}
  updateStrategy:
    hpaTargetBounds: {cpu: {min: 50, max: 80}}
)"));
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  const std::string extension =
      "an Attune extension, not part of the public Attune API, and not implemented by Attune: it "
      "has no effect";
  const std::string publicButUnimplemented =
      "accepted for compatibility with the public Attune API, but not implemented by Attune: it "
      "has no effect";
  std::vector<std::pair<std::string, std::string>> warnings;
  for (const auto& w : doc.warnings) {
    EXPECT_EQ(w.error.code, ErrorCode::kUnsupported);
    EXPECT_GT(w.line, 0) << w.error.field;
    warnings.emplace_back(w.error.field, w.error.message);
  }
  EXPECT_EQ(warnings, (std::vector<std::pair<std::string, std::string>>{
                          {"spec.cpu.limitMultiplier", extension},
                          {"spec.cpu.startupBoost.excludeFromHistory", extension},
                          {"spec.updateStrategy.hpaTargetBounds", extension}}));
  ASSERT_TRUE(doc.policy);
  EXPECT_EQ(doc.policy->preserved.size(), 3u);
}

TEST(PolicyDecodeTest, ModeledExtensionsDecodeWithoutAWarning) {
  const DecodedPolicy doc = decodeOne(withSpec("  strategy: cruisekube\n"));
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  EXPECT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
  EXPECT_EQ(doc.policy->spec.strategy, RecommendationStrategy::kCruisekube);
  const DecodedPolicy adaptive = decodeOne(withSpec("  strategy: adaptive\n"));
  EXPECT_TRUE(adaptive.errors.empty()) << describe(adaptive.errors);
  EXPECT_EQ(adaptive.policy->spec.strategy, RecommendationStrategy::kAdaptive);
}

TEST(PolicyDecodeTest, PublicStatusFieldsAreAcceptedSilently) {
  const DecodedPolicy doc = decodeOne(std::string(kMinimalPolicy) + R"(status:
  workloads: {discovered: 2, withRecommendations: 1, resized: 0, pending: 1}
  savings: {cpuRequestReduction: 200m}
  lastReconcileTime: "2025-01-02T03:04:05Z"
  canary: {phase: CanaryInProgress, pods: [checkout-0], startTime: "2025-01-02T03:00:00Z",
           observedGeneration: 4}
  cooldown: {backoffMultiplier: 8, consecutiveReverts: 3, effectiveCooldown: 8h0m0s}
  recommendations:
    - workload: checkout
      kind: Deployment
      containers:
        - name: app
          explanation: {cpu: {rawPercentile: 100m, overhead: 20, final: 120m}}
)");
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  EXPECT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
  // workloads, savings and lastReconcileTime are modeled; the explanation is kept verbatim.
  ASSERT_EQ(doc.policy->preserved.size(), 1u);
  EXPECT_EQ(doc.policy->preserved[0].path, "status.recommendations[0].containers[0].explanation");
  ASSERT_TRUE(doc.policy->status.workloads.has_value());
  EXPECT_EQ(doc.policy->status.workloads->discovered, 2);
  EXPECT_EQ(doc.policy->status.workloads->pending, 1);
  ASSERT_TRUE(doc.policy->status.savings.has_value());
  EXPECT_EQ(doc.policy->status.savings->cpuRequestReduction, "200m");
  EXPECT_TRUE(doc.policy->status.lastReconcileTime.has_value());
  ASSERT_TRUE(doc.policy->status.canary.has_value());
  EXPECT_EQ(doc.policy->status.canary->phase, "CanaryInProgress");
  EXPECT_EQ(doc.policy->status.canary->pods, std::vector<std::string>{"checkout-0"});
  EXPECT_EQ(doc.policy->status.canary->observedGeneration, 4);
  ASSERT_TRUE(doc.policy->status.cooldown.has_value());
  EXPECT_EQ(doc.policy->status.cooldown->backoffMultiplier, 8);
  EXPECT_EQ(doc.policy->status.cooldown->consecutiveReverts, 3);
  EXPECT_EQ(doc.policy->status.cooldown->effectiveCooldown, "8h0m0s");
}

TEST(PolicyDecodeTest, MetadataFieldsBeyondObjectMetaArePreserved) {
  const DecodedPolicy doc = decodeOne(R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata:
  name: checkout
  generation: 4
  creationTimestamp: "2025-01-01T00:00:00Z"
  finalizers: [attune.io/cleanup]
  managedFields: [{manager: kubectl, operation: Update}]
  ownerReferences: [{apiVersion: v1, kind: ConfigMap, name: owner, uid: u1, controller: true,
                     blockOwnerDeletion: true}]
spec:
  targetRef: {kind: Deployment, name: checkout}
)");
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  EXPECT_TRUE(doc.warnings.empty()) << describe(doc.warnings);
  const ObjectMeta& m = doc.policy->metadata;
  EXPECT_EQ(m.generation, 4);
  EXPECT_EQ(m.creationTimestamp, *parseRfc3339("2025-01-01T00:00:00Z"));
  ASSERT_EQ(m.ownerReferences.size(), 1u);
  EXPECT_TRUE(m.ownerReferences[0].controller);
  EXPECT_EQ(doc.policy->preserved.size(), 3u);
}

TEST(PolicyDecodeTest, DecodesEveryDocumentOfAStream) {
  const auto docs = decodePolicies(std::string(kMinimalPolicy) + R"(---
apiVersion: apps/v1
kind: Deployment
metadata: {name: checkout}
---
---
)" + std::string(kMinimalPolicy));
  ASSERT_EQ(docs.size(), 3u);
  EXPECT_TRUE(docs[0].policy && docs[0].errors.empty());
  EXPECT_EQ(docs[1].documentIndex, 1);
  EXPECT_EQ(docs[1].line, 14);
  EXPECT_FALSE(docs[1].policy);
  ASSERT_EQ(docs[1].errors.size(), 2u) << describe(docs[1].errors);
  EXPECT_EQ(docs[1].errors[0].error.toString(),
            "apiVersion: must be attune.io/v1alpha1, got \"apps/v1\"");
  EXPECT_EQ(docs[1].errors[1].error.toString(), "kind: must be AttunePolicy, got \"Deployment\"");
  EXPECT_EQ(docs[2].documentIndex, 3) << "the empty document keeps its index";
  EXPECT_EQ(docs[2].line, 19);
  EXPECT_TRUE(docs[2].policy && docs[2].errors.empty());
}

TEST(PolicyDecodeTest, DecodesJson) {
  const DecodedPolicy doc = decodeOne(R"({
  "apiVersion": "attune.io/v1alpha1",
  "kind": "AttunePolicy",
  "metadata": {"name": "checkout"},
  "spec": {
    "targetRef": {"kind": "StatefulSet", "name": "db"},
    "cpu": {"percentile": 99, "minAllowed": "100m", "maxAllowed": 2},
    "updateStrategy": {"type": "Auto", "cooldown": "30m", "autoRevert": false},
    "bogus": 1
  }
})");
  expectOnly(doc.errors, "spec.bogus", "unknown field \"bogus\"");
  EXPECT_EQ(doc.errors[0].line, 9);
  const AttunePolicy& p = *doc.policy;
  EXPECT_EQ(p.spec.targetRef.kind, TargetKind::kStatefulSet);
  EXPECT_EQ(p.spec.cpu.percentile, 99);
  EXPECT_EQ(p.spec.cpu.maxAllowed, 2000_m);
  EXPECT_EQ(p.spec.updateStrategy.type, UpdateMode::kAuto);
  EXPECT_EQ(p.spec.updateStrategy.autoRevert, false);
}

TEST(PolicyDecodeTest, DecodesKubectlLists) {
  const auto docs = decodePolicies(R"(apiVersion: v1
kind: List
items:
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: a}
    spec: {targetRef: {kind: Job, name: a}}
  - apiVersion: attune.io/v1alpha1
    kind: AttunePolicy
    metadata: {name: b}
    spec: {targetRef: {kind: DaemonSet, name: b}}
)");
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[1].policy->metadata.name, "b");
  EXPECT_EQ(docs[1].line, 8);
}

TEST(PolicyDecodeTest, WrongTypesAreErrorsWithPaths) {
  const DecodedPolicy doc = decodeOne(withSpec(R"(  cpu:
    percentile: "95"
    allowDecrease: 1
    maxChangePercent: 12.5
  memory: [99]
  excludedContainers: istio-proxy
  paused: "true"
  weight: 99999999999
  updateStrategy:
    type: auto
)"));
  ASSERT_EQ(doc.errors.size(), 8u) << describe(doc.errors);
  EXPECT_EQ(doc.errors[0].error.toString(),
            "spec.cpu.percentile: must be an integer, got string \"95\"");
  EXPECT_EQ(doc.errors[1].error.toString(),
            "spec.cpu.allowDecrease: must be a boolean, got integer \"1\"");
  EXPECT_EQ(doc.errors[2].error.toString(),
            "spec.cpu.maxChangePercent: must be an integer, got number \"12.5\"");
  EXPECT_EQ(doc.errors[3].error.toString(), "spec.memory: must be an object, got list");
  EXPECT_EQ(doc.errors[4].error.toString(),
            "spec.excludedContainers: must be a list, got string \"istio-proxy\"");
  EXPECT_EQ(doc.errors[5].error.toString(), "spec.paused: must be a boolean, got string \"true\"");
  EXPECT_EQ(doc.errors[6].error.toString(),
            "spec.weight: must fit in a 32-bit integer, got 99999999999");
  EXPECT_EQ(doc.errors[7].error.toString(),
            "spec.updateStrategy.type: must be one of Observe, Recommend, OneShot, Canary, Auto; "
            "got \"auto\"");
  EXPECT_EQ(doc.errors[7].line, 22);
}

TEST(PolicyDecodeTest, BadQuantitiesAndDurationsAreErrorsWithPaths) {
  const DecodedPolicy doc = decodeOne(withSpec(R"(  cpu:
    minAllowed: 5 cores
    maxAllowed: -1
  memory:
    maxAllowed: true
  updateStrategy:
    cooldown: 1 hour
    safetyObservationPeriod: 300
)"));
  ASSERT_EQ(doc.errors.size(), 5u) << describe(doc.errors);
  EXPECT_EQ(doc.errors[0].error.field, "spec.cpu.minAllowed");
  EXPECT_EQ(doc.errors[1].error.field, "spec.cpu.maxAllowed");
  EXPECT_EQ(doc.errors[2].error.toString(),
            "spec.memory.maxAllowed: must be a memory quantity such as \"512Mi\", got boolean "
            "\"true\"");
  EXPECT_EQ(doc.errors[3].error.field, "spec.updateStrategy.cooldown");
  EXPECT_EQ(doc.errors[3].line, 19);
  EXPECT_EQ(doc.errors[4].error.toString(),
            "spec.updateStrategy.safetyObservationPeriod: must be a duration string such as "
            "\"5m\", got integer \"300\"");
}

TEST(PolicyDecodeTest, ApiVersionAndKindAreChecked) {
  auto doc = decodeOne("kind: AttunePolicy\nmetadata: {name: a}\n");
  expectOnly(doc.errors, "apiVersion", "required");
  EXPECT_FALSE(doc.policy);
  doc = decodeOne("apiVersion: attune.io/v1beta1\nkind: AttunePolicy\n");
  expectOnly(doc.errors, "apiVersion", "must be attune.io/v1alpha1, got \"attune.io/v1beta1\"");
}

TEST(PolicyDecodeTest, NonMappingDocumentIsAnError) {
  const DecodedPolicy doc = decodeOne("- just\n- a list\n");
  expectOnly(doc.errors, "", "a policy document must be a mapping");
  EXPECT_FALSE(doc.policy);
}

TEST(PolicyDecodeTest, YamlSyntaxErrorIsOneResultWithItsLine) {
  const auto docs = decodePolicies(std::string(kMinimalPolicy) + "---\nspec:\n  cpu: [1, 2\n");
  ASSERT_EQ(docs.size(), 1u);
  ASSERT_EQ(docs[0].errors.size(), 1u);
  EXPECT_FALSE(docs[0].policy);
  EXPECT_TRUE(docs[0].errors[0].error.message.starts_with("invalid YAML: "))
      << docs[0].errors[0].error.message;
  EXPECT_EQ(docs[0].errors[0].line, 16);
}

TEST(PolicyDecodeTest, StreamsThatWouldLoopYamlCppForeverAreSyntaxErrors) {
  // yaml-cpp 0.7's LoadAll never returns on these (jbeder/yaml-cpp#1319).
  for (std::string_view text : {std::string_view(",\n"), std::string_view("\"a\",\n")}) {
    const auto docs = decodePolicies(text);
    ASSERT_EQ(docs.size(), 1u) << text;
    ASSERT_EQ(docs[0].errors.size(), 1u) << text;
    EXPECT_TRUE(docs[0].errors[0].error.message.starts_with("invalid YAML: "));
  }
}

TEST(PolicyDecodeTest, DuplicateFieldsAreErrors) {
  const DecodedPolicy doc = decodeOne(withSpec("  paused: true\n  paused: false\n"));
  expectOnly(doc.errors, "spec.paused", "duplicate field");
  EXPECT_EQ(doc.errors[0].line, 14);
  EXPECT_EQ(doc.policy->spec.paused, true);
}

TEST(PolicyDecodeTest, NullMeansUnset) {
  const DecodedPolicy doc = decodeOne(withSpec("  cpu:\n  paused: ~\n  weight: null\n"));
  EXPECT_TRUE(doc.errors.empty()) << describe(doc.errors);
  EXPECT_FALSE(doc.policy->spec.paused);
  EXPECT_FALSE(doc.policy->spec.weight);
}

TEST(PolicyDecodeTest, ScalarsFollowKubernetesYamlRules) {
  const DecodedPolicy doc =
      decodeOne(withSpec("  paused: yes\n  excludedContainers: [on, \"no\"]\n"));
  expectOnly(doc.errors, "spec.excludedContainers[0]", "must be a string, got boolean \"on\"");
  EXPECT_EQ(doc.policy->spec.paused, true);
  EXPECT_EQ(doc.policy->spec.excludedContainers, std::vector<std::string>{"no"});
}

TEST(PolicyDecodeTest, InvalidUtf8IsAnError) {
  const DecodedPolicy doc = decodeOne(withSpec("  excludedContainers: [\"a\xff\"]\n"));
  expectOnly(doc.errors, "spec.excludedContainers[0]", "must be valid UTF-8");
}

TEST(PolicyDecodeTest, MapKeysAreAtMost317CharactersWithoutControlCharacters) {
  // Longer keys, or control characters that JSON escapes in 6 characters, could exceed the
  // 1024 characters YAML allows an implicit key once encodePolicyJson writes them, and that JSON
  // would not decode back.
  const std::string longest = std::string(253, 'a') + "/" + std::string(63, '\\');
  const auto withLabels = [](const std::string& labels) {
    std::string text(kMinimalPolicy);
    text.replace(text.find("  namespace: shop\n"), 0, "  labels: {" + labels + "}\n");
    return text;
  };
  const DecodedPolicy ok = decodeOne(withLabels("'" + longest + "': x"));
  ASSERT_TRUE(ok.errors.empty()) << describe(ok.errors);
  ASSERT_TRUE(ok.policy);
  EXPECT_EQ(ok.policy->metadata.labels.at(longest), "x");
  const std::vector<DecodedPolicy> again = decodePolicies(encodePolicyJson(*ok.policy));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_TRUE(again[0].errors.empty()) << describe(again[0].errors);
  EXPECT_EQ(again[0].policy, ok.policy);

  const std::string message =
      "a key must be at most 317 characters long, without control characters";
  const DecodedPolicy tooLong = decodeOne(withLabels("'" + longest + "b': x, team: z"));
  expectOnly(tooLong.errors, "metadata.labels[" + longest + "b]", message);
  const DecodedPolicy control = decodeOne(withLabels("\"a\\u0014b\": x"));
  expectOnly(control.errors,
             "metadata.labels[a\x14"
             "b]",
             message);
}

TEST(PolicyDecodeTest, SelfReferencingAliasIsRejectedNotFollowedForever) {
  const DecodedPolicy doc = decodeOne(withSpec("  containerPolicies: &loop [*loop]\n"));
  ASSERT_EQ(doc.errors.size(), 1u) << describe(doc.errors);
  EXPECT_EQ(doc.errors[0].error.message, "value is nested too deeply or is too large");
}

TEST(PolicyDecodeTest, ThreeMistakesAreAllReported) {
  const auto docs = checkPolicies(withSpec(R"(  cpu:
    percentile: 97
    overheadPercent: "20"
  updateStrategy:
    safetyObservationPeriod: 30s
)"));
  ASSERT_EQ(docs.size(), 1u);
  const auto& e = docs[0].errors;
  ASSERT_EQ(e.size(), 3u) << describe(e);
  EXPECT_EQ(e[0].error.toString(), "spec.cpu.percentile: must be one of 0, 50, 90, 95, 99; got 97");
  EXPECT_EQ(e[0].line, 14);
  EXPECT_EQ(e[1].error.toString(), "spec.cpu.overheadPercent: unknown field \"overheadPercent\"");
  EXPECT_EQ(e[1].line, 15);
  EXPECT_EQ(e[2].error.toString(),
            "spec.updateStrategy.safetyObservationPeriod: must be at least 1m, got 30s");
  EXPECT_EQ(e[2].line, 17);
}

TEST(PolicyDecodeTest, CheckPoliciesDoesNotRepeatDecodeErrors) {
  const auto docs = checkPolicies(R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata: {name: a}
spec:
  targetRef: {kind: Pod, name: a}
)");
  ASSERT_EQ(docs.size(), 1u);
  expectOnly(docs[0].errors, "spec.targetRef.kind",
             "must be one of Deployment, StatefulSet, DaemonSet, CronJob, Job, ReplicaSet; got "
             "\"Pod\"");
}

TEST(PolicyDecodeTest, MissingNameIsReportedByValidation) {
  const auto docs = checkPolicies(R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
spec:
  targetRef: {kind: Deployment, name: a}
)");
  ASSERT_EQ(docs.size(), 1u);
  expectOnly(docs[0].errors, "metadata.name", "required");
  EXPECT_EQ(docs[0].errors[0].line, 0) << "metadata was not written, so no line is known";
}

}  // namespace
}  // namespace attune::api
