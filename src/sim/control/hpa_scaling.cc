#include "sim/control/hpa_scaling.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace attune::sim {
namespace {

constexpr std::int32_t kDefaultScaleDownWindowSeconds = 300;

api::HpaScalingRules withDefaults(const std::optional<api::HpaScalingRules>& rules,
                                  api::HpaScalingRules defaults) {
  if (!rules) return defaults;
  if (!rules->selectPolicy.empty()) defaults.selectPolicy = rules->selectPolicy;
  if (rules->stabilizationWindowSeconds) {
    defaults.stabilizationWindowSeconds = rules->stabilizationWindowSeconds;
  }
  if (!rules->policies.empty()) defaults.policies = rules->policies;
  if (rules->tolerance) defaults.tolerance = rules->tolerance;
  return defaults;
}

api::Condition condition(std::string type, bool status, std::string reason, std::string message) {
  return api::Condition{std::move(type), status ? "True" : "False", std::move(reason),
                        std::move(message)};
}

Duration seconds(std::int32_t s) { return std::chrono::seconds(s); }

std::int32_t changeWithin(const std::vector<HpaScalingMemory::ScaleEvent>& events,
                          std::int32_t periodSeconds, Time now) {
  const Time cutoff = now - seconds(periodSeconds);
  std::int32_t sum = 0;
  for (const auto& e : events) {
    if (e.at > cutoff) sum += e.change;
  }
  return sum;
}

// The replica count at the start of the last `periodSeconds`: current, less the replicas added
// and plus those removed within it.
std::int32_t periodStart(const HpaScalingMemory& memory, std::int32_t current,
                         std::int32_t periodSeconds, Time now) {
  return current - changeWithin(memory.scaleUps, periodSeconds, now) +
         changeWithin(memory.scaleDowns, periodSeconds, now);
}

// The highest count the policies allow now (calculateScaleUpLimitWithScalingRules).
std::int32_t scaleUpLimit(const api::HpaScalingRules& rules, const HpaScalingMemory& memory,
                          std::int32_t current, Time now) {
  if (rules.selectPolicy == "Disabled") return current;
  const bool pickMin = rules.selectPolicy == "Min";
  std::int32_t result =
      pickMin ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min();
  for (const api::HpaScalingPolicy& p : rules.policies) {
    const std::int32_t start = periodStart(memory, current, p.periodSeconds, now);
    const std::int32_t proposed =
        p.type == "Pods" ? start + p.value
                         : static_cast<std::int32_t>(std::ceil(start * (1.0 + p.value / 100.0)));
    result = pickMin ? std::min(result, proposed) : std::max(result, proposed);
  }
  return result;
}

// The lowest count the policies allow now (calculateScaleDownLimitWithBehaviors).
std::int32_t scaleDownLimit(const api::HpaScalingRules& rules, const HpaScalingMemory& memory,
                            std::int32_t current, Time now) {
  if (rules.selectPolicy == "Disabled") return current;
  const bool pickMin = rules.selectPolicy == "Min";
  std::int32_t result =
      pickMin ? std::numeric_limits<std::int32_t>::min() : std::numeric_limits<std::int32_t>::max();
  for (const api::HpaScalingPolicy& p : rules.policies) {
    const std::int32_t start = periodStart(memory, current, p.periodSeconds, now);
    const std::int32_t proposed = p.type == "Pods"
                                      ? start - p.value
                                      : static_cast<std::int32_t>(start * (1.0 - p.value / 100.0));
    result = pickMin ? std::max(result, proposed) : std::min(result, proposed);
  }
  return result;
}

// Stores `desired` in place of the oldest sample outside `oldest` cutoff, else appends it.
void remember(HpaScalingMemory& memory, std::int32_t desired, Time now, Time cutoff) {
  for (auto& rec : memory.recommendations) {
    if (rec.at < cutoff) {
      rec = {desired, now};
      return;
    }
  }
  memory.recommendations.push_back({desired, now});
}

NormalizedReplicas legacy(const api::HpaSpec& spec, HpaScalingMemory& memory, std::int32_t current,
                          std::int32_t desired, std::int32_t minReplicas, Time now) {
  const Time cutoff = now - seconds(kDefaultScaleDownWindowSeconds);
  std::int32_t stabilized = desired;
  for (const auto& rec : memory.recommendations) {
    if (rec.at >= cutoff) stabilized = std::max(stabilized, rec.replicas);
  }
  remember(memory, desired, now, cutoff);
  NormalizedReplicas out;
  out.ableToScale =
      stabilized != desired
          ? condition("AbleToScale", true, "ScaleDownStabilized",
                      "recent recommendations were higher than current one, applying the highest "
                      "recent recommendation")
          : condition("AbleToScale", true, "ReadyForNewScale",
                      "recommended size matches current size");
  const std::int32_t upLimit = std::max(2 * current, 4);
  std::int32_t maxAllowed = spec.maxReplicas;
  std::string reason = "TooManyReplicas";
  std::string message = "the desired replica count is more than the maximum replica count";
  if (spec.maxReplicas > upLimit) {
    maxAllowed = upLimit;
    reason = "ScaleUpLimit";
    message = "the desired replica count is increasing faster than the maximum scale rate";
  }
  out.replicas = stabilized;
  if (stabilized < minReplicas) {
    out.replicas = minReplicas;
    reason = "TooFewReplicas";
    message = "the desired replica count is less than the minimum replica count";
  } else if (stabilized > maxAllowed) {
    out.replicas = maxAllowed;
  } else {
    reason = "DesiredWithinRange";
    message = "the desired count is within the acceptable range";
  }
  out.scalingLimited = condition("ScalingLimited", out.replicas != stabilized, reason, message);
  return out;
}

NormalizedReplicas withBehavior(const api::HpaSpec& spec, HpaScalingMemory& memory,
                                std::int32_t current, std::int32_t desired,
                                std::int32_t minReplicas, Time now) {
  const api::HpaScalingRules up = scaleUpRules(spec.behavior->scaleUp);
  const api::HpaScalingRules down = scaleDownRules(spec.behavior->scaleDown);
  const Time upCutoff = now - seconds(up.stabilizationWindowSeconds.value_or(0));
  const Time downCutoff = now - seconds(down.stabilizationWindowSeconds.value_or(0));
  std::int32_t upRecommendation = desired;
  std::int32_t downRecommendation = desired;
  for (const auto& rec : memory.recommendations) {
    if (rec.at > upCutoff) upRecommendation = std::min(upRecommendation, rec.replicas);
    if (rec.at > downCutoff) downRecommendation = std::max(downRecommendation, rec.replicas);
  }
  const std::int32_t stabilized = std::min(std::max(current, upRecommendation), downRecommendation);
  remember(memory, desired, now, std::min(upCutoff, downCutoff));

  NormalizedReplicas out;
  if (stabilized == desired) {
    out.ableToScale =
        condition("AbleToScale", true, "ReadyForNewScale", "recommended size matches current size");
  } else if (desired >= current) {
    out.ableToScale = condition("AbleToScale", true, "ScaleUpStabilized",
                                "recent recommendations were lower than current one, applying "
                                "the lowest recent recommendation");
  } else {
    out.ableToScale = condition("AbleToScale", true, "ScaleDownStabilized",
                                "recent recommendations were higher than current one, applying "
                                "the highest recent recommendation");
  }
  out.replicas = stabilized;
  std::string reason = "DesiredWithinRange";
  std::string message = "the desired count is within the acceptable range";
  if (stabilized > current) {
    const std::int32_t limit = std::max(scaleUpLimit(up, memory, current, now), current);
    std::int32_t maxAllowed = spec.maxReplicas;
    std::string r = "TooManyReplicas";
    std::string m = "the desired replica count is more than the maximum replica count";
    if (maxAllowed > limit) {
      maxAllowed = limit;
      r = "ScaleUpLimit";
      m = "the desired replica count is increasing faster than the maximum scale rate";
    }
    if (stabilized > maxAllowed) {
      out.replicas = maxAllowed;
      reason = r;
      message = m;
    }
  } else if (stabilized < current) {
    const std::int32_t limit = std::min(scaleDownLimit(down, memory, current, now), current);
    std::int32_t minAllowed = minReplicas;
    std::string r = "TooFewReplicas";
    std::string m = "the desired replica count is less than the minimum replica count";
    if (minAllowed < limit) {
      minAllowed = limit;
      r = "ScaleDownLimit";
      m = "the desired replica count is decreasing faster than the maximum scale rate";
    }
    if (stabilized < minAllowed) {
      out.replicas = minAllowed;
      reason = r;
      message = m;
    }
  }
  out.scalingLimited = condition("ScalingLimited", out.replicas != stabilized, reason, message);
  return out;
}

}  // namespace

api::HpaScalingRules scaleUpRules(const std::optional<api::HpaScalingRules>& rules) {
  api::HpaScalingRules defaults;
  defaults.stabilizationWindowSeconds = 0;
  defaults.selectPolicy = "Max";
  defaults.policies = {{"Pods", 4, 15}, {"Percent", 100, 15}};
  return withDefaults(rules, std::move(defaults));
}

api::HpaScalingRules scaleDownRules(const std::optional<api::HpaScalingRules>& rules) {
  api::HpaScalingRules defaults;
  defaults.stabilizationWindowSeconds = kDefaultScaleDownWindowSeconds;
  defaults.selectPolicy = "Max";
  defaults.policies = {{"Percent", 100, 15}};
  return withDefaults(rules, std::move(defaults));
}

NormalizedReplicas normalizeReplicas(const api::HpaSpec& spec, HpaScalingMemory& memory,
                                     std::int32_t current, std::int32_t desired,
                                     std::int32_t minReplicas, Time now) {
  return spec.behavior ? withBehavior(spec, memory, current, desired, minReplicas, now)
                       : legacy(spec, memory, current, desired, minReplicas, now);
}

void recordScaleEvent(const api::HpaSpec& spec, HpaScalingMemory& memory, std::int32_t from,
                      std::int32_t to, Time now) {
  if (!spec.behavior || from == to) return;
  const bool up = to > from;
  const api::HpaScalingRules rules =
      up ? scaleUpRules(spec.behavior->scaleUp) : scaleDownRules(spec.behavior->scaleDown);
  std::int32_t longest = 0;
  for (const auto& p : rules.policies) longest = std::max(longest, p.periodSeconds);
  auto& events = up ? memory.scaleUps : memory.scaleDowns;
  std::erase_if(events, [&](const auto& e) { return e.at <= now - seconds(longest); });
  events.push_back({up ? to - from : from - to, now});
}

}  // namespace attune::sim
