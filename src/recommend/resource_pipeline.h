// Building blocks shared by the strategies: one resource's values in its integer unit, the
// explanation writer, data sufficiency, the policy's resolved settings, change rules and limits.
// Pure functions; nothing here keeps state beyond the Explainer's output.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "recommend/strategy.h"

namespace attune::recommend {

std::string_view resourceName(Resource r);  // "cpu", "memory"

// Inside a strategy an amount is a double in the resource's integer unit: millicores for CPU,
// bytes for memory. Series values (cores, bytes) convert with toUnits.
double toUnits(Resource r, double seriesValue);
// Rounds up to a whole unit, ignoring float noise of 1e-12 relative (412.00000000000006 → 412);
// saturates at the int64 range; negative values give 0.
std::int64_t roundUpUnits(double units);
// The Kubernetes quantity of roundUpUnits(units): "412m", "1536Mi".
std::string formatUnits(Resource r, double units);

// Appends explanation steps prefixed with the resource name ("cpu: p95 over 168h" = "412m").
class Explainer {
 public:
  Explainer(Resource r, std::vector<ExplanationStep>& out) : resource_(r), out_(&out) {}
  // One that records nothing, for a caller that only wants the numbers.
  explicit Explainer(Resource r) : resource_(r), out_(nullptr) {}
  // Records `what` = `units` formatted as a quantity, and returns `units`.
  double step(std::string_view what, double units);
  // Records a step whose value is text, not an amount.
  void note(std::string_view what, std::string value);
  Resource resource() const { return resource_; }

 private:
  Resource resource_;
  std::vector<ExplanationStep>* out_;  // nullptr: records nothing
};

// What one resource's pipeline produced, or why it produced nothing.
struct ResourceOutcome {
  double request = 0;
  std::optional<double> limit;  // unset = no limit
};
using Outcome = std::expected<ResourceOutcome, std::string>;

// `value` if present, else the error "no <resource> sample <where>" (e.g. "in the last 10m").
std::expected<double, std::string> require(std::optional<double> value, Resource r,
                                           std::string_view where);

// The series, current request and limit of resource `r` of the input's container.
const stats::Series& seriesOf(const StrategyInput& in, Resource r);
std::optional<double> currentRequest(const StrategyInput& in, Resource r);
std::optional<double> currentLimit(const StrategyInput& in, Resource r);

// Runs `perResource` for CPU then memory and assembles the recommendation. Before anything,
// checks the data: fewer samples in the history window (the smaller of the CPU and memory
// counts) than minimumDataPoints gives enoughData = false with "12 of 48 data points". An
// error from `perResource` also gives enoughData = false with that reason, and no values.
Recommendation recommendEach(const StrategyInput& in,
                             const std::function<Outcome(Resource, Explainer&)>& perResource);

// recommendEach(), then the policy's bounds: a request below minAllowed or above maxAllowed is
// clamped to them (a step records it) and a limit below the clamped request is raised to it.
// For strategies that do not apply the policy's rules themselves (cruisekube, vpa, krr).
Recommendation recommendEachWithinBounds(
    const StrategyInput& in, const std::function<Outcome(Resource, Explainer&)>& perResource);

// Days between the first accepted sample and `now` (>= 0; 0 without samples).
double daysOfData(const stats::ContainerStats& s, Time now);

// The policy's settings for one resource, every unset field resolved to its default.
struct ResourceSettings {
  int percentile = 0;          // 50, 90, 95 or 99 (0 resolves to the default)
  double overheadPercent = 0;  // e.g. 20
  double minAllowed = 0;       // units
  double maxAllowed = 0;       // units
  bool controlLimits = false;  // controlledValues == RequestsAndLimits
  bool allowDecrease = true;
  int maxChangePercent = 100;
};
ResourceSettings resolveSettings(const api::AttunePolicySpec& policy, Resource r);

// The current values and thresholds the change rules compare against.
struct ChangeRules {
  std::optional<double> current;  // unset: no rule applies
  double minChangePercent = 10;   // smaller relative changes keep the current value
  std::optional<int> maxChangePercent;
  bool allowDecrease = true;
};
// Applies, in order: allowDecrease (never below current), the minimum change (|change| <
// minChangePercent keeps current), the maximum change (|change| capped at maxChangePercent of
// current). Each rule that acts records a step.
double applyChangeRules(double target, const ChangeRules& rules, Explainer& ex);

// The limit that goes with `request`. With controlLimits and both current request and limit
// set, the limit keeps the current limit/request ratio; otherwise the current limit stays as it
// is (none stays none) and the request is capped at it (a request may not exceed its limit).
ResourceOutcome withLimit(double request, std::optional<double> currentRequest,
                          std::optional<double> currentLimit, bool controlLimits, Explainer& ex);

// "+8%", "-12.5%": a signed percentage with at most one decimal.
std::string formatPercent(double percent);

// "p95": how the explanations name a percentile.
std::string percentileName(int percentile);

}  // namespace attune::recommend
