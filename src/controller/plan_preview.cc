#include "controller/plan_preview.h"

#include <memory>
#include <set>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "controller/cluster_snapshot.h"
#include "controller/node_optimiser.h"
#include "controller/policy_pass.h"
#include "metrics/exposition/registry.h"

namespace attune::controller {

Result<std::vector<PolicyPreview>> previewPasses(api::ClusterApi& api,
                                                 metrics::MetricsSource& metrics, Clock& clock,
                                                 const ControllerOptions& options,
                                                 const std::vector<api::AttunePolicy>& policies,
                                                 const std::vector<std::string>& namespaces) {
  std::set<api::TargetKind> kinds;
  for (const api::AttunePolicy& p : policies) {
    if (p.spec.targetRef.kind) kinds.insert(*p.spec.targetRef.kind);
  }
  auto snapshot = ClusterSnapshot::take(api, namespaces, kinds);
  if (!snapshot) return std::unexpected(snapshot.error());

  // The pass's books go nowhere: a registry of its own, and no event is recorded (nothing is
  // carried out, so the recorder is never called).
  metrics::Registry registry;
  OperatorMetrics operatorMetrics(registry);
  EventRecorder events(api, clock);
  const ActionObserver observer;
  ControllerOptions previewOptions = options;
  previewOptions.admissionSizing = nullptr;

  struct Prepared {
    std::size_t index;
    api::AttunePolicy defaulted;
    std::unique_ptr<PolicyState> state;
    std::unique_ptr<PolicyPass> pass;
  };
  std::vector<const api::AttunePolicy*> listed;  // every policy, for overlapping ones
  for (const api::AttunePolicy& p : policies) listed.push_back(&p);
  std::vector<PolicyPreview> out(policies.size());
  std::vector<std::unique_ptr<Prepared>> prepared;
  usage::SharedUsageReads reads;  // one usage read per namespace (every range announced first)
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const api::AttunePolicy& stored = policies[i];
    out[i].policy = stored;
    auto p = std::make_unique<Prepared>();
    p->index = i;
    p->defaulted = stored;
    api::applyDefaults(p->defaulted);
    if (options.modeOverride) p->defaulted.spec.updateStrategy.type = options.modeOverride;
    const std::string strategy =
        options.strategyOverride ? *options.strategyOverride
                                 : std::string(api::toString(
                                       p->defaulted.spec.strategy.value_or(api::kDefaultStrategy)));
    auto state = PolicyState::create(p->defaulted, strategy, stored.metadata.generation);
    if (!state) {
      out[i].invalid = state.error().toString();
      continue;
    }
    p->state = std::move(*state);
    p->pass = std::make_unique<PolicyPass>(PolicyPass::Context{.api = api,
                                                               .metrics = metrics,
                                                               .clock = clock,
                                                               .options = previewOptions,
                                                               .operatorMetrics = operatorMetrics,
                                                               .events = events,
                                                               .observer = observer,
                                                               .policies = listed,
                                                               .sharedReads = &reads},
                                           *snapshot, stored, p->defaulted, *p->state);
    p->pass->announceUsageRead();
    prepared.push_back(std::move(p));
  }
  for (const auto& p : prepared) p->pass->prepare();
  std::vector<const PolicyPass*> optimised;
  for (const auto& p : prepared) {
    if (p->pass->nodeOptimised()) optimised.push_back(p->pass.get());
  }
  const rollout::NodeOptimisation nodes = optimised.empty() || !namespaces.empty()
                                              ? rollout::NodeOptimisation{}
                                              : optimiseNodes(*snapshot, optimised);
  for (const auto& p : prepared) {
    PolicyPreview& preview = out[p->index];
    preview.plan = p->pass->plan(p->pass->nodeOptimised() ? &nodes : nullptr);
    preview.metricsError = p->pass->metricsError();
    preview.recommended = p->pass->recommended();
  }
  return out;
}

}  // namespace attune::controller
