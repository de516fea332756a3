// The controller: one reconcile pass over every AttunePolicy, level-based and idempotent. Per
// policy: resolve its targets, refresh usage statistics from the MetricsSource, compute
// recommendations, judge every pod under observation (safety monitor: keep, or revert to the
// originals read from the pod's annotations), plan the next resizes (rollout), carry the plan
// out, and write the policy status. Talks only to ClusterApi, MetricsSource and Clock; every
// piece of state a later pass needs lives in the cluster (pod and workload annotations, policy
// status), so a new Controller resumes where another stopped.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/exposition/registry.h"
#include "metrics/metrics_source.h"
#include "safety/observation.h"

namespace attune::controller {

struct ControllerOptions {
  // Namespaces whose policies are reconciled; empty = all.
  std::vector<std::string> watchNamespaces;
  // Run every policy with this strategy / mode instead of its own (backtesting).
  std::optional<std::string> strategyOverride;
  std::optional<api::UpdateMode> modeOverride;
  safety::ObservationOptions observation;
  double throttleThreshold = 0.5;
  // Resize history entries kept in a policy's status (oldest dropped first).
  std::size_t historyLimit = 100;
  // Measures reconcile durations for attune_reconcile_duration_seconds; nullptr records 0.
  Clock* durationClock = nullptr;
};

// One thing the controller did, for reports and tests.
struct ActionRecord {
  enum class Kind { kResized, kResizeFailed, kResizeSkipped, kReverted, kSafe, kViolationKept };
  Kind kind = Kind::kResized;
  Time time;
  std::string policy;  // "namespace/name"
  api::WorkloadRef workload;
  std::string pod;
  std::string container;  // empty when about the whole pod or workload
  std::string reason;     // skip reason, revert reason, failure message
  std::string detail;     // e.g. "cpu 500m -> 250m"
};
std::string_view toString(ActionRecord::Kind kind);

using ActionObserver = std::function<void(const ActionRecord&)>;

struct PolicyState;

class Controller {
 public:
  // Every reference must outlive the controller. Not thread-safe (metrics rendering is).
  Controller(api::ClusterApi& api, metrics::MetricsSource& metrics, Clock& clock,
             metrics::Registry& registry, ControllerOptions options = {});
  ~Controller();

  // One pass over every policy in the watched namespaces. A failure of one policy is reported
  // in its status and does not stop the others; the error returned is the first failure to
  // read the cluster itself (list policies, snapshot).
  Result<void> reconcileAll();

  void setObserver(ActionObserver observer) { observer_ = std::move(observer); }
  const ControllerOptions& options() const { return options_; }
  EventRecorder& events() { return events_; }

 private:
  api::ClusterApi& api_;
  metrics::MetricsSource& metrics_;
  Clock& clock_;
  ControllerOptions options_;
  OperatorMetrics operatorMetrics_;
  EventRecorder events_;
  ActionObserver observer_;
  // Per policy ("namespace/name"): usage statistics (a cache of the metrics history).
  std::map<std::string, std::unique_ptr<PolicyState>, std::less<>> policies_;
};

}  // namespace attune::controller
