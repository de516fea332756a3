// The Strategy interface: one recommendation algorithm for one container, pure (no I/O, no
// clock reads — `now` is an input). Implementations: attune, cruisekube, vpa, krr
// (docs/strategies.md describes each one's formulas).
#pragma once

#include <memory>
#include <string_view>

#include "api/policy/attune_policy.h"
#include "core/error.h"
#include "core/time.h"
#include "recommend/recommendation.h"
#include "stats/container_stats.h"

namespace attune::recommend {

// What a strategy keeps per container beside the shared statistics, fed the same aggregated
// samples in time order (vpa: its decaying histograms, since ContainerStats keep no raw
// samples). Made by Strategy::newContainerState; only the strategy that made it reads it.
// Not thread-safe.
class ContainerState {
 public:
  virtual ~ContainerState() = default;
  virtual void add(const stats::Sample& sample) = 0;
};
using ContainerStatePtr = std::unique_ptr<ContainerState>;

// Everything a strategy may look at for one container. References must outlive the call.
struct StrategyInput {
  const stats::ContainerStats& stats;
  Time now;
  // The container's requests and limits as they are now (unset = not set on the container).
  api::ResourceValues current;
  // The policy: cpu, memory and metricsSource.minimumDataPoints are read; unset fields (and
  // percentile 0, empty overhead) mean their defaults, as api::applyDefaults gives them.
  const api::AttunePolicySpec& policy;
  // Containers in the pod this container belongs to (>= 1); vpa splits its per-pod minimum.
  int containersInPod = 1;
  // What this strategy's newContainerState() made for this container, fed the same samples as
  // `stats`; nullptr when the caller keeps none (vpa then falls back to the long-horizon sketch
  // of `stats`). A state another strategy made is ignored.
  const ContainerState* state = nullptr;
};

// What the admission webhook of the tool a strategy stands for gives a pod when it is created.
enum class AdmissionSizing {
  kNone,            // the tool has no webhook: a new pod starts at its template's size
  kRecommendation,  // the strategy's own recommendation (VPA's admission controller)
  kCruiseKube,      // CruiseKube's Phase 1 sizing (docs/webhooks.md)
};

class Strategy {
 public:
  virtual ~Strategy() = default;

  // The strategy's name as makeStrategy accepts it ("attune", "cruisekube", "vpa", "krr").
  virtual std::string_view name() const = 0;

  // What its tool's admission webhook does. Attune's own webhook publishes CruiseKube's sizing
  // for every strategy but kRecommendation; a backtest runs the webhook only for the strategies
  // whose tool has one.
  virtual AdmissionSizing admissionSizing() const { return AdmissionSizing::kNone; }

  // A new, empty per-container state for this strategy, or nullptr when it needs none (the
  // default: the shared statistics are enough).
  virtual ContainerStatePtr newContainerState() const { return nullptr; }

  // Recommends requests and limits for one container. Never throws and never invents a
  // number: with fewer samples in the history window than minimumDataPoints, or when a window
  // the algorithm needs holds no sample, the result has enoughData == false, a reason, and no
  // values. Thread-safe (strategies hold no mutable state).
  virtual Recommendation recommend(const StrategyInput& in) const = 0;
};

using StrategyPtr = std::unique_ptr<Strategy>;

// The strategy named `name` ("attune", "cruisekube", "vpa", "krr"); kInvalidArgument for any
// other name.
Result<StrategyPtr> makeStrategy(std::string_view name);

}  // namespace attune::recommend
