#include "hpa/guard_floor.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

namespace attune::hpa {
namespace {

// Keeps a computed floor inside int32 before the conversion (a huge query result, a tiny
// requestsPerReplica).
std::int32_t toReplicas(double value) {
  constexpr double kMax = std::numeric_limits<std::int32_t>::max();
  return static_cast<std::int32_t>(std::clamp(value, -kMax, kMax));
}

const std::string* find(const api::StringMap& annotations, std::string_view name) {
  auto it = annotations.find(name);
  return it == annotations.end() ? nullptr : &it->second;
}

Result<double> parseNumber(const std::string& text, std::string_view annotation) {
  std::string_view digits = text;
  if (digits.starts_with('+')) digits.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() ||
      !std::isfinite(value)) {
    return fail(ErrorCode::kInvalidArgument, "want a number, got \"" + text + "\"",
                std::string(annotation));
  }
  return value;
}

}  // namespace

bool guarded(const api::ObjectMeta& meta) {
  const std::string* value = find(meta.annotations, kGuardAnnotation);
  return value != nullptr && *value == "true";
}

Result<GuardSettings> parseGuardSettings(const api::StringMap& annotations) {
  GuardSettings s;
  if (const std::string* query = find(annotations, kQueryAnnotation)) s.query = *query;
  if (const std::string* text = find(annotations, kRequestsPerReplicaAnnotation)) {
    auto value = parseNumber(*text, kRequestsPerReplicaAnnotation);
    if (!value) return std::unexpected(value.error());
    if (*value <= 0) {
      return fail(ErrorCode::kInvalidArgument, "must be greater than 0, got \"" + *text + "\"",
                  std::string(kRequestsPerReplicaAnnotation));
    }
    s.requestsPerReplica = *value;
  }
  if (const std::string* text = find(annotations, kDeltaAnnotation)) {
    auto value = parseNumber(*text, kDeltaAnnotation);
    if (!value) return std::unexpected(value.error());
    s.delta = *value;
  }
  if (const std::string* text = find(annotations, kScaleDownMaxRatioAnnotation)) {
    auto value = parseNumber(*text, kScaleDownMaxRatioAnnotation);
    if (!value) return std::unexpected(value.error());
    if (*value < 0 || *value > 1) {
      return fail(ErrorCode::kInvalidArgument, "must be between 0 and 1, got \"" + *text + "\"",
                  std::string(kScaleDownMaxRatioAnnotation));
    }
    s.scaleDownMaxRatio = *value;
  }
  if (const std::string* text = find(annotations, kDeploymentCheckingAnnotation)) {
    if (*text != "true" && *text != "false") {
      return fail(ErrorCode::kInvalidArgument, "want \"true\" or \"false\", got \"" + *text + "\"",
                  std::string(kDeploymentCheckingAnnotation));
    }
    s.deploymentChecking = *text == "true";
  }
  return s;
}

bool rolloutInProgress(const api::ScaleTargetRef& target,
                       std::span<const api::ReplicaSet> replicaSets) {
  if (target.kind != "Deployment") return false;
  const auto withReplicas =
      std::count_if(replicaSets.begin(), replicaSets.end(), [&](const api::ReplicaSet& rs) {
        const api::OwnerReference* owner = rs.metadata.controllerRef();
        return owner != nullptr && owner->kind == "Deployment" && owner->name == target.name &&
               rs.status.replicas > 0;
      });
  return withReplicas > 1;
}

FloorDecision decideFloor(const GuardSettings& settings, const FloorInputs& inputs) {
  FloorDecision d;
  if (!settings.query.empty()) {
    if (!inputs.queryResult || !std::isfinite(*inputs.queryResult)) {
      d.noData = true;
      return d;  // fail safe: never move the floor on missing data
    }
    d.queryFloor =
        toReplicas(std::ceil(settings.delta + *inputs.queryResult / settings.requestsPerReplica));
  }
  if (settings.scaleDownMaxRatio && inputs.currentReplicas > 0) {
    if (settings.deploymentChecking && inputs.rolloutInProgress) {
      d.ratioSkippedForRollout = true;
    } else {
      // current − floor(current × ratio) = ceil(current × (1 − ratio)), in integers; the
      // epsilon keeps 100 × 0.29 from flooring to 28.
      const std::int32_t current = inputs.currentReplicas;
      const auto removable =
          static_cast<std::int32_t>(std::floor(current * *settings.scaleDownMaxRatio + 1e-9));
      d.ratioFloor = current - std::max<std::int32_t>(removable, 1);
    }
  }
  if (!d.queryFloor && !d.ratioFloor) return d;
  std::int32_t floor = std::max(d.queryFloor.value_or(0), d.ratioFloor.value_or(0));
  if (inputs.maxReplicas >= 1 && floor > inputs.maxReplicas) {
    floor = inputs.maxReplicas;
    d.cappedAtMax = true;
  }
  d.minReplicas = std::max(floor, 1);
  return d;
}

std::string describe(const FloorDecision& d, const FloorInputs& inputs) {
  if (d.noData) return "the query gave no value";
  std::string out;
  auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (d.queryFloor) {
    char result[32];
    std::snprintf(result, sizeof result, "%g", inputs.queryResult.value_or(0));
    add("query floor " + std::to_string(*d.queryFloor) + " (result " + result + ")");
  }
  if (d.ratioFloor) {
    add("scale-down ratio floor " + std::to_string(*d.ratioFloor) + " of " +
        std::to_string(inputs.currentReplicas) + " replicas");
  }
  if (d.ratioSkippedForRollout) add("scale-down ratio skipped: a rollout is in progress");
  if (d.cappedAtMax) add("capped at maxReplicas " + std::to_string(inputs.maxReplicas));
  if (out.empty()) out = "no floor to compute";
  return out;
}

}  // namespace attune::hpa
