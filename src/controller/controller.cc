#include "controller/controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "controller/cluster_snapshot.h"
#include "controller/policy_pass.h"

namespace attune::controller {

std::string_view toString(ActionRecord::Kind kind) {
  switch (kind) {
    case ActionRecord::Kind::kResized:
      return "Resized";
    case ActionRecord::Kind::kResizeFailed:
      return "ResizeFailed";
    case ActionRecord::Kind::kResizeSkipped:
      return "ResizeSkipped";
    case ActionRecord::Kind::kReverted:
      return "Reverted";
    case ActionRecord::Kind::kSafe:
      return "Safe";
    case ActionRecord::Kind::kViolationKept:
      return "ViolationKept";
  }
  return "";
}

Controller::Controller(api::ClusterApi& api, metrics::MetricsSource& metrics, Clock& clock,
                       metrics::Registry& registry, ControllerOptions options)
    : api_(api),
      metrics_(metrics),
      clock_(clock),
      options_(std::move(options)),
      operatorMetrics_(registry),
      events_(api, clock) {}

Controller::~Controller() = default;

Result<void> Controller::reconcileAll() {
  std::vector<api::AttunePolicy> policies;
  const auto listIn = [&](const std::string& ns) -> Result<void> {
    auto list = api_.listAttunePolicies(api::ListOptions{.namespace_ = ns, .labelSelector = {}});
    if (!list) return std::unexpected(list.error());
    for (auto& p : list->items) policies.push_back(std::move(p));
    return {};
  };
  if (options_.watchNamespaces.empty()) {
    if (auto ok = listIn(""); !ok) return ok;
  } else {
    for (const std::string& ns : options_.watchNamespaces) {
      if (auto ok = listIn(ns); !ok) return ok;
    }
  }
  if (policies.empty()) return {};
  auto snapshot = ClusterSnapshot::take(api_, options_.watchNamespaces);
  if (!snapshot) return std::unexpected(snapshot.error());

  for (const api::AttunePolicy& stored : policies) {
    const Time started = options_.durationClock ? options_.durationClock->now() : Time{};
    api::AttunePolicy policy = stored;
    api::applyDefaults(policy);
    if (options_.modeOverride) policy.spec.updateStrategy.type = options_.modeOverride;
    const std::string strategyName =
        options_.strategyOverride
            ? *options_.strategyOverride
            : std::string(api::toString(policy.spec.strategy.value_or(api::kDefaultStrategy)));
    const std::string key = policy.metadata.namespace_ + "/" + policy.metadata.name;

    auto& state = policies_[key];
    if (!state || state->generation != stored.metadata.generation ||
        state->strategyName != strategyName) {
      auto fresh = PolicyState::create(policy, strategyName, stored.metadata.generation);
      if (!fresh) {
        // An invalid configuration: report it in the status and touch nothing.
        PolicyPass::reportInvalid(api_, stored, fresh.error(), clock_.now());
        state.reset();
        continue;
      }
      state = std::move(*fresh);
    }
    PolicyPass pass(PolicyPass::Context{.api = api_,
                                        .metrics = metrics_,
                                        .clock = clock_,
                                        .options = options_,
                                        .operatorMetrics = operatorMetrics_,
                                        .events = events_,
                                        .observer = observer_},
                    *snapshot, stored, policy, *state);
    pass.run();
    const double seconds =
        options_.durationClock
            ? std::chrono::duration<double>(options_.durationClock->now() - started).count()
            : 0.0;
    operatorMetrics_.reconcileDuration.observe({}, seconds);
  }
  // Forget the statistics of policies that are gone.
  std::erase_if(policies_, [&](const auto& entry) {
    return std::none_of(policies.begin(), policies.end(), [&](const api::AttunePolicy& p) {
      return p.metadata.namespace_ + "/" + p.metadata.name == entry.first;
    });
  });
  return {};
}

}  // namespace attune::controller
