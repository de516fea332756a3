// A small fixed RecommendReport for the renderer tests.
#pragma once

#include <chrono>

#include "report/recommend_report.h"

namespace attune::report::testing {

using namespace attune::literals;

inline recommend::Recommendation enough(api::ResourceValues v) {
  return {.resources = v,
          .enoughData = true,
          .explanation = {{"cpu: p95 over 24h", "125m"}, {"cpu: × (1 + 20%)", "150m"}}};
}

inline recommend::Recommendation notEnough() {
  return {.enoughData = false, .reason = "12 of 48 data points"};
}

// shop/Deployment/web (2 replicas): app 100m/500m 128Mi/256Mi and sidecar with no resources;
// strategies attune (values) and krr (not enough data for app).
inline RecommendReport sampleReport() {
  RecommendReport r{.source = "trace small.csv",
                    .at = Time(std::chrono::seconds(1714521600)),
                    .history = std::chrono::hours(24),
                    .step = std::chrono::minutes(5),
                    .strategies = {"attune", "krr"}};
  WorkloadReport w{.ns = "shop", .kind = "Deployment", .name = "web", .replicas = 2};
  w.containers.push_back({.name = "app",
                          .current = {.cpuRequest = 100_m,
                                      .cpuLimit = 500_m,
                                      .memoryRequest = 128_Mi,
                                      .memoryLimit = 256_Mi},
                          .dataPoints = 288,
                          .results = {{"attune", enough({.cpuRequest = 150_m,
                                                         .cpuLimit = 500_m,
                                                         .memoryRequest = 96_Mi,
                                                         .memoryLimit = 256_Mi})},
                                      {"krr", notEnough()}}});
  w.containers.push_back(
      {.name = "sidecar",
       .dataPoints = 288,
       .results = {
           {"attune", enough({.cpuRequest = 10_m, .memoryRequest = 32_Mi})},
           {"krr", enough({.cpuRequest = 20_m, .memoryRequest = 64_Mi, .memoryLimit = 64_Mi})}}});
  r.workloads.push_back(w);
  return r;
}

}  // namespace attune::report::testing
