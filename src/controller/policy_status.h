// The status step of a pass: what a policy's `.status` says after it (recommendations, the
// Ready, Degraded and ResizeBlocked conditions, the consecutive-revert count) and its write.
// The history entries are the recorder's (action_recorder.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_policy.h"
#include "controller/operator_metrics.h"
#include "controller/workload_recommendations.h"
#include "core/clock.h"
#include "core/time.h"
#include "rollout/plan.h"

namespace attune::controller {

// "namespace/name": the key of a namespaced object (a policy in the work queue and in
// HeldStatusWrites, a pod in the controller's pod states).
std::string namespacedKey(const api::ObjectMeta& meta);

// status.recommendations and status.savings from `recommended` (neither under Observe), and the
// recommendation and savings gauges. `replicas` gives the running pods of each advised workload.
void publishRecommendations(const std::vector<RecommendedWorkload>& recommended,
                            const std::map<api::WorkloadRef, std::size_t>& replicas,
                            const api::AttunePolicy& policy, Time now, OperatorMetrics& metrics,
                            api::AttunePolicyStatus& status);

// status.savings: the request totals of `recommended` over its running pods (`replicas`), and
// how much the recommendations would take off or add.
api::SavingsStatus summarizeSavings(const std::vector<RecommendedWorkload>& recommended,
                                    const std::map<api::WorkloadRef, std::size_t>& replicas);

// status.workloads: `targets` discovered; those with a recommendation (none under Observe); of
// these, resized (the latest resize of the workload in the history applied) or pending; the
// most data points of any container and the minimum required.
api::PolicyWorkloadCounts summarizeWorkloads(const api::AttunePolicyStatus& status,
                                             const api::AttunePolicy& policy,
                                             const std::vector<RecommendedWorkload>& recommended,
                                             std::size_t targets);

// status.canary under Canary mode (nullopt otherwise): each workload's progress from this
// pass's plan; a workload the plan did not reach (cooldown, opt-out, failed metrics read) keeps
// its previous entry while it is still in `recommended`. A workload's startTime is kept from the
// previous entry, or is `now` when its canary starts. A new `generation` starts a new cycle
// (previous entries dropped). The policy's phase is CanaryInProgress while any workload's is;
// pods are every workload's canaries (at most 100); startTime the earliest.
std::optional<api::CanaryStatus> summarizeCanary(
    const std::optional<api::CanaryStatus>& previous,
    const std::vector<rollout::CanaryProgress>& progress, const api::AttunePolicy& policy,
    const std::vector<RecommendedWorkload>& recommended, std::int64_t generation, Time now);

// status.cooldown: the backoff of `consecutiveReverts` (the most of any target workload) over
// updateStrategy.cooldown.
api::CooldownStatus summarizeCooldown(const api::AttunePolicy& policy, int consecutiveReverts);

struct PassOutcome {
  std::optional<std::string> metricsError;        // the usage read failed
  std::size_t targets = 0;                        // workloads the policy resolved to
  std::optional<api::Condition> resizeBlocked;    // nullopt: the condition is removed
  std::vector<rollout::CanaryProgress> canaries;  // the plan's (rollout::Plan::canaries)
  int consecutiveReverts = 0;  // the most of any target workload after the plan's verdicts
  int resizing = 0;            // resizes this pass made, and pods still under observation
  bool coolingDown = false;    // a workload waits for its cooldown (Skip(Cooldown))
  // The plan's ScheduleBlocked condition (rollout::Plan::scheduleBlocked); nullopt removes it.
  std::optional<api::Condition> scheduleBlocked;
};

// The conditions and counters a pass leaves: Ready (the public reasons: Paused,
// PrometheusUnavailable, NoWorkloadsFound or InsufficientData as False, else Monitoring),
// Resizing (InProgress, else CooldownActive or Idle), Degraded, ResizeBlocked, ScheduleBlocked,
// observedGeneration, workloads, canary, cooldown, lastReconcileTime and consecutiveReverts.
void settleStatus(api::AttunePolicyStatus& status, const api::AttunePolicy& stored,
                  const api::AttunePolicy& policy,
                  const std::vector<RecommendedWorkload>& recommended, const PassOutcome& outcome,
                  Time now);

// The status writes with nothing new but progress (heartbeats) that one reconcile may still make:
// when many policies fall due together (all written in the same pass: a controller's first, or
// one where every recommendation moved), the rest wait for the next passes, so that their
// heartbeats spread over the passes instead of all landing in one every heartbeat.
struct HeartbeatBudget {
  // One reconcile's budget: twice the steady share of `policies` heartbeats (policies × resync
  // / heartbeat), at least one; no limit when a heartbeat is due every resync anyway.
  static HeartbeatBudget perReconcile(std::size_t policies, Duration resync, Duration heartbeat);

  std::size_t left = 0;
  bool take() {
    if (left == 0) return false;
    --left;
    return true;
  }
};

// Status writes that record nothing a pass did (heartbeats; new recommendations, savings and
// skipped resizes, as a wave of them follows a wave of resizes), held by the passes that decided
// them, to be written between passes (ControllerOptions::heartbeatsPerCall): no decision depends
// on them, so a pass need not wait on thousands of them, and they reach the API server spread
// over the idle time instead of in bursts. One is held per policy (a later one replaces it,
// keeping its place), and the policy's next pass starts from its status rather than the stored
// one, so that the history it holds is kept until written. Each is written conditionally on the
// resourceVersion it was decided from, so one that anything else overtook (a pass's own write, a
// spec change, another replica) is refused by the API server and dropped: the policy's next pass
// decides again (a skip record dropped so is not made again while the skip lasts).
class HeldStatusWrites {
 public:
  struct Written {
    std::size_t sent = 0;     // write requests made
    std::size_t dropped = 0;  // of those, refused (conflict, policy gone) or failed
  };

  // Holds `update` (the stored policy with its new status) for the policy it names; a policy
  // held already keeps its place in the order.
  void hold(api::AttunePolicy update);
  // The status held for the policy `meta` names; nullptr when none is.
  const api::AttunePolicyStatus* find(const api::ObjectMeta& meta) const;
  // Forgets what is held for the policy `meta` names: its pass writes the status itself.
  void drop(const api::ObjectMeta& meta);
  // Writes held heartbeats, oldest first: at most `limit`, and none started once `slice` has
  // passed on `clock` since the call began.
  Written write(api::ClusterApi& api, std::size_t limit, Clock& clock, Duration slice);
  std::size_t size() const { return held_.size(); }

 private:
  struct Held {
    std::uint64_t sequence = 0;  // when it was first held: its key in order_
    api::AttunePolicy update;
  };
  std::map<std::string, Held, std::less<>> held_;  // by namespacedKey()
  std::map<std::uint64_t, std::string> order_;     // held_'s keys, oldest first
  std::uint64_t next_ = 0;
};

// Status writes decided by passes and sent together (ClusterApi::updateAttunePolicyStatuses,
// which kube::HttpClusterApi sends several at once), so that passes do not wait on each write's
// round trip (ControllerOptions::statusWriteBatch). One write per policy is pending: a later one
// replaces it.
class StatusWrites {
 public:
  void add(api::AttunePolicy update);
  std::size_t size() const { return pending_.size(); }
  // Sends every pending write; one refused for a conflict is written again over the latest
  // version, as writeStatus does.
  void flush(api::ClusterApi& api);

 private:
  std::vector<api::AttunePolicy> pending_;
};

// Writes `status` when it differs from the stored one; on a conflict, over the latest version
// (the status is the controller's alone). A status that differs only in its progress (the
// reconcile time; the recommendations' sample counts, newest sample time, confidence, rationale
// and lastUpdated; status.workloads.dataPointsCollected) is written when the stored
// lastReconcileTime is `heartbeat` old or more and `budget` (nullptr: no limit) grants the write;
// otherwise it takes the stored progress back and nothing is written. With `held`, such a
// heartbeat is held there instead of written, and so is any status that records nothing the
// pass did (it differs only in recommendations, savings, workload counts, progress and Skipped
// history entries newer than every stored one; held whether the heartbeat is due or not); a
// write of anything else drops the policy's held one. With `writes`, a write is added there to be
// sent with others instead of sent now.
void writeStatus(api::ClusterApi& api, const api::AttunePolicy& stored,
                 api::AttunePolicyStatus& status, Duration heartbeat,
                 HeartbeatBudget* budget = nullptr, HeldStatusWrites* held = nullptr,
                 StatusWrites* writes = nullptr);

}  // namespace attune::controller
