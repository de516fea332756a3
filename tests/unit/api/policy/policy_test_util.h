// Helpers shared by the AttunePolicy tests: a valid base policy and diagnostic matchers.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "api/policy/policy_codec.h"

namespace attune::api::testing {

// A minimal valid policy: one Deployment by name, Prometheus as the source.
inline constexpr std::string_view kMinimalPolicy = R"(apiVersion: attune.io/v1alpha1
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
)";

// A policy that sets every field Attune models, status included, all valid.
inline constexpr std::string_view kFullPolicy = R"(apiVersion: attune.io/v1alpha1
kind: AttunePolicy
metadata:
  name: checkout
  namespace: shop
  labels:
    team: payments
spec:
  targetRef:
    kind: Deployment
    name: checkout
    selector:
      matchLabels:
        app: checkout
      matchExpressions:
        - key: tier
          operator: In
          values: [api, web]
  metricsSource:
    prometheus:
      address: https://prometheus.monitoring:9090
      headers:
        X-Scope-OrgID: shop
      bearerTokenSecret:
        name: prom-token
        key: token
      tls:
        insecureSkipVerify: false
    historyWindow: 336h
    minimumDataPoints: 96
    queryStep: 1m
    rateWindow: 2m
    podAggregation: Avg
  cpu:
    percentile: 90
    overhead: "15"
    minAllowed: 50m
    maxAllowed: "2"
    controlledValues: RequestsAndLimits
    allowDecrease: true
    maxChangePercent: 40
  memory:
    percentile: 99
    overhead: "25.5"
    minAllowed: 64Mi
    maxAllowed: 4Gi
    controlledValues: RequestsOnly
    allowDecrease: false
    maxChangePercent: 20
  updateStrategy:
    type: Canary
    canary:
      percentage: 10
      observationPeriod: 30m
      autoPromote: true
    cooldown: 2h
    autoRevert: true
    safetyObservationPeriod: 10m
    maxConcurrentResizes: 5
  excludedContainers: [log-shipper]
  excludeKnownSidecars: true
  paused: false
  weight: 200
  strategy: cruisekube
status:
  observedGeneration: 3
  consecutiveReverts: 1
  lastResizeTime: "2025-01-02T03:04:05Z"
  conditions:
    - type: Ready
      status: "True"
      reason: Monitoring
      message: collecting metrics
      lastTransitionTime: "2025-01-02T03:04:05Z"
      observedGeneration: 3
  recommendations:
    - workload: checkout
      kind: Deployment
      lastDataTime: "2025-01-02T03:00:00Z"
      stale: false
      containers:
        - name: app
          current: {cpuRequest: 500m, cpuLimit: "1", memoryRequest: 512Mi, memoryLimit: 1Gi}
          recommended: {cpuRequest: 250m, cpuLimit: 500m, memoryRequest: 384Mi}
          confidence: 0.92
          dataPoints: 2016
          lastUpdated: "2025-01-02T03:04:05.250Z"
          rationale: p90 of 217m plus 15% overhead, within [50m, 2]
  resizeHistory:
    - timestamp: "2025-01-02T03:04:05Z"
      workload: checkout
      pod: checkout-7d9f-abcde
      container: app
      resource: cpu
      from: 500m
      to: 250m
      method: InPlace
      result: Applied
)";

// Decodes a stream that must hold exactly one document; fails the test otherwise.
inline DecodedPolicy decodeOne(std::string_view text) {
  std::vector<DecodedPolicy> docs = decodePolicies(text);
  EXPECT_EQ(docs.size(), 1u) << text;
  return docs.empty() ? DecodedPolicy{} : std::move(docs.front());
}

// Decodes kMinimalPolicy (which must decode cleanly) and applies defaults.
inline AttunePolicy defaultedMinimalPolicy() {
  DecodedPolicy doc = decodeOne(kMinimalPolicy);
  EXPECT_TRUE(doc.errors.empty());
  AttunePolicy policy = doc.policy.value_or(AttunePolicy{});
  applyDefaults(policy);
  return policy;
}

// A policy built in code, not decoded: a Job target with a selector, a history entry whose time
// has microseconds, a recommendation with a confidence.
inline AttunePolicy builtInCodePolicy() {
  AttunePolicy p;
  p.metadata.name = "built";
  p.spec.targetRef = {TargetKind::kJob, "nightly", LabelSelector{{{"a", "b"}}, {}}};
  p.status.resizeHistory.push_back(
      {.timestamp = Time(std::chrono::seconds(1'700'000'000)) + std::chrono::microseconds(5),
       .container = "app",
       .resource = ResizedResource::kCpuAndMemory,
       .result = ResizeResult::kSkipped,
       .reason = "quota"});
  p.status.recommendations.push_back(
      {.workload = "w", .containers = {{.name = "app", .confidence = 1.0}}});
  return p;
}

// "line N: path: message" per diagnostic, for failure output.
inline std::string describe(const std::vector<PolicyDiagnostic>& diagnostics) {
  std::string out;
  for (const auto& d : diagnostics) {
    out += "  line " + std::to_string(d.line) + ": " + d.error.toString() + "\n";
  }
  return out.empty() ? "  (none)\n" : out;
}

// The diagnostic for `path`, or nullptr.
inline const PolicyDiagnostic* find(const std::vector<PolicyDiagnostic>& diagnostics,
                                    std::string_view path) {
  for (const auto& d : diagnostics) {
    if (d.error.field == path) return &d;
  }
  return nullptr;
}

// Expects exactly one diagnostic, at `path`, whose message is `message`.
inline void expectOnly(const std::vector<PolicyDiagnostic>& diagnostics, std::string_view path,
                       std::string_view message) {
  ASSERT_EQ(diagnostics.size(), 1u) << describe(diagnostics);
  EXPECT_EQ(diagnostics[0].error.field, path);
  EXPECT_EQ(diagnostics[0].error.message, message);
}

}  // namespace attune::api::testing
