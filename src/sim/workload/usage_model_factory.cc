#include "sim/workload/usage_model_factory.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/workload/synthetic_models.h"
#include "sim/workload/trace_replay.h"

namespace attune::sim {
namespace {

using ParamMap = std::map<std::string, double, std::less<>>;

// The range a parameter must lie in.
// kSeconds: a positive duration that fits Duration (int64 nanoseconds) with room to spare.
enum class Bound { kNonNegative, kPositive, kFraction, kHourOfDay, kAtLeastOne, kSeconds };

constexpr double kMaxSeconds = 1e9;  // ~31 years

// What is wrong with `v` for `bound`, or empty when it is fine.
std::string_view violation(double v, Bound bound) {
  if (!std::isfinite(v)) return "must be a finite number";
  switch (bound) {
    case Bound::kNonNegative:
      return v >= 0 ? "" : "must be >= 0";
    case Bound::kPositive:
      return v > 0 ? "" : "must be > 0";
    case Bound::kFraction:
      return v >= 0 && v <= 1 ? "" : "must be in [0, 1]";
    case Bound::kHourOfDay:
      return v >= 0 && v < 24 ? "" : "must be in [0, 24)";
    case Bound::kAtLeastOne:
      return v >= 1 ? "" : "must be >= 1";
    case Bound::kSeconds:
      return v > 0 && v <= kMaxSeconds ? "" : "must be in (0, 1e9] seconds";
  }
  return "";
}

template <typename P>
struct Field {
  std::string_view name;
  double P::*member;
  Bound bound;
  bool required;
};

std::unexpected<Error> paramError(std::string_view name, std::string_view message) {
  return fail(ErrorCode::kInvalidArgument, std::string(message), "params." + std::string(name));
}

// Reads `params` into a P: every key must be one of `fields`, every required field present and
// every value within its bound.
template <typename P>
Result<P> readParams(std::string_view kind, const ParamMap& params,
                     std::span<const Field<P>> fields) {
  for (const auto& [name, value] : params) {
    const bool known =
        std::ranges::any_of(fields, [&](const Field<P>& f) { return f.name == name; });
    if (!known) return paramError(name, "unknown parameter for kind \"" + std::string(kind) + "\"");
  }
  P p;
  for (const Field<P>& f : fields) {
    auto it = params.find(f.name);
    if (it == params.end()) {
      if (f.required) return paramError(f.name, "required for kind \"" + std::string(kind) + "\"");
      continue;
    }
    if (auto bad = violation(it->second, f.bound); !bad.empty()) return paramError(f.name, bad);
    p.*(f.member) = it->second;
  }
  return p;
}

// Builds a synthetic Model from its fields, after `check` (cross-field rules) accepts them.
template <typename Model, typename P, std::size_t N>
Result<UsageModelPtr> synthetic(const UsageModelSpec& spec, Random random,
                                const Field<P> (&fields)[N],
                                Result<void> (*check)(const P&) = nullptr) {
  if (!spec.container.empty()) {
    return fail(ErrorCode::kInvalidArgument, "only kind \"trace\" takes a container", "container");
  }
  auto p = readParams<P>(spec.kind, spec.params, fields);
  if (!p) return std::unexpected(p.error());
  if (check != nullptr) {
    if (auto ok = check(*p); !ok) return std::unexpected(ok.error());
  }
  return std::make_unique<Model>(*p, random);
}

constexpr Field<SteadyParams> kSteady[] = {
    {"cpuCores", &SteadyParams::cpuCores, Bound::kNonNegative, true},
    {"memoryBytes", &SteadyParams::memoryBytes, Bound::kNonNegative, true},
    {"noise", &SteadyParams::noise, Bound::kFraction, false},
};

constexpr Field<DiurnalParams> kDiurnal[] = {
    {"cpuCores", &DiurnalParams::cpuCores, Bound::kNonNegative, true},
    {"memoryBytes", &DiurnalParams::memoryBytes, Bound::kNonNegative, true},
    {"amplitude", &DiurnalParams::amplitude, Bound::kFraction, false},
    {"memoryAmplitude", &DiurnalParams::memoryAmplitude, Bound::kFraction, false},
    {"peakHour", &DiurnalParams::peakHour, Bound::kHourOfDay, false},
    {"noise", &DiurnalParams::noise, Bound::kFraction, false},
};

constexpr Field<BurstyParams> kBursty[] = {
    {"cpuCores", &BurstyParams::cpuCores, Bound::kNonNegative, true},
    {"memoryBytes", &BurstyParams::memoryBytes, Bound::kNonNegative, true},
    {"spikeProbability", &BurstyParams::spikeProbability, Bound::kFraction, false},
    {"spikeFactor", &BurstyParams::spikeFactor, Bound::kAtLeastOne, false},
    {"spikeMemoryFactor", &BurstyParams::spikeMemoryFactor, Bound::kAtLeastOne, false},
    {"noise", &BurstyParams::noise, Bound::kFraction, false},
};

constexpr Field<MemoryLeakParams> kMemoryLeak[] = {
    {"cpuCores", &MemoryLeakParams::cpuCores, Bound::kNonNegative, true},
    {"memoryBytes", &MemoryLeakParams::memoryBytes, Bound::kNonNegative, true},
    {"leakBytesPerHour", &MemoryLeakParams::leakBytesPerHour, Bound::kNonNegative, true},
    {"noise", &MemoryLeakParams::noise, Bound::kFraction, false},
};

constexpr Field<JvmParams> kJvm[] = {
    {"cpuCores", &JvmParams::cpuCores, Bound::kNonNegative, true},
    {"heapBytes", &JvmParams::heapBytes, Bound::kPositive, true},
    {"floorBytes", &JvmParams::floorBytes, Bound::kNonNegative, true},
    {"gcPeriodSeconds", &JvmParams::gcPeriodSeconds, Bound::kSeconds, false},
    {"gcDurationSeconds", &JvmParams::gcDurationSeconds, Bound::kNonNegative, false},
    {"gcCpuCores", &JvmParams::gcCpuCores, Bound::kNonNegative, false},
    {"noise", &JvmParams::noise, Bound::kFraction, false},
};

Result<void> checkJvm(const JvmParams& p) {
  if (p.floorBytes >= p.heapBytes) return paramError("floorBytes", "must be < heapBytes");
  if (p.gcDurationSeconds >= p.gcPeriodSeconds) {
    return paramError("gcDurationSeconds", "must be < gcPeriodSeconds");
  }
  return {};
}

constexpr Field<BatchParams> kBatch[] = {
    {"cpuCores", &BatchParams::cpuCores, Bound::kNonNegative, true},
    {"memoryBytes", &BatchParams::memoryBytes, Bound::kNonNegative, true},
    {"durationSeconds", &BatchParams::durationSeconds, Bound::kSeconds, true},
    {"noise", &BatchParams::noise, Bound::kFraction, false},
};

constexpr Field<ServiceParams> kService[] = {
    {"requestsPerSecond", &ServiceParams::requestsPerSecond, Bound::kNonNegative, true},
    {"cpuPerRequest", &ServiceParams::cpuPerRequest, Bound::kNonNegative, true},
    {"memoryBytes", &ServiceParams::memoryBytes, Bound::kNonNegative, true},
    {"cpuCores", &ServiceParams::cpuCores, Bound::kNonNegative, false},
    {"amplitude", &ServiceParams::amplitude, Bound::kFraction, false},
    {"peakHour", &ServiceParams::peakHour, Bound::kHourOfDay, false},
    {"noise", &ServiceParams::noise, Bound::kFraction, false},
};

Result<void> checkRateChanges(const std::vector<RateChange>& changes) {
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const RateChange& c = changes[i];
    const std::string field = "rateChanges[" + std::to_string(i) + "]";
    if (c.from < Duration::zero())
      return fail(ErrorCode::kInvalidArgument, "must be >= 0", field + ".from");
    if (c.to <= c.from)
      return fail(ErrorCode::kInvalidArgument, "must be after from", field + ".to");
    if (!std::isfinite(c.factor) || c.factor < 0) {
      return fail(ErrorCode::kInvalidArgument, "must be a finite number >= 0", field + ".factor");
    }
  }
  return {};
}

Result<UsageModelPtr> serviceModel(const UsageModelSpec& spec, Random random,
                                   const ServiceContext& context) {
  if (!spec.container.empty()) {
    return fail(ErrorCode::kInvalidArgument, "only kind \"trace\" takes a container", "container");
  }
  auto p = readParams<ServiceParams>(spec.kind, spec.params, kService);
  if (!p) return std::unexpected(p.error());
  if (auto ok = checkRateChanges(spec.rateChanges); !ok) return std::unexpected(ok.error());
  auto endpoints =
      context.endpoints ? context.endpoints : std::make_shared<const ServiceEndpoints>();
  return std::make_unique<ServiceModel>(*p, spec.rateChanges, context.simStart,
                                        std::move(endpoints), context.pod, random);
}

// Parses "namespace/pod/container".
Result<metrics::ContainerId> parseContainerId(std::string_view text) {
  const auto first = text.find('/');
  const auto second = first == text.npos ? text.npos : text.find('/', first + 1);
  if (second == text.npos || text.find('/', second + 1) != text.npos || first == 0 ||
      second == first + 1 || second + 1 == text.size()) {
    return fail(ErrorCode::kInvalidArgument,
                "want \"namespace/pod/container\", got \"" + std::string(text) + "\"", "container");
  }
  return metrics::ContainerId{std::string(text.substr(0, first)),
                              std::string(text.substr(first + 1, second - first - 1)),
                              std::string(text.substr(second + 1))};
}

Result<UsageModelPtr> traceReplay(const UsageModelSpec& spec, const ReplaySource& replay) {
  if (!spec.params.empty()) {
    return paramError(spec.params.begin()->first, "kind \"trace\" takes no parameters");
  }
  auto id = parseContainerId(spec.container);
  if (!id) return std::unexpected(id.error());
  if (replay.trace == nullptr) {
    return fail(ErrorCode::kInvalidArgument, "no trace loaded to replay from", "container");
  }
  const auto& containers = replay.trace->data().containers();
  auto it = containers.find(*id);
  if (it == containers.end()) {
    return fail(ErrorCode::kInvalidArgument, "no container \"" + spec.container + "\" in the trace",
                "container");
  }
  return std::make_unique<TraceReplayModel>(it->second, replay.trace->span().first,
                                            replay.simStart);
}

}  // namespace

Result<ServiceParams> serviceParams(const UsageModelSpec& spec) {
  return readParams<ServiceParams>(spec.kind, spec.params, kService);
}

Result<UsageModelPtr> makeUsageModel(const UsageModelSpec& spec, Random random,
                                     const ReplaySource& replay, const ServiceContext& service) {
  const std::string_view kind = spec.kind;
  if (!spec.rateChanges.empty() && kind != "service") {
    return fail(ErrorCode::kInvalidArgument, "only kind \"service\" takes rateChanges",
                "rateChanges");
  }
  if (kind == "steady") return synthetic<SteadyModel>(spec, random, kSteady);
  if (kind == "diurnal") return synthetic<DiurnalModel>(spec, random, kDiurnal);
  if (kind == "bursty") return synthetic<BurstyModel>(spec, random, kBursty);
  if (kind == "memory-leak") {
    return synthetic<MemoryLeakModel>(spec, random, kMemoryLeak);
  }
  if (kind == "jvm") return synthetic<JvmModel>(spec, random, kJvm, &checkJvm);
  if (kind == "batch") return synthetic<BatchModel>(spec, random, kBatch);
  if (kind == "trace") return traceReplay(spec, replay);
  if (kind == "service") return serviceModel(spec, random, service);
  return fail(ErrorCode::kInvalidArgument,
              "unknown usage model kind \"" + spec.kind +
                  "\"; want steady, diurnal, bursty, memory-leak, jvm, batch, service or trace",
              "kind");
}

}  // namespace attune::sim
