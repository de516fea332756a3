#include "api/policy/policy_defaults.h"

#include <algorithm>

#include "api/policy/runtime_profile.h"

namespace attune::api {
namespace {

template <typename T, typename U>
void fill(std::optional<T>& field, const U& value) {
  if (!field) field = T(value);
}

struct ResourceDefaults {
  int percentile;
  std::string_view overhead;
  bool allowDecrease;
  int maxChangePercent;
};

template <typename Amount>
void defaultResource(ResourcePolicy<Amount>& r, const ResourceDefaults& d, Amount min, Amount max) {
  if (r.percentile.value_or(0) == 0) r.percentile = d.percentile;
  if (r.overhead.value_or("").empty()) r.overhead = std::string(d.overhead);
  // A defaulted bound gives way to an explicit bound on the other side.
  if (!r.minAllowed) r.minAllowed = r.maxAllowed ? std::min(min, *r.maxAllowed) : min;
  if (!r.maxAllowed) r.maxAllowed = std::max(max, *r.minAllowed);
  fill(r.controlledValues, kDefaultControlledValues);
  fill(r.allowDecrease, d.allowDecrease);
  fill(r.maxChangePercent, d.maxChangePercent);
}

void defaultMetricsSource(MetricsSource& m) {
  fill(m.historyWindow, kDefaultHistoryWindow);
  fill(m.minimumDataPoints, kDefaultMinimumDataPoints);
  fill(m.queryStep, kDefaultQueryStep);
  fill(m.rateWindow, std::max(*m.queryStep, kMinimumRateWindow));
  fill(m.podAggregation, kDefaultPodAggregation);
}

void defaultUpdateStrategy(UpdateStrategy& u) {
  fill(u.type, kDefaultUpdateMode);
  fill(u.cooldown, kDefaultCooldown);
  fill(u.autoRevert, kDefaultAutoRevert);
  if (u.canary) {
    fill(u.canary->autoPromote, kDefaultCanaryAutoPromote);
    if (u.canary->observationPeriod) fill(u.safetyObservationPeriod, *u.canary->observationPeriod);
  }
  fill(u.safetyObservationPeriod, kDefaultSafetyObservationPeriod);
  fill(u.maxConcurrentResizes, kDefaultMaxConcurrentResizes);
  if (u.schedule) fill(u.schedule->timezone, std::string(kDefaultScheduleTimezone));
  for (SloGuardrail& g : u.sloGuardrails) {
    fill(g.comparison, kDefaultSloComparison);
    fill(g.evaluationWindow, kDefaultSloEvaluationWindow);
  }
  fill(u.resizeMethod, kDefaultResizeMethod);
}

}  // namespace

void applyDefaults(AttunePolicy& policy) {
  AttunePolicySpec& spec = policy.spec;
  applyRuntimeProfile(spec);  // before the built-in defaults: the profile's values win over them
  defaultMetricsSource(spec.metricsSource);
  defaultResource(spec.cpu,
                  {kDefaultCpuPercentile, kDefaultCpuOverhead, kDefaultCpuAllowDecrease,
                   kDefaultCpuMaxChangePercent},
                  kDefaultCpuMinAllowed, kDefaultCpuMaxAllowed);
  defaultResource(spec.memory,
                  {kDefaultMemoryPercentile, kDefaultMemoryOverhead, kDefaultMemoryAllowDecrease,
                   kDefaultMemoryMaxChangePercent},
                  kDefaultMemoryMinAllowed, kDefaultMemoryMaxAllowed);
  fill(spec.memory.decreaseUsageMarginPercent, kDefaultDecreaseUsageMarginPercent);
  defaultUpdateStrategy(spec.updateStrategy);
  fill(spec.excludeKnownSidecars, kDefaultExcludeKnownSidecars);
  fill(spec.paused, kDefaultPaused);
  fill(spec.weight, kDefaultWeight);
  fill(spec.strategy, kDefaultStrategy);
}

}  // namespace attune::api
