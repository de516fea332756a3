// Reading the AttunePolicies an API server returns (kube::wire::decodePolicy): a status write's
// response and every policy watch event. A policy as a reconcile pass leaves it (one
// Deployment's recommendation, conditions, twenty resize history entries) is decoded over and
// over, and, as the baseline measured in the same run, the same policy carrying one field Attune
// preserves without modelling it, which wire::decodePolicy reads through the YAML decoder (the
// way every policy was read before decodePolicyJson). Prints decodes per second and the ratio.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "api/policy/policy_codec.h"
#include "core/clock.h"
#include "kube/wire.h"

namespace {

using namespace attune;

api::AttunePolicy passedPolicy() {
  api::AttunePolicy p;
  p.metadata.name = "app-00042";
  p.metadata.namespace_ = "team-0042";
  p.metadata.resourceVersion = "123456";
  p.metadata.generation = 1;
  p.metadata.uid = "5b0f0c1e-1111-4e7a-9c55-7f3f3f3f3f3f";
  p.spec.targetRef = {api::TargetKind::kDeployment, "app-00042", std::nullopt};
  p.spec.updateStrategy.type = api::UpdateMode::kAuto;
  const Time t0 = Time(std::chrono::seconds(1'790'000'000));
  p.status.observedGeneration = 1;
  p.status.lastReconcileTime = t0;
  for (const char* type : {"Ready", "Resizing", "Degraded"}) {
    p.status.conditions.push_back({.type = type,
                                   .status = "True",
                                   .reason = "Reason",
                                   .message = "a message of a few words",
                                   .lastTransitionTime = t0,
                                   .observedGeneration = 1});
  }
  api::WorkloadRecommendation w{.workload = "app-00042"};
  api::ContainerRecommendation c{.name = "app"};
  c.confidence = 0.9;
  c.dataPoints = 1440;
  c.lastUpdated = t0;
  c.rationale = "p95 of a day of usage plus 15% overhead";
  w.containers.push_back(c);
  p.status.recommendations.push_back(w);
  for (int i = 0; i < 20; ++i) {
    p.status.resizeHistory.push_back({.timestamp = t0 - std::chrono::minutes(i),
                                      .workload = "app-00042",
                                      .pod = "app-00042-7c9d8f-" + std::to_string(i),
                                      .container = "app",
                                      .resource = api::ResizedResource::kCpu,
                                      .from = "500m",
                                      .to = "150m",
                                      .method = api::ResizeMethod::kInPlace,
                                      .result = api::ResizeResult::kSuccess,
                                      .reason = {}});
  }
  return p;
}

// Decodes `json` `n` times; seconds per decode.
double secondsPerDecode(const std::string& json, int n) {
  SystemClock wall;
  const Time start = wall.now();
  std::size_t kept = 0;
  for (int i = 0; i < n; ++i) {
    auto policy = kube::wire::decodePolicy(json);
    if (!policy) {
      std::fprintf(stderr, "decode failed: %s\n", policy.error().message.c_str());
      std::exit(1);
    }
    kept += policy->status.resizeHistory.size() + policy->preserved.size();
  }
  const std::chrono::duration<double> took = wall.now() - start;
  if (kept == 0) std::exit(1);
  return took.count() / n;
}

}  // namespace

int main() {
  const std::string json = api::encodePolicyJson(passedPolicy());
  // One public field Attune keeps without modelling (status.recommendations[].containers[].
  // explanation): the object goes through the YAML decoder.
  nlohmann::json withPreserved = nlohmann::json::parse(json);
  withPreserved["status"]["recommendations"][0]["containers"][0]["explanation"] = {
      {"cpu", {{"overhead", 1}}}};
  const std::string preserving = withPreserved.dump();
  constexpr int kDecodes = 20000;
  (void)secondsPerDecode(json, kDecodes / 10);  // warm-up
  const double yaml = secondsPerDecode(preserving, kDecodes);
  const double direct = secondsPerDecode(json, kDecodes);
  std::printf("policy of %zu bytes (20 history entries)\n", json.size());
  std::printf("baseline: through the YAML decoder   %8.1f us  %8.0f policies/s\n", yaml * 1e6,
              1 / yaml);
  std::printf("read directly (decodePolicyJson)     %8.1f us  %8.0f policies/s   %.1fx faster\n",
              direct * 1e6, 1 / direct, yaml / direct);
  return 0;
}
