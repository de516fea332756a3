#include "recommend/cruisekube_strategy.h"

#include <algorithm>
#include <vector>

#include "recommend/resource_pipeline.h"

namespace attune::recommend {
namespace {

constexpr double kSteadyStateQuantile = 0.75;
constexpr double kMemoryLimitFactor = 2;

struct BaseAndHeadroom {
  double base;
  double headroom;
};

std::expected<BaseAndHeadroom, std::string> baseAndHeadroom(const stats::ContainerStats& s,
                                                            Time now, Resource r, Explainer& ex) {
  const stats::Series& series = r == Resource::kCpu ? s.cpu() : s.memory();
  const std::string window = formatDuration(series.config().recentWindow);
  const auto base =
      require(series.recentQuantile(now, kSteadyStateQuantile), r, "in the last " + window);
  if (!base) return std::unexpected(base.error());
  const auto peak = require(series.peak(now), r, "in this hour of the week");
  if (!peak) return std::unexpected(peak.error());
  const double b =
      static_cast<double>(roundUpUnits(ex.step("base p75 over " + window, toUnits(r, *base))));
  const double p =
      static_cast<double>(roundUpUnits(ex.step("peak this hour of the week", toUnits(r, *peak))));
  return BaseAndHeadroom{b, ex.step("headroom = peak - base", std::max(0.0, p - b))};
}

std::expected<double, std::string> memoryLimit(const stats::ContainerStats& s, Time now,
                                               Explainer& ex) {
  const auto weekMax = require(s.memory().weekMax(now), Resource::kMemory, "in the last week");
  if (!weekMax) return weekMax;
  double top = ex.step("max over the last week", *weekMax);
  if (const std::optional<Bytes> oom = s.maxOomMemory(now)) {
    top = std::max(top, ex.step("memory at OOM kill", static_cast<double>(oom->value())));
  }
  return ex.step("limit = 2 × max(week max, OOM memory)", kMemoryLimitFactor * top);
}

class CruisekubeStrategy final : public Strategy {
 public:
  std::string_view name() const override { return "cruisekube"; }
  AdmissionSizing admissionSizing() const override { return AdmissionSizing::kCruiseKube; }
  Recommendation recommend(const StrategyInput& in) const override {
    return recommendEachWithinBounds(in, [&](Resource r, Explainer& ex) -> Outcome {
      const auto d = baseAndHeadroom(in.stats, in.now, r, ex);
      if (!d) return std::unexpected(d.error());
      const double request = ex.step("request = base + headroom (alone)", d->base + d->headroom);
      if (r == Resource::kCpu) {
        ex.note("limit", "none");
        return ResourceOutcome{request, std::nullopt};
      }
      const auto limit = memoryLimit(in.stats, in.now, ex);
      if (!limit) return std::unexpected(limit.error());
      return ResourceOutcome{request, *limit};
    });
  }
};

}  // namespace

std::expected<CruisekubeDemand, std::string> cruisekubeDemand(const stats::ContainerStats& s,
                                                              Time now) {
  Explainer cpuEx(Resource::kCpu);  // the numbers only: the sizing keeps no explanation
  Explainer memoryEx(Resource::kMemory);
  const auto cpu = baseAndHeadroom(s, now, Resource::kCpu, cpuEx);
  if (!cpu) return std::unexpected(cpu.error());
  const auto memory = baseAndHeadroom(s, now, Resource::kMemory, memoryEx);
  if (!memory) return std::unexpected(memory.error());
  const auto limit = memoryLimit(s, now, memoryEx);
  if (!limit) return std::unexpected(limit.error());
  return CruisekubeDemand{.cpuBase = Millicores(roundUpUnits(cpu->base)),
                          .cpuHeadroom = Millicores(roundUpUnits(cpu->headroom)),
                          .memoryBase = Bytes(roundUpUnits(memory->base)),
                          .memoryHeadroom = Bytes(roundUpUnits(memory->headroom)),
                          .memoryLimit = Bytes(roundUpUnits(*limit))};
}

StrategyPtr makeCruisekubeStrategy() { return std::make_unique<CruisekubeStrategy>(); }

}  // namespace attune::recommend
