#include "recommend/resource_pipeline.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>

#include "api/policy/policy_defaults.h"
#include "core/quantity.h"

namespace attune::recommend {
namespace {

template <typename Amount>
ResourceSettings settingsOf(const api::ResourcePolicy<Amount>& p) {
  return {.percentile = *p.percentile,
          .overheadPercent = api::parsePercent(*p.overhead).value_or(0),
          .minAllowed = static_cast<double>(p.minAllowed->value()),
          .maxAllowed = static_cast<double>(p.maxAllowed->value()),
          .controlLimits = *p.controlledValues == api::ControlledValues::kRequestsAndLimits,
          .allowDecrease = *p.allowDecrease,
          .maxChangePercent = *p.maxChangePercent};
}

template <typename Amount>
std::optional<double> unitsOf(const std::optional<Amount>& a) {
  if (!a) return std::nullopt;
  return static_cast<double>(a->value());
}

}  // namespace

std::string_view resourceName(Resource r) { return r == Resource::kCpu ? "cpu" : "memory"; }

double toUnits(Resource r, double seriesValue) {
  return r == Resource::kCpu ? seriesValue * 1000.0 : seriesValue;
}

std::int64_t roundUpUnits(double units) {
  if (!(units > 0)) return 0;
  const double up = std::ceil(units - units * 1e-12);
  if (up >= 9.2e18) return std::numeric_limits<std::int64_t>::max();
  return static_cast<std::int64_t>(up);
}

std::string formatUnits(Resource r, double units) {
  const std::int64_t v = roundUpUnits(units);
  if (r == Resource::kCpu) return formatCpu(Millicores(v));
  std::string exact = formatMemory(Bytes(v));
  // A byte count that is no whole number of KiB reads better with its size in MiB beside it.
  constexpr std::int64_t kMi = 1 << 20;
  if (v >= kMi && v % 1024 != 0) {
    char mib[40];
    std::snprintf(mib, sizeof mib, " (%.1fMi)", static_cast<double>(v) / kMi);
    exact += mib;
  }
  return exact;
}

double Explainer::step(std::string_view what, double units) {
  if (out_ != nullptr) note(what, formatUnits(resource_, units));
  return units;
}

void Explainer::note(std::string_view what, std::string value) {
  if (out_ == nullptr) return;
  std::string full(resourceName(resource_));
  full += ": ";
  full += what;
  out_->push_back({std::move(full), std::move(value)});
}

std::expected<double, std::string> require(std::optional<double> value, Resource r,
                                           std::string_view where) {
  if (value) return *value;
  std::string why = "no ";
  why += resourceName(r);
  why += " sample ";
  why += where;
  return std::unexpected(std::move(why));
}

const stats::Series& seriesOf(const StrategyInput& in, Resource r) {
  return r == Resource::kCpu ? in.stats.cpu() : in.stats.memory();
}

std::optional<double> currentRequest(const StrategyInput& in, Resource r) {
  return r == Resource::kCpu ? unitsOf(in.current.cpuRequest) : unitsOf(in.current.memoryRequest);
}

std::optional<double> currentLimit(const StrategyInput& in, Resource r) {
  return r == Resource::kCpu ? unitsOf(in.current.cpuLimit) : unitsOf(in.current.memoryLimit);
}

Recommendation recommendEach(const StrategyInput& in,
                             const std::function<Outcome(Resource, Explainer&)>& perResource) {
  Recommendation rec;
  const int needed =
      in.policy.metricsSource.minimumDataPoints.value_or(api::kDefaultMinimumDataPoints);
  const std::uint64_t have =
      std::min(in.stats.cpu().count(in.now), in.stats.memory().count(in.now));
  if (have < static_cast<std::uint64_t>(std::max(needed, 1))) {
    rec.reason = std::to_string(have) + " of " + std::to_string(needed) + " data points";
    return rec;
  }
  api::ResourceValues values;
  for (Resource r : {Resource::kCpu, Resource::kMemory}) {
    Explainer ex(r, rec.explanation);
    const Outcome out = perResource(r, ex);
    if (!out) {
      rec.reason = out.error();
      return rec;
    }
    const std::int64_t request = roundUpUnits(out->request);
    std::optional<std::int64_t> limit;
    if (out->limit) limit = roundUpUnits(*out->limit);
    if (r == Resource::kCpu) {
      values.cpuRequest = Millicores(request);
      if (limit) values.cpuLimit = Millicores(*limit);
    } else {
      values.memoryRequest = Bytes(request);
      if (limit) values.memoryLimit = Bytes(*limit);
    }
  }
  rec.resources = values;
  rec.enoughData = true;
  return rec;
}

Recommendation recommendEachWithinBounds(
    const StrategyInput& in, const std::function<Outcome(Resource, Explainer&)>& perResource) {
  return recommendEach(in, [&](Resource r, Explainer& ex) -> Outcome {
    Outcome out = perResource(r, ex);
    if (!out) return out;
    const ResourceSettings s = resolveSettings(in.policy, r);
    if (out->request < s.minAllowed || out->request > s.maxAllowed) {
      out->request = ex.step("clamped to the policy's [" + formatUnits(r, s.minAllowed) + ", " +
                                 formatUnits(r, s.maxAllowed) + "]",
                             std::clamp(out->request, s.minAllowed, s.maxAllowed));
      if (out->limit && *out->limit < out->request) {
        out->limit = ex.step("limit raised to the request", out->request);
      }
    }
    return out;
  });
}

double daysOfData(const stats::ContainerStats& s, Time now) {
  const std::optional<Time> first = s.firstSampleTime();
  if (!first || now <= *first) return 0;
  return std::chrono::duration<double>(now - *first).count() / 86400.0;
}

ResourceSettings resolveSettings(const api::AttunePolicySpec& policy, Resource r) {
  api::AttunePolicy resolved;
  resolved.spec.cpu = policy.cpu;
  resolved.spec.memory = policy.memory;
  api::applyDefaults(resolved);
  return r == Resource::kCpu ? settingsOf(resolved.spec.cpu) : settingsOf(resolved.spec.memory);
}

double applyChangeRules(double target, const ChangeRules& rules, Explainer& ex) {
  if (!rules.current) return target;
  const double current = *rules.current;
  if (!rules.allowDecrease && target < current) {
    return ex.step("decrease not allowed: kept current", current);
  }
  if (current <= 0) return target;
  const double change = (target - current) / current * 100.0;
  if (std::abs(change) < rules.minChangePercent) {
    return ex.step("change " + formatPercent(change) + " < " +
                       formatPercent(rules.minChangePercent).substr(1) + ": kept current",
                   current);
  }
  if (rules.maxChangePercent && std::abs(change) > *rules.maxChangePercent) {
    const double capped = current * (1 + std::copysign(*rules.maxChangePercent, change) / 100.0);
    return ex.step("change " + formatPercent(change) + " capped at ±" +
                       std::to_string(*rules.maxChangePercent) + "%",
                   capped);
  }
  return target;
}

ResourceOutcome withLimit(double request, std::optional<double> currentRequest,
                          std::optional<double> currentLimit, bool controlLimits, Explainer& ex) {
  if (controlLimits && currentRequest && currentLimit && *currentRequest > 0) {
    const double ratio = *currentLimit / *currentRequest;
    char text[64];
    std::snprintf(text, sizeof text, "limit = request × %.3g (current ratio)", ratio);
    return {request, ex.step(text, request * ratio)};
  }
  if (currentLimit && request > *currentLimit) {
    request = ex.step("capped at current limit", *currentLimit);
  }
  return {request, currentLimit};
}

std::string percentileName(int percentile) { return "p" + std::to_string(percentile); }

std::string formatPercent(double percent) {
  char text[32];
  const double rounded = std::round(percent * 10) / 10;
  if (rounded == std::round(rounded)) {
    std::snprintf(text, sizeof text, "%+.0f%%", rounded);
  } else {
    std::snprintf(text, sizeof text, "%+.1f%%", rounded);
  }
  return text;
}

}  // namespace attune::recommend
