// Defaulting of AttunePolicy: the values an unset field means. docs/policy.md lists them.
#pragma once

#include <chrono>

#include "api/policy/attune_policy.h"

namespace attune::api {

inline constexpr Duration kDefaultHistoryWindow = std::chrono::hours(168);
inline constexpr int kDefaultMinimumDataPoints = 48;
inline constexpr Duration kDefaultQueryStep = std::chrono::minutes(5);
inline constexpr Duration kMinimumRateWindow = std::chrono::seconds(30);
inline constexpr PodAggregation kDefaultPodAggregation = PodAggregation::kMax;

inline constexpr int kDefaultCpuPercentile = 95;
inline constexpr int kDefaultMemoryPercentile = 99;
inline constexpr std::string_view kDefaultCpuOverhead = "20";
inline constexpr std::string_view kDefaultMemoryOverhead = "30";
inline constexpr Millicores kDefaultCpuMinAllowed{1};
inline constexpr Millicores kDefaultCpuMaxAllowed{4000};
inline constexpr Bytes kDefaultMemoryMinAllowed{std::int64_t{4} << 20};
inline constexpr Bytes kDefaultMemoryMaxAllowed{std::int64_t{8} << 30};
inline constexpr ControlledValues kDefaultControlledValues = ControlledValues::kRequestsOnly;
inline constexpr bool kDefaultCpuAllowDecrease = true;
inline constexpr bool kDefaultMemoryAllowDecrease = false;
inline constexpr int kDefaultCpuMaxChangePercent = 50;
inline constexpr int kDefaultMemoryMaxChangePercent = 30;
inline constexpr int kDefaultDecreaseUsageMarginPercent = 10;  // spec.memory only

inline constexpr UpdateMode kDefaultUpdateMode = UpdateMode::kRecommend;
inline constexpr Duration kDefaultCooldown = std::chrono::hours(1);
inline constexpr bool kDefaultAutoRevert = true;
inline constexpr Duration kDefaultSafetyObservationPeriod = std::chrono::minutes(5);
// No observation period is shorter than this, whatever the policy says.
inline constexpr Duration kMinimumObservationPeriod = std::chrono::minutes(1);
inline constexpr int kDefaultCanaryPercentage = 10;
inline constexpr int kDefaultMaxConcurrentResizes = 1;
inline constexpr ResizeFallback kDefaultResizeMethod = ResizeFallback::kInPlaceOnly;
inline constexpr bool kDefaultCanaryAutoPromote = false;

// updateStrategy.sloGuardrails[] (docs/slo-guardrails.md).
inline constexpr SloComparison kDefaultSloComparison = SloComparison::kAbove;
inline constexpr Duration kDefaultSloEvaluationWindow = std::chrono::minutes(5);
inline constexpr Duration kMinimumSloEvaluationWindow = std::chrono::minutes(1);

inline constexpr bool kDefaultExcludeKnownSidecars = true;
inline constexpr bool kDefaultPaused = false;
inline constexpr int kDefaultWeight = 100;
inline constexpr RecommendationStrategy kDefaultStrategy = RecommendationStrategy::kAttune;

// Sets every unset defaulted field of `policy.spec` to its default. Pure and idempotent; fields
// already set are never changed, and a defaulted value never contradicts a set one:
//  - percentile 0 and an empty overhead mean "unset", as in the public API;
//  - metricsSource.rateWindow defaults to max(queryStep, 30s);
//  - a defaulted minAllowed/maxAllowed is moved to the explicit other bound when the explicit
//    bound lies beyond it (maxAllowed: 2Mi alone gives minAllowed 2Mi, not 4Mi);
//  - updateStrategy.safetyObservationPeriod defaults to canary.observationPeriod when that is
//    set, else 5m (the public precedence);
//  - canary.autoPromote defaults to false when a canary block is present;
//  - spec.runtimeProfile fills its memory fields first (runtime_profile.h).
// Metadata, status, the Prometheus address and the target are never invented.
void applyDefaults(AttunePolicy& policy);

}  // namespace attune::api
