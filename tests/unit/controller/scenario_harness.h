// End-to-end harness for the controller: a simulated cluster built from an inline scenario, the
// operator metrics registry and a controller::Controller on the simulation's ClusterApi,
// MetricsSource and clock. run() steps the simulation tick by tick and lets the controller's work
// queue reconcile what is due after each tick (a resync every reconcile interval, one minute by
// default, plus requeues and pod changes), as `attune simulate` does; the accessors read the
// end state from the cluster (pods, the policy's status, events), the registry and the
// ActionRecords the controller reported.
//
// Not thread-safe. Failures to build the scenario are reported as gtest failures (the harness is
// then not usable(); tests ASSERT_TRUE(h.usable()) first).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/event.h"
#include "api/k8s/pod.h"
#include "api/policy/attune_policy.h"
#include "controller/controller.h"
#include "core/time.h"
#include "metrics/exposition/registry.h"
#include "metrics/metrics_source.h"
#include "sim/engine/simulation.h"
#include "sim/scenario/scenario.h"

namespace attune::controller::testing {

inline constexpr std::string_view kStart = "2026-01-05T00:00:00Z";

inline constexpr std::string_view kOneNode = "{name: node, count: 1, cpu: \"8\", memory: 32Gi}";

// A scenario document: seed 1, start kStart, 48 h, 60 s ticks, the node pool `nodePool` (flow
// map), namespace `apps`, then `workloads` and `policies` (list items, as workloadYaml() and
// policyYaml() write them) and `extra` lines of spec (indented by two spaces).
std::string scenarioYaml(std::string_view workloads, std::string_view policies,
                         std::string_view extra = {}, std::string_view nodePool = kOneNode);

// One Deployment in namespace `apps` with one container `app` (YAML list item of
// spec.workloads, indented by two spaces). `requests`/`limits` are flow maps ("" for none).
struct WorkloadYaml {
  std::string name;
  int replicas = 1;
  std::string requests = "{cpu: 500m, memory: 512Mi}";
  std::string limits = "{cpu: \"1\", memory: 1Gi}";
  std::string model = "{kind: steady, cpuCores: 200m, memoryBytes: 200Mi, noise: 0}";
  std::string containerExtra;  // more lines of the container, indented by six spaces
  std::string workloadExtra;   // more lines of the workload, indented by four spaces
};
std::string workloadYaml(const WorkloadYaml& w);

// An AttunePolicy in namespace `apps` targeting Deployment `target`, set up so that its
// recommendations are predictable: 24 h history at a 1 m step, `minimumDataPoints`, no overhead,
// decreases allowed, changes up to 100 %, limits following requests (RequestsAndLimits) unless
// `controlledValues` says otherwise. With the short history the attune strategy widens by 50 %,
// so a steady usage u gives a request of 1.5 u. YAML list item of spec.policies.
struct PolicyYaml {
  std::string name;
  std::string target;
  std::string updateStrategy = "{type: Auto}";
  std::string controlledValues = "RequestsAndLimits";
  std::string cpu;     // more fields of spec.cpu's flow map, e.g. "maxAllowed: 200m"
  std::string memory;  // more fields of spec.memory's flow map
  std::string extra;   // more lines of spec, indented by six spaces
  int minimumDataPoints = 3;
  std::string historyWindow = "24h";
};
std::string policyYaml(const PolicyYaml& p);

// `yaml` (as workloadYaml() and policyYaml() write it) in namespace `ns` instead of `apps`.
std::string inNamespace(std::string yaml, const std::string& ns);
// The namespaces of fourNamespaces().
extern const std::vector<std::string> kFourNamespaces;
// A scenario with a `web` Deployment of `replicas` pods and its Auto policy in each of
// kFourNamespaces.
std::string fourNamespaces(int replicas = 1);
// A scenario with `count` Deployments web-0, web-1, ... of `replicas` pods in `apps`, each
// over-requesting CPU (so that the first passes resize it), and an Auto policy for each.
std::string overRequestingWorkloads(int count, int replicas);

struct HarnessOptions {
  ControllerOptions controller;
  // Applied to the decoded scenario before the simulation is built (fields the YAML has no
  // key for, e.g. kubelet.cpuBurstiness).
  std::function<void(sim::Scenario&)> tweak;
  // The controller's periodic resync (ControllerOptions::resyncPeriod).
  Duration reconcileInterval = std::chrono::minutes(1);
  // When set, the controller talks to the cluster through the api this returns (e.g. a
  // sim::FaultClusterApi around `cluster`); the simulation and the accessors below keep using the
  // simulation's own api. Called once; a restarted controller gets the same api.
  std::function<std::unique_ptr<api::ClusterApi>(api::ClusterApi& cluster)> wrapApi;
  // Count reconcileDue() failures (reconcileErrors()) instead of failing the test on them.
  bool tolerateReconcileErrors = false;
};

// Forwards to a real source and remembers what was asked and answered: every scope queried and
// every container a per-container answer named. Told to fail(), every call then fails as an
// unreachable backend would.
class ObservedMetricsSource final : public metrics::MetricsSource {
 public:
  explicit ObservedMetricsSource(metrics::MetricsSource& real) : real_(real) {}
  void fail() { failing_ = true; }
  const std::vector<metrics::Scope>& scopes() const { return scopes_; }
  const std::set<std::string>& containersReturned() const { return returned_; }

  Result<std::vector<metrics::ContainerSeries>> cpuUsage(const metrics::Scope& s,
                                                         const metrics::Range& r) override {
    return observe(s, [&] { return real_.cpuUsage(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> cpuPressureWaiting(
      const metrics::Scope& s, const metrics::Range& r) override {
    return observe(s, [&] { return real_.cpuPressureWaiting(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> memoryWorkingSet(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return observe(s, [&] { return real_.memoryWorkingSet(s, r); });
  }
  Result<std::vector<metrics::ContainerSeries>> cpuThrottleRatio(const metrics::Scope& s,
                                                                 const metrics::Range& r) override {
    return observe(s, [&] { return real_.cpuThrottleRatio(s, r); });
  }
  Result<std::vector<metrics::OomKill>> oomKills(const metrics::Scope& s,
                                                 const metrics::Range& r) override {
    return observe(s, [&] { return real_.oomKills(s, r); });
  }
  Result<std::vector<metrics::RestartCount>> restartCounts(const metrics::Scope& s,
                                                           Time at) override {
    return observe(s, [&] { return real_.restartCounts(s, at); });
  }
  Result<std::vector<metrics::ContainerResourceValues>> resources(const metrics::Scope& s,
                                                                  Time at) override {
    return observe(s, [&] { return real_.resources(s, at); });
  }
  Result<std::vector<metrics::PodOwner>> podOwners(const metrics::Scope& s, Time at) override {
    if (failing_) return unreachable<std::vector<metrics::PodOwner>>();
    scopes_.push_back(s);
    return real_.podOwners(s, at);
  }
  Result<std::vector<metrics::NodeSeries>> nodeLoad(const metrics::Range& r) override {
    if (failing_) return unreachable<std::vector<metrics::NodeSeries>>();
    return real_.nodeLoad(r);
  }
  Result<std::vector<metrics::NodeCapacity>> nodeCapacity(Time at) override {
    if (failing_) return unreachable<std::vector<metrics::NodeCapacity>>();
    return real_.nodeCapacity(at);
  }

 private:
  template <typename T>
  static Result<T> unreachable() {
    return std::unexpected(Error{ErrorCode::kUnavailable, "metrics backend unreachable", ""});
  }
  // Runs a per-container query: fails when told to, else records its scope and the containers
  // of its answer.
  template <typename Query>
  auto observe(const metrics::Scope& scope, Query query) -> decltype(query()) {
    using T = typename decltype(query())::value_type;
    if (failing_) return unreachable<T>();
    scopes_.push_back(scope);
    auto answer = query();
    if (answer) {
      for (const auto& item : *answer) returned_.insert(item.id.container);
    }
    return answer;
  }

  metrics::MetricsSource& real_;
  bool failing_ = false;
  std::vector<metrics::Scope> scopes_;
  std::set<std::string> returned_;
};

class ScenarioHarness {
 public:
  explicit ScenarioHarness(std::string_view yaml, HarnessOptions options = {});
  ~ScenarioHarness();

  bool usable() const { return sim_ != nullptr && controller_ != nullptr; }

  // Steps the simulation for `d` (whole ticks), calling the controller's reconcileDue() after
  // every tick (its work queue decides which policies are due). A simulation or controller error is
  // a test failure.
  void run(Duration d);
  void runMinutes(int minutes) { run(std::chrono::minutes(minutes)); }
  // Runs tick by tick until `done` holds (checked after each tick) or `limit` has passed;
  // returns whether `done` held.
  bool runUntil(const std::function<bool()>& done, Duration limit);

  // Destroys the controller (all its memory) and creates a new one on the same cluster, metrics
  // source, clock and registry. `metrics` replaces the metrics source when set (not owned; must
  // outlive the harness).
  void restartController(metrics::MetricsSource* metrics = nullptr);

  sim::Simulation& sim() { return *sim_; }
  Controller& controller() { return *controller_; }
  Time now() { return sim_->clock().now(); }
  Duration elapsed() { return sim_->clock().now() - sim_->scenario().start; }

  // ---- End state.
  // Pods of `workload` (label app.kubernetes.io/name) in `ns`, in name order; running ones only
  // unless `all`.
  std::vector<api::Pod> pods(std::string_view ns, std::string_view workload, bool all = false);
  // The one pod of a single-replica workload (test failure when there is not exactly one).
  api::Pod pod(std::string_view ns, std::string_view workload);
  api::AttunePolicy policy(std::string_view ns, std::string_view name);
  // Events with `reason` (all events when empty), in creation order.
  std::vector<api::Event> events(std::string_view reason = {});
  std::string metricsText() const { return registry_.render(); }
  // The value of the exposition line that starts with `series` (e.g.
  // `attune_reverts_total{reason="oomkill"}`), or nullopt when there is none.
  std::optional<double> metric(std::string_view series) const;
  const std::vector<ActionRecord>& actions() const { return actions_; }
  std::vector<ActionRecord> actions(ActionRecord::Kind kind) const;
  // reconcileDue() calls that failed (only with HarnessOptions::tolerateReconcileErrors).
  int reconcileErrors() const { return reconcileErrors_; }

 private:
  void makeController(metrics::MetricsSource& metrics);

  HarnessOptions options_;
  std::unique_ptr<sim::Simulation> sim_;
  std::unique_ptr<api::ClusterApi> controllerApi_;  // HarnessOptions::wrapApi's, or null
  int reconcileErrors_ = 0;
  metrics::Registry registry_;
  std::unique_ptr<Controller> controller_;
  std::vector<ActionRecord> actions_;
};

// ---- Small readers used by the tests.

// Requests and limits of container `name` of `pod` (spec), as CPU millicores / memory bytes;
// nullopt for an unset value.
api::ResourceValues specResources(const api::Pod& pod, std::string_view container);
// The same from the container's status resources (what the kubelet applied).
api::ResourceValues statusResources(const api::Pod& pod, std::string_view container);
int restartCount(const api::Pod& pod, std::string_view container);
bool hasAnnotationPrefix(const api::ObjectMeta& meta, std::string_view prefix);
// A condition of the policy (a pointer into `policy`, which must outlive it), or nullptr.
const api::Condition* condition(const api::AttunePolicy& policy, std::string_view type);
// History entries with `result` (any when nullopt) and `reason` (any when empty).
std::vector<api::ResizeHistoryEntry> history(const api::AttunePolicy& policy,
                                             std::optional<api::ResizeResult> result,
                                             std::string_view reason = {});
std::string describe(const api::ResourceValues& v);

// Whether `v` is set and within `tolerance` (relative) of `want`: recommendations come from
// percentile sketches (within 1 %) and CPU rates, so they are close to, not exactly, 1.5 x usage.
template <typename Amount>
::testing::AssertionResult near(const std::optional<Amount>& v, Amount want,
                                double tolerance = 0.02) {
  if (!v) return ::testing::AssertionFailure() << "unset, want about " << want.value();
  const double diff = static_cast<double>(v->value() - want.value());
  if (diff <= tolerance * static_cast<double>(want.value()) &&
      -diff <= tolerance * static_cast<double>(want.value())) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << v->value() << " is not within " << tolerance * 100 << "% of " << want.value();
}

}  // namespace attune::controller::testing
