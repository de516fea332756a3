// The controller: policies reconciled from a work queue, level-based and idempotent, in the
// controller-runtime pattern. A policy is queued when it is new or its spec changes, when a pod
// its targets select is added, deleted or changes state (a pod watch), when its last pass asked
// to come back (a cooldown or an observation period ending: Plan::requeueAfter), and by the
// periodic resync. A pass (policy_pass.h) resolves the policy's targets, refreshes usage
// statistics from the MetricsSource, computes recommendations, judges every pod under
// observation, plans (reverts, restores, resizes, skips, deferrals), carries the plan out and
// records it, and writes the policy status. Talks only to ClusterApi, MetricsSource and Clock;
// every piece of state a later pass needs lives in the cluster (pod and workload annotations,
// HPA annotations, policy status), so a new Controller resumes where another stopped. When a
// policy is deleted (and at every full resync), the HPAs it retuned get their original targets
// back (hpa_retunes.h).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "api/cluster_api.h"
#include "api/policy/attune_defaults.h"
#include "api/policy/attune_policy.h"
#include "controller/cluster_snapshot.h"
#include "controller/event_recorder.h"
#include "controller/operator_metrics.h"
#include "controller/policy_status.h"
#include "controller/shard.h"
#include "controller/work_queue.h"
#include "core/clock.h"
#include "core/error.h"
#include "metrics/exposition/registry.h"
#include "metrics/metrics_source.h"
#include "rollout/node_optimisation.h"
#include "rollout/oom_recovery.h"
#include "safety/observation.h"
#include "usage/shared_usage_reads.h"

namespace attune::controller {

class AdmissionSizing;
class MetricsSourceSelector;
class SloQuerySelector;

// Whether a pass may hold an Event with this reason (ControllerOptions::eventsPerCall): false
// for the reasons of events about a write the pass made to a pod, workload or HPA (Resized,
// ResizeFailed, Reverted, Evicted, EvictionFailed, HPARetuned, HPARetuneFailed, StartupBoost,
// StartupBoostEnded), true for any other.
bool heldEventReason(std::string_view reason);

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
  // Every policy is reconciled at least this often, even when nothing asked for it.
  Duration resyncPeriod = std::chrono::minutes(1);
  // A pass whose status differs from the stored one only in its progress writes it when the
  // stored time is this old (writeStatus): a steady policy costs one status write per heartbeat,
  // not per pass. One reconcile makes at most twice its share of these writes (policies x
  // resyncPeriod / statusHeartbeat); the others wait for the next passes, which spreads policies
  // written together over the passes.
  Duration statusHeartbeat = std::chrono::minutes(5);
  // Above zero, a pass holds the status writes it decides that record nothing it did
  // (heartbeats, new recommendations and skips: HeldStatusWrites) and each
  // reconcileDue() call writes held ones after its own passes: at most this many, none started
  // after heartbeatSlice, so that a pass (and a changed pod behind it) never waits on thousands
  // of them. 0: the pass writes them itself.
  std::size_t heartbeatsPerCall = 0;
  Duration heartbeatSlice = std::chrono::milliseconds(100);
  // Above zero, the passes' Events that report no write of theirs (a skip, a blocked or
  // conflicting action, a kept violation: heldEventReason) are held (EventRecorder::hold, as
  // client-go's recorder hands events to a background sender), and each reconcileDue() call
  // writes held ones after its own passes and before the heartbeats: at most this many, none
  // started after heartbeatSlice. An Event about a resize, revert, eviction or HPA write is
  // written with it, so that a replica killed right after leaves the record of what it changed.
  // 0: each pass writes all its events itself.
  std::size_t eventsPerCall = 0;
  // Above zero, the status writes of the passes are sent together (StatusWrites: several at once
  // through kube::HttpClusterApi) once this many are pending, and at the end of each group of
  // passes, instead of each by its pass. The writes a replica killed mid-group had not sent are
  // lost with it, as a pass's own write would be; its next pass decides the status again. 0:
  // each pass sends its write.
  std::size_t statusWriteBatch = 0;
  // The passes of a reconcile whose plans write to the cluster (resizes, reverts, evictions,
  // ...) carried out this many at once, as tasks of ClusterApi::runTasks, when the api runs tasks
  // several at once (its taskLanes()): a pass that resizes many pods does not wait on each
  // write's round trip in turn. Each policy's plan is still carried out in its order, on one
  // connection (a pod's record before its resize); no two policies act on the same workload
  // (policy_overlaps.h). The outcomes are booked and the statuses settled afterwards, in the
  // order the passes were decided. 0, or an api that runs tasks one at a time: each pass carries
  // out its own plan.
  std::size_t actuationBatch = 0;
  // Above zero, at most this many resizes (a pod moved to a new target: rollout::ResizeAction)
  // are carried out per reconcile call, a pass or a run of the work queue; the others are
  // deferred, not attempted (nothing written, nothing booked), and their policies are due again a
  // second later, where they decide them again. A wave of resizes (the pass after a first pass,
  // or many targets moving at once) is then spread over the polls that follow: it does not hold
  // the loop, so a changed pod is reconciled by the next poll rather than after the wave, and it
  // does not reach the API server all at once. Reverts, evictions and startup boosts are never
  // deferred. 0: no limit.
  std::size_t resizesPerCall = 0;
  // OOM recovery (rollout/oom_recovery.h): OOM-killed pods of targets whose memory the policy
  // manages are evicted for recreation, their memory at the kill recorded on the workload. Off
  // unless the pod admission webhook sizes the replacements (evicting would otherwise recreate
  // the same pod).
  bool oomRecovery = false;
  rollout::OomRecoveryOptions oom;
  // Where each pass publishes its workloads' sizing for the pod admission webhook
  // (admission_sizing.h); withdrawn when the policy is deleted or invalid. nullptr: not kept.
  AdmissionSizing* admissionSizing = nullptr;
  // Chooses each policy's metrics source (policy_metrics_sources.h: its own
  // spec.metricsSource.prometheus); nullptr: every policy reads the controller's source.
  MetricsSourceSelector* metricsSources = nullptr;
  // Where each policy's SLO guardrails are evaluated (slo_queries.h); nullptr: nowhere, so
  // every guardrail fails open and is reported (SLOGuardrailSkipped).
  SloQuerySelector* sloQueries = nullptr;
  // This replica's shard (shard.h, docs/sharding.md): only the policies of the namespaces it
  // owns are reconciled, and only the HPAs of those namespaces restored; node optimisation,
  // which weighs the pods of every namespace on a node, is off while sharded.
  ShardAssignment shard;
  // The reportingInstance of the Events written (this replica's identity); empty: none.
  std::string reportingInstance;
  // The policies of one reconcile that read the same metrics source and namespace share one
  // usage read per metric (usage/shared_usage_reads.h); false: each policy reads on its own
  // (the hidden --prometheus-shared-reads=false, for measuring against).
  bool sharedUsageReads = true;
  // With shared reads, the first reads of each (source, namespace) of a group are made in the
  // background, up to this many at a time over sources that can be read in parallel
  // (SharedUsageReads::prefetch; Prometheus), while the group before it is prepared and
  // finished: a
  // Prometheus server evaluates each query on one core, and a pass that waits on it one query
  // at a time, then writes its statuses one at a time, leaves both idle in turn. 1: each read is
  // made when its first reader asks.
  std::size_t parallelUsageReads = 1;
  // Each namespace's policies read a new query step at their own moment of it, not in the first
  // pass after the step ends: a pass reads at now minus the namespace's phase (usageReadPhase,
  // a fixed share of one step), so the namespaces of a cluster cross into a new step spread
  // evenly over the step's passes instead of all in one (at 200 namespaces and a 5-minute step,
  // about 40 a pass at a 1-minute resync, not 200). Each namespace's readings then arrive up to
  // one step later. false: every policy reads up to the last whole step at now.
  bool spreadUsageReads = false;
  // A reconcile runs its due policies in groups of whole namespaces, in listed order, each
  // group closed once it holds at least this many policies: a group's passes are prepared and
  // finished before the next group's are prepared (the next group's passes are made, and their
  // usage reads started, before this one finishes; they touch no pod), so that what a pass holds
  // (its effective policy, its targets' pods) is held for one group at a time, not for every due
  // policy. Node optimisation weighs the pods of every optimised policy together: once a group has
  // one, the rest are held and finished together at the end, as one group.
  std::size_t passGroup = 256;
  // A group also closes once its namespaces' usage reads come to at least this many samples per
  // metric: the pods of each namespace times the steps of its longest announced read. A first
  // pass reads the whole history window of a namespace at once (a day at a 1m step is 1,441
  // samples a container), and a group's readings are held until its passes have taken them:
  // this bounds them whatever the number of policies per namespace. Steady passes read a step or
  // two and are grouped by passGroup alone.
  std::size_t passGroupSamples = 1'000'000;
  // Called between two groups, once the first one's passes are gone: the pod cache may free
  // the pods it unpacked for them (kube::PodInformer::releaseUnpacked). Empty: they stay until
  // the cache's next sync.
  std::function<void()> releasePods;
};

// One thing the controller did, for reports and tests.
struct ActionRecord {
  enum class Kind {
    kResized,
    kResizeFailed,
    kResizeSkipped,
    kReverted,
    kSafe,
    kViolationKept,
    kEvicted,
    kStartupBoost,       // a young pod's CPU raised (rollout/startup_boost.h)
    kStartupBoostEnded,  // its CPU returned to the steady recommendation
  };
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
struct PreparedPass;

class Controller {
 public:
  // Every reference must outlive the controller. Not thread-safe (metrics rendering is).
  Controller(api::ClusterApi& api, metrics::MetricsSource& metrics, Clock& clock,
             metrics::Registry& registry, ControllerOptions options = {});
  ~Controller();

  // Reads what changed since the last call (the policies, listed; the pods, from a watch),
  // queues the policies it concerns, then reconciles every policy due at clock.now(), over one
  // snapshot of the cluster. A failure of one policy is reported in its status and does not stop
  // the others; the error returned is the first failure to read the cluster itself (list
  // policies, snapshot), after which the due policies stay queued.
  Result<void> reconcileDue();
  // Queues every policy for now (a full resync), then reconcileDue().
  Result<void> reconcileAll();
  // When the soonest queued policy is due (nullopt before the first call or with no policy):
  // drivers call reconcileDue() then.
  std::optional<Time> nextDue() const { return queue_.nextDue(); }
  // Status writes held for the reconcileDue() calls to make (ControllerOptions::
  // heartbeatsPerCall).
  std::size_t heldStatusWrites() const { return held_.size(); }
  // Policies the last reconcileDue() or reconcileAll() reconciled.
  std::size_t reconciledLastCall() const { return reconciledLastCall_; }
  // The first kNamedPerCall of them ("namespace/name"), for the log line of a work-queue run:
  // those a pod change brought in first, then the others, each in the order they ran.
  static constexpr std::size_t kNamedPerCall = 32;
  const std::vector<std::string>& namedLastCall() const { return namedLastCall_; }
  // The groups those policies ran in (ControllerOptions::passGroup, passGroupSamples).
  std::size_t groupsLastCall() const { return groupsLastCall_; }
  // The policies this controller reconciles (watched and owned), as of the last call.
  std::size_t policyCount() const { return policies_.size(); }
  // Passes run for `policy` ("namespace/name") since its state was created; nullopt when it is
  // unknown.
  std::optional<std::uint64_t> passesOf(std::string_view policy) const;

  void setObserver(ActionObserver observer) { observer_ = std::move(observer); }
  const ControllerOptions& options() const { return options_; }
  EventRecorder& events() { return events_; }
  // Writes held Events (ControllerOptions::eventsPerCall), oldest first: at most `limit`, none
  // started once `slice` has passed. With every one as the limit, what a replica that shuts
  // down still owes.
  void flushEvents(std::size_t limit, Duration slice);
  // Writes held status writes (ControllerOptions::heartbeatsPerCall) the same way.
  void flushStatusWrites(std::size_t limit, Duration slice);

 private:
  // What the controller knows of a policy between passes.
  struct Known {
    std::int64_t generation = 0;
    std::string namespace_;
    // spec.nodeOptimization.enabled: the policies that have it are reconciled together (one
    // node optimisation covers all their pods).
    bool nodeOptimised = false;
    // The pod selectors of its targets at its last pass: a pod event they match queues it.
    std::vector<api::LabelSelector> podSelectors;
    // Usage statistics (a cache of the metrics history); null while the spec is invalid.
    std::unique_ptr<PolicyState> state;
    // The effective spec `state` was made for (defaults merged and applied): a change of the
    // defaults tiers makes a new state, as a new generation does.
    api::AttunePolicySpec effectiveSpec;
  };

  // The defaults tiers, listed once per reconcile (docs/policy.md, "Defaults in three tiers").
  struct DefaultsTiers {
    std::vector<api::AttuneDefaults> cluster;
    std::vector<api::AttuneNamespaceDefaults> namespaced;
    std::string digest;  // names and resourceVersions: changes when any object does
  };

  // The policies of the watched scopes this replica owns, as read for one reconcile.
  struct ListedPolicies {
    // The lists holding them: shared with the api's cache (ClusterApi::sharedAttunePolicies),
    // else listed. One per watched scope.
    std::vector<api::SharedList<api::AttunePolicy>> lists;
    // The owned ones, in (namespace, name) order, and their keys ("namespace/name").
    std::vector<const api::AttunePolicy*> owned;
    std::vector<std::string> keys;
  };

  // reconcileDue(), with every policy queued for now first when `everything`.
  Result<void> reconcile(bool everything);
  // Brings listed_ up to the api; true when it may have changed (false: the api's cache handed
  // back the very lists listed_ holds, so no policy changed).
  Result<bool> readPolicies();
  // Both kinds of defaults in the watched scope; a kind whose CRD is not installed is empty.
  Result<DefaultsTiers> listDefaults();
  // Queues new and changed policies (keys[i]: policies[i]'s key); forgets those that are gone.
  void notePolicies(std::span<const api::AttunePolicy* const> policies,
                    std::span<const std::string> keys, Time now);
  // Drains the pod watch of every watched scope and queues the policies whose targets select
  // a pod that was added, deleted or changed state.
  void notePodChanges(Time now);
  // Puts back the original targets of every HPA retuned by a policy that no longer exists
  // (attune.io/hpa-original-targets names it); false when the HPAs could not be listed.
  bool restoreOrphanedHpas(Time now);
  // The first half of a pass of `stored` over `snapshot` (PolicyPass::prepare); nullptr when the
  // policy is invalid (reported in its status), due again at the next resync. `key`: its
  // "namespace/name". `listed`: the
  // listed policies of its namespace (overlapping policies, policy_overlaps.h).
  // `reads`: the usage reads the reconcile's passes share (nullptr: none). The pass is built;
  // its prepare() is left to the caller, after every pass announced its usage read.
  std::unique_ptr<PreparedPass> preparePass(const api::AttunePolicy& stored, const std::string& key,
                                            const ClusterSnapshot& snapshot,
                                            std::span<const api::AttunePolicy* const> listed,
                                            usage::SharedUsageReads* reads);
  // The metrics source of `stored`'s pass (ControllerOptions::metricsSources, else metrics_).
  metrics::MetricsSource& metricsOf(const api::AttunePolicy& stored);
  // The second half, with this reconcile's node optimisation, in two steps: decidePass plans
  // (PolicyPass::decide) and tells whether the plan writes; concludePass carries it out unless
  // `carriedOut` (runTasks did), books it and returns when the policy is due again.
  bool decidePass(PreparedPass& prepared, const rollout::NodeOptimisation& nodes);
  Time concludePass(PreparedPass& prepared, Time now, bool carriedOut);

  api::ClusterApi& api_;
  metrics::MetricsSource& metrics_;
  Clock& clock_;
  ControllerOptions options_;
  OperatorMetrics operatorMetrics_;
  EventRecorder events_;
  ActionObserver observer_;
  WorkQueue queue_;
  std::size_t reconciledLastCall_ = 0;
  std::vector<std::string> namedLastCall_;  // at most kNamedPerCall
  // The resizes this reconcile call may still carry out (ControllerOptions::resizesPerCall).
  std::atomic<std::int64_t> resizesLeft_{0};
  std::size_t groupsLastCall_ = 0;
  std::map<std::string, Known, std::less<>> policies_;  // by "namespace/name"
  // The heartbeat writes the current reconcile may still make (HeartbeatBudget).
  HeartbeatBudget heartbeats_;
  HeldStatusWrites held_;      // with ControllerOptions::heartbeatsPerCall
  StatusWrites statusWrites_;  // with ControllerOptions::statusWriteBatch
  // The last snapshot's node table and ReplicaSet index, reused while the cache is unchanged.
  ClusterSnapshot::Reuse snapshotReuse_;
  // The policies as last read; kept between calls so that an unchanged cache is seen as such
  // (and nothing is copied or compared).
  ListedPolicies listed_;
  // A policy went away since HPAs were last checked for originals to restore.
  bool orphanCheck_ = false;
  // The keys of policies_ by namespace (pod events are matched against these only).
  std::map<std::string, std::vector<std::string>, std::less<>> policiesByNamespace_;
  // Where each watched scope's pod watch resumes ("" = all namespaces); absent: not watching
  // (started from the next snapshot's pod LIST).
  std::map<std::string, std::string, std::less<>> podWatch_;
  // The policies a pod change queued that have not run since (named first: namedLastCall).
  std::set<std::string, std::less<>> podChanged_;
  // Per "namespace/name": a digest of the pod state whose change is worth a pass.
  std::map<std::string, std::uint64_t, std::less<>> podStates_;
  // The defaults of the current reconcile; every policy is queued when they change.
  DefaultsTiers defaults_;
};

}  // namespace attune::controller
