#include "controller/controller.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <set>
#include <unordered_set>
#include <utility>

#include "api/policy/policy_defaults.h"
#include "api/policy/policy_validation.h"
#include "controller/action_recorder.h"
#include "controller/actuator.h"
#include "controller/admission_sizing.h"
#include "controller/cluster_snapshot.h"
#include "controller/event_recorder.h"
#include "controller/hpa_retunes.h"
#include "controller/node_optimiser.h"
#include "controller/policy_metrics_sources.h"
#include "controller/policy_pass.h"
#include "controller/policy_status.h"
#include "hpa/retune.h"
#include "rollout/plan.h"

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
    case ActionRecord::Kind::kEvicted:
      return "Evicted";
    case ActionRecord::Kind::kStartupBoost:
      return "StartupBoost";
    case ActionRecord::Kind::kStartupBoostEnded:
      return "StartupBoostEnded";
  }
  return "";
}

bool heldEventReason(std::string_view reason) {
  for (std::string_view write :
       {kResizedReason, kResizeFailedReason, kRevertedReason, rollout::kEvictedReason,
        kEvictionFailedReason, rollout::kHpaRetunedReason, kHpaRetuneFailedReason,
        rollout::kStartupBoostReason, rollout::kStartupBoostEndedReason}) {
    if (reason == write) return false;
  }
  return true;
}

Controller::Controller(api::ClusterApi& api, metrics::MetricsSource& metrics, Clock& clock,
                       metrics::Registry& registry, ControllerOptions options)
    : api_(api),
      metrics_(metrics),
      clock_(clock),
      options_(std::move(options)),
      operatorMetrics_(registry),
      events_(api, clock) {
  events_.setReportingInstance(options_.reportingInstance);
  if (options_.eventsPerCall > 0) events_.hold(heldEventReason);
}

Controller::~Controller() = default;

namespace {

constexpr Duration kMinimumRequeue = std::chrono::seconds(1);

// The part of a pod's state whose change can change a pass's decisions: its phase, readiness,
// restarts and OOM kills, resize conditions and spec generation (a resize, ours or anyone's).
std::uint64_t podStateDigest(const api::Pod& pod) {
  std::uint64_t h = std::hash<std::string>{}(pod.status.phase);
  const auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  mix(static_cast<std::uint64_t>(pod.metadata.generation));
  mix(pod.metadata.deletionTimestamp ? 1 : 0);
  for (const api::Condition& c : pod.status.conditions) {
    mix(std::hash<std::string>{}(c.type));
    mix(std::hash<std::string>{}(c.status));
    mix(std::hash<std::string>{}(c.reason));
  }
  for (const api::ContainerStatus& c : pod.status.containerStatuses) {
    mix(static_cast<std::uint64_t>(c.restartCount));
    mix(c.ready ? 1 : 0);
  }
  return h;
}

}  // namespace

std::optional<std::uint64_t> Controller::passesOf(std::string_view policy) const {
  auto it = policies_.find(policy);
  if (it == policies_.end() || !it->second.state) return std::nullopt;
  return it->second.state->passes;
}

Result<bool> Controller::readPolicies() {
  ListedPolicies read;
  const auto readIn = [&](const std::string& ns) -> Result<void> {
    if (auto shared = api_.sharedAttunePolicies(ns)) {
      read.lists.push_back(std::move(shared));
      return {};
    }
    auto list = api_.listAttunePolicies(api::ListOptions{.namespace_ = ns, .labelSelector = {}});
    if (!list) return std::unexpected(list.error());
    read.lists.push_back(api::sharedListOf(std::move(list->items)));
    return {};
  };
  const std::vector<std::string> scopes =
      options_.watchNamespaces.empty() ? std::vector<std::string>{""} : options_.watchNamespaces;
  for (const std::string& ns : scopes) {
    if (auto ok = readIn(ns); !ok) return std::unexpected(ok.error());
  }
  if (read.lists == listed_.lists) return false;
  for (const auto& list : read.lists) {
    for (const auto& p : *list) {
      if (options_.shard.owns(p->metadata.namespace_)) read.owned.push_back(p.get());
    }
  }
  // Each scope's list is in (namespace, name) order; several scopes are put in namespace order.
  const auto namespaceOf = [](const api::AttunePolicy* p) -> const std::string& {
    return p->metadata.namespace_;
  };
  if (!std::ranges::is_sorted(read.owned, {}, namespaceOf)) {
    std::ranges::stable_sort(read.owned, {}, namespaceOf);
  }
  read.keys.reserve(read.owned.size());
  for (const api::AttunePolicy* p : read.owned) read.keys.push_back(namespacedKey(p->metadata));
  listed_ = std::move(read);
  return true;
}

Result<Controller::DefaultsTiers> Controller::listDefaults() {
  DefaultsTiers tiers;
  const auto absent = [](const Error& e) { return e.code == ErrorCode::kNotFound; };
  auto cluster = api_.listAttuneDefaults({});
  if (cluster) {
    tiers.cluster = std::move(cluster->items);
  } else if (!absent(cluster.error())) {
    return std::unexpected(cluster.error());
  }
  const std::vector<std::string> scopes =
      options_.watchNamespaces.empty() ? std::vector<std::string>{""} : options_.watchNamespaces;
  for (const std::string& ns : scopes) {
    auto list = api_.listAttuneNamespaceDefaults({.namespace_ = ns, .labelSelector = {}});
    if (!list) {
      if (absent(list.error())) continue;
      return std::unexpected(list.error());
    }
    for (auto& d : list->items) tiers.namespaced.push_back(std::move(d));
  }
  for (const api::AttuneDefaults& d : tiers.cluster) {
    tiers.digest += "/" + d.metadata.name + "@" + d.metadata.resourceVersion;
  }
  for (const api::AttuneDefaults& d : tiers.namespaced) {
    tiers.digest +=
        " " + d.metadata.namespace_ + "/" + d.metadata.name + "@" + d.metadata.resourceVersion;
  }
  return tiers;
}

void Controller::notePolicies(std::span<const api::AttunePolicy* const> policies,
                              std::span<const std::string> keys, Time now) {
  const std::unordered_set<std::string_view> present(keys.begin(), keys.end());
  bool membership = false;  // a policy came or went: the namespace index is rebuilt
  for (std::size_t i = 0; i < policies.size(); ++i) {
    const api::AttunePolicy& p = *policies[i];
    const std::string& key = keys[i];
    auto [it, added] = policies_.try_emplace(key);
    membership = membership || added;
    if (added || it->second.generation != p.metadata.generation) {
      it->second.generation = p.metadata.generation;
      it->second.namespace_ = p.metadata.namespace_;
      it->second.nodeOptimised =
          p.spec.nodeOptimization && p.spec.nodeOptimization->enabled.value_or(false);
      queue_.add(key, now);
    }
  }
  // Forget the statistics of policies that are gone.
  for (auto it = policies_.begin(); it != policies_.end();) {
    if (present.contains(it->first)) {
      ++it;
      continue;
    }
    queue_.forget(it->first);
    podChanged_.erase(it->first);
    if (options_.admissionSizing != nullptr) options_.admissionSizing->withdraw(it->first);
    // Its recommendation and savings series go with it.
    operatorMetrics_.forgetPolicy(it->second.namespace_,
                                  it->first.substr(it->second.namespace_.size() + 1));
    it = policies_.erase(it);
    membership = true;
    orphanCheck_ = true;  // the HPAs it retuned get their original targets back
  }
  if (!membership) return;
  policiesByNamespace_.clear();
  for (const auto& [key, known] : policies_) policiesByNamespace_[known.namespace_].push_back(key);
}

void Controller::notePodChanges(Time now) {
  for (auto& [scope, resourceVersion] : podWatch_) {
    auto batch =
        api_.watchPods(api::ListOptions{.namespace_ = scope, .labelSelector = {}}, resourceVersion);
    if (!batch) {
      // Expired or broken: start again from the next snapshot; the resync covers the gap.
      resourceVersion.clear();
      continue;
    }
    resourceVersion = std::move(batch->resourceVersion);
    for (const api::WatchEvent<api::Pod>& event : batch->events) {
      const api::Pod& pod = event.object;
      const std::string podKey = namespacedKey(pod.metadata);
      if (event.type == api::WatchEventType::kDeleted) {
        podStates_.erase(podKey);
      } else if (event.type == api::WatchEventType::kAdded ||
                 event.type == api::WatchEventType::kModified) {
        const std::uint64_t digest = podStateDigest(pod);
        auto [it, added] = podStates_.try_emplace(podKey, digest);
        if (!added && it->second == digest) continue;  // nothing a pass would act on
        it->second = digest;
      } else {
        continue;
      }
      auto inNamespace = policiesByNamespace_.find(pod.metadata.namespace_);
      if (inNamespace == policiesByNamespace_.end()) continue;
      for (const std::string& key : inNamespace->second) {
        const Known& known = policies_.find(key)->second;
        for (const api::LabelSelector& selector : known.podSelectors) {
          if (api::selectorMatches(selector, pod.metadata.labels)) {
            queue_.add(key, now);
            podChanged_.insert(key);
            break;
          }
        }
      }
    }
  }
  std::erase_if(podWatch_, [](const auto& entry) { return entry.second.empty(); });
}

Result<void> Controller::reconcileAll() { return reconcile(/*everything=*/true); }

void Controller::flushEvents(std::size_t limit, Duration slice) {
  const EventRecorder::Flushed flushed = events_.flush(limit, slice);
  operatorMetrics_.heldEventWrites.inc({"written"},
                                       static_cast<double>(flushed.sent - flushed.failed));
  operatorMetrics_.heldEventWrites.inc({"failed"}, static_cast<double>(flushed.failed));
  operatorMetrics_.eventsHeld.set({}, static_cast<double>(events_.held()));
}

Result<void> Controller::reconcileDue() {
  auto done = reconcile(/*everything=*/false);
  if (options_.eventsPerCall > 0) flushEvents(options_.eventsPerCall, options_.heartbeatSlice);
  // After this call's passes, the status writes held by them and by the passes before.
  if (options_.heartbeatsPerCall > 0) {
    flushStatusWrites(options_.heartbeatsPerCall, options_.heartbeatSlice);
  }
  return done;
}

void Controller::flushStatusWrites(std::size_t limit, Duration slice) {
  const HeldStatusWrites::Written written = held_.write(api_, limit, clock_, slice);
  operatorMetrics_.heartbeatWrites.inc({"written"},
                                       static_cast<double>(written.sent - written.dropped));
  operatorMetrics_.heartbeatWrites.inc({"dropped"}, static_cast<double>(written.dropped));
  operatorMetrics_.heartbeatsHeld.set({}, static_cast<double>(held_.size()));
}

Result<void> Controller::reconcile(bool everything) {
  reconciledLastCall_ = 0;
  namedLastCall_.clear();
  groupsLastCall_ = 0;
  resizesLeft_.store(static_cast<std::int64_t>(options_.resizesPerCall), std::memory_order_relaxed);
  auto changed = readPolicies();
  if (!changed) return std::unexpected(changed.error());
  auto defaults = listDefaults();
  if (!defaults) return std::unexpected(defaults.error());
  const Time now = clock_.now();
  const std::vector<const api::AttunePolicy*>& policies = listed_.owned;
  const std::vector<std::string>& keys = listed_.keys;  // of `policies`
  if (*changed) notePolicies(policies, keys, now);
  // Policies that fell due together are written over the next few passes, and keep that
  // spread (each then falls due a heartbeat later).
  heartbeats_ = HeartbeatBudget::perReconcile(policies_.size(), options_.resyncPeriod,
                                              options_.statusHeartbeat);
  // Changed defaults may change every policy's effective spec.
  if (defaults->digest != defaults_.digest) {
    for (const std::string& key : keys) queue_.add(key, now);
  }
  defaults_ = std::move(*defaults);
  // A full resync also finds HPAs of policies deleted while no controller ran.
  if (orphanCheck_ || everything) orphanCheck_ = !restoreOrphanedHpas(now);
  if (everything) {
    for (const std::string& key : keys) queue_.add(key, now);
    // Every policy runs now: the pod watch has nothing to add. It starts again from this pass's
    // snapshot instead of being drained.
    podWatch_.clear();
  } else {
    notePodChanges(now);
  }
  if (!queue_.nextDue() || *queue_.nextDue() > now) return {};

  std::vector<std::string> due = queue_.popDue(now);
  // One node optimisation sizes the pods of every policy that has it: they run together.
  const auto nodeOptimised = [&](const std::string& key) {
    auto it = policies_.find(key);
    return it != policies_.end() && it->second.nodeOptimised;
  };
  if (std::any_of(due.begin(), due.end(), nodeOptimised)) {
    for (const auto& [key, known] : policies_) {
      if (known.nodeOptimised && std::find(due.begin(), due.end(), key) == due.end()) {
        queue_.forget(key);
        due.push_back(key);
      }
    }
  }
  const std::set<std::string_view> dueKeys(due.begin(), due.end());
  // The due policies, in the order they were listed (namespace, then name).
  std::vector<std::size_t> ordered;
  for (std::size_t i = 0; i < policies.size(); ++i) {
    if (dueKeys.contains(keys[i])) ordered.push_back(i);
  }
  std::set<api::TargetKind> kinds;
  for (const std::size_t i : ordered) {
    if (policies[i]->spec.targetRef.kind) kinds.insert(*policies[i]->spec.targetRef.kind);
  }
  auto snapshot = ClusterSnapshot::take(api_, options_.watchNamespaces, kinds, &snapshotReuse_);
  if (!snapshot) {
    for (const std::string& key : due) queue_.add(key, now);  // due again at the next call
    return std::unexpected(snapshot.error());
  }
  // Named for the log line: the policies a pod change brought in, then the others.
  for (const bool changed : {true, false}) {
    for (auto i = ordered.begin(); i != ordered.end() && namedLastCall_.size() < kNamedPerCall;
         ++i) {
      if (podChanged_.contains(keys[*i]) == changed) namedLastCall_.push_back(keys[*i]);
    }
  }
  for (const std::size_t i : ordered) podChanged_.erase(keys[i]);
  for (const auto& [scope, version] : snapshot->podListVersions()) {
    if (!podWatch_.contains(scope)) podWatch_[scope] = version;
  }
  // In order, in groups of whole namespaces (ControllerOptions::passGroup, passGroupSamples),
  // whose usage is read a group ahead: each pass prepared and finished, or, while node
  // optimisation holds them, every pass prepared, then all finished.
  usage::SharedUsageReads sharedReads;
  usage::SharedUsageReads* reads = options_.sharedUsageReads ? &sharedReads : nullptr;
  // A policy's rivals for a workload are in its namespace (policies is in namespace order):
  // each pass weighs those only.
  const auto namespaceOf = [](const api::AttunePolicy* p) -> const std::string& {
    return p->metadata.namespace_;
  };
  // Node optimisation needs every pod of each node: not with a namespace-limited view, nor
  // while sharded (another shard's pods on the same nodes are sized by another replica).
  const bool mayOptimise = options_.watchNamespaces.empty() && !options_.shard.sharded();
  std::vector<std::unique_ptr<PreparedPass>> passes;  // made, not finished yet
  std::size_t prepared = 0;                           // passes[0, prepared) are prepared
  std::deque<std::size_t> begun;  // the passes of each group begun and not prepared, in order
  std::size_t next = 0;           // ordered[next] starts the next group
  // Makes the passes of the next group, namespace by namespace, and announces their usage reads,
  // then queues them for reading in the background (SharedUsageReads::prefetch): a pass touches
  // no pod before prepare().
  const auto begin = [&] {
    const std::size_t before = passes.size();
    std::size_t policiesIn = 0;
    std::size_t samplesIn = 0;
    while (next < ordered.size() && (policiesIn == 0 || (policiesIn < options_.passGroup &&
                                                         samplesIn < options_.passGroupSamples))) {
      const std::string& ns = policies[ordered[next]]->metadata.namespace_;
      const auto neighbours = std::ranges::equal_range(policies, ns, {}, namespaceOf);
      std::size_t steps = 0;  // of the namespace's longest read
      for (; next < ordered.size() && policies[ordered[next]]->metadata.namespace_ == ns; ++next) {
        ++reconciledLastCall_;
        ++policiesIn;
        const std::size_t i = ordered[next];
        if (auto pass = preparePass(*policies[i], keys[i], *snapshot, neighbours, reads)) {
          if (auto range = pass->pass->announceUsageRead()) {
            steps = std::max(steps, usage::stepsOf(range->samples));
          }
          passes.push_back(std::move(pass));
        } else {
          queue_.add(keys[i], now + options_.resyncPeriod);
        }
      }
      samplesIn += steps * snapshot->podCount(ns);
    }
    if (reads != nullptr) reads->prefetch(options_.parallelUsageReads);
    begun.push_back(passes.size() - before);
    ++groupsLastCall_;
  };
  if (ordered.empty()) return {};
  // The reads of the group after the one being served are made while it is prepared and
  // finished: one group read ahead.
  begin();
  if (next < ordered.size()) begin();
  // Passes whose plans write, decided and waiting to be carried out together
  // (ControllerOptions::actuationBatch); their pods stay unpacked until they are concluded.
  const bool together = options_.actuationBatch > 0 && api_.taskLanes() > 1;
  std::vector<std::unique_ptr<PreparedPass>> waiting;
  const auto carryOutWaiting = [&] {
    if (waiting.empty()) return;
    std::vector<api::ClusterApi::Task> tasks;
    tasks.reserve(waiting.size());
    for (const std::unique_ptr<PreparedPass>& p : waiting) {
      tasks.emplace_back([pass = p->pass.get()](api::ClusterApi& api) { pass->carryOut(api); });
    }
    api_.runTasks(tasks);
    for (const std::unique_ptr<PreparedPass>& p : waiting) {
      queue_.add(p->key, concludePass(*p, now, true));
      if (statusWrites_.size() >= options_.statusWriteBatch) statusWrites_.flush(api_);
    }
    waiting.clear();
  };
  // Decides `pass` and concludes it, or (together, when its plan writes) leaves it waiting.
  const auto finish = [&](std::unique_ptr<PreparedPass>& pass,
                          const rollout::NodeOptimisation& nodes) {
    if (decidePass(*pass, nodes) && together) {
      waiting.push_back(std::move(pass));
      if (waiting.size() >= options_.actuationBatch) carryOutWaiting();
      return;
    }
    queue_.add(pass->key, concludePass(*pass, now, false));
    if (statusWrites_.size() >= options_.statusWriteBatch) statusWrites_.flush(api_);
  };
  // Once a group has a node-optimised pass, it and every later group are held.
  bool held = false;
  for (;;) {
    const std::size_t end = prepared + begun.front();
    begun.pop_front();
    const bool last = begun.empty();
    // Unless node optimisation holds this group, each pass is finished as soon as it is
    // prepared, and the pods it read are released: the next pass unpacks its pods into the same
    // few objects, still in the cache, and finishes while its own are.
    held =
        held || (mayOptimise && std::any_of(passes.begin() + static_cast<std::ptrdiff_t>(prepared),
                                            passes.begin() + static_cast<std::ptrdiff_t>(end),
                                            [](const std::unique_ptr<PreparedPass>& p) {
                                              return p->pass->nodeOptimised();
                                            }));
    const auto release = [&] {
      snapshot->forgetViewedPods();
      if (options_.releasePods) options_.releasePods();
    };
    for (std::size_t i = prepared; i < end; ++i) {
      passes[i]->pass->prepare();
      if (held) continue;
      finish(passes[i], rollout::NodeOptimisation{});
      passes[i].reset();
      if (waiting.empty()) release();
    }
    prepared = end;
    // Node optimisation holds the prepared passes until the last group, then sizes the pods of
    // every pass that has it at once.
    if (held && !last) {
      if (next < ordered.size()) begin();
      continue;
    }
    if (held) {
      std::vector<const PolicyPass*> optimised;
      for (std::size_t i = 0; i < prepared; ++i) {
        if (passes[i]->pass->nodeOptimised()) optimised.push_back(passes[i]->pass.get());
      }
      const rollout::NodeOptimisation nodes = optimiseNodes(*snapshot, optimised);
      for (std::size_t i = 0; i < prepared; ++i) finish(passes[i], nodes);
      carryOutWaiting();  // while `nodes` lives
    }
    if (!waiting.empty()) {
      carryOutWaiting();
      release();
    }
    statusWrites_.flush(api_);
    passes.erase(passes.begin(), passes.begin() + static_cast<std::ptrdiff_t>(prepared));
    prepared = 0;
    if (last) break;
    if (next < ordered.size()) begin();
  }
  return {};
}

bool Controller::restoreOrphanedHpas(Time now) {
  std::vector<api::HorizontalPodAutoscaler> hpas;
  const std::vector<std::string> scopes =
      options_.watchNamespaces.empty() ? std::vector<std::string>{""} : options_.watchNamespaces;
  for (const std::string& ns : scopes) {
    auto list = api_.listHpas(api::ListOptions{.namespace_ = ns, .labelSelector = {}});
    if (!list) return false;
    for (auto& h : list->items) {
      if (options_.shard.owns(h.metadata.namespace_)) hpas.push_back(std::move(h));
    }
  }
  const ClusterSnapshot none =
      ClusterSnapshot::fromLists({}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {});
  Actuator actuator(api_);
  for (const api::HorizontalPodAutoscaler& hpa : hpas) {
    const std::optional<std::string> owner = hpa::retunedBy(hpa.metadata);
    if (!owner || policies_.contains(*owner)) continue;
    std::optional<rollout::HpaRetuneAction> restore = restoreOrphanedHpa(hpa);
    if (!restore) continue;
    // Booked on the HPA; the policy whose history would hold the entries is gone.
    api::AttunePolicyStatus gone;
    SkipMemory skips;
    ActionRecorder recorder({.events = events_,
                             .metrics = operatorMetrics_,
                             .observer = observer_,
                             .snapshot = none,
                             .targets = {},
                             .policy = *owner,
                             .historyLimit = options_.historyLimit,
                             .now = now},
                            gone, skips);
    const rollout::Action action = std::move(*restore);
    recorder.record(action, actuator.carryOut(action));
  }
  return true;
}

metrics::MetricsSource& Controller::metricsOf(const api::AttunePolicy& stored) {
  if (options_.metricsSources == nullptr) return metrics_;
  return options_.metricsSources->sourceFor(stored);
}

std::unique_ptr<PreparedPass> Controller::preparePass(
    const api::AttunePolicy& stored, const std::string& key, const ClusterSnapshot& snapshot,
    std::span<const api::AttunePolicy* const> listed, usage::SharedUsageReads* reads) {
  auto prepared = std::make_unique<PreparedPass>();
  prepared->key = key;
  Known& known = policies_[key];
  prepared->started = options_.durationClock ? options_.durationClock->now() : Time{};
  // An invalid configuration: reported in the status, and nothing done with it. What the policy
  // published before is withdrawn (its recommendations no longer stand), and so is its sizing
  // for the pod webhook.
  const auto invalid = [&](const Error& error) -> std::unique_ptr<PreparedPass> {
    PolicyPass::reportInvalid(api_, stored, error, clock_.now());
    known.state.reset();
    known.podSelectors.clear();
    operatorMetrics_.forgetPolicy(stored.metadata.namespace_, stored.metadata.name);
    if (options_.admissionSizing != nullptr) options_.admissionSizing->withdraw(key);
    return nullptr;
  };
  // The effective policy: the policy's own fields, then its namespace's defaults, the cluster's
  // defaults and the built-in ones. Without the status, which passes read from `stored`.
  const api::AttuneDefaults* namespaceDefaults =
      api::selectNamespaceDefaults(defaults_.namespaced, stored.metadata.namespace_);
  const api::AttuneDefaults* clusterDefaults = api::selectDefaults(defaults_.cluster);
  prepared->policy = api::mergeDefaults(api::AttunePolicy{.metadata = stored.metadata,
                                                          .spec = stored.spec,
                                                          .status = {},
                                                          .preserved = stored.preserved,
                                                          .sources = stored.sources},
                                        namespaceDefaults, clusterDefaults);
  api::AttunePolicy& policy = prepared->policy;
  const bool inherited = !(policy.spec == stored.spec) || policy.preserved != stored.preserved;
  api::applyDefaults(policy);
  if (inherited) {
    // Each tier was valid on its own; their combination may not be (minAllowed from one,
    // maxAllowed from another). Nothing is done with an invalid effective policy.
    const auto problems = api::validatePolicy(policy);
    if (!problems.empty()) {
      Error error = problems.front().error;
      error.message = "the effective policy (with AttuneNamespaceDefaults " +
                      (namespaceDefaults ? namespaceDefaults->metadata.name : "-") +
                      ", AttuneDefaults " +
                      (clusterDefaults ? clusterDefaults->metadata.name : "-") +
                      "): " + (error.field.empty() ? "" : error.field + ": ") + error.message;
      return invalid(error);
    }
  }
  if (options_.modeOverride) policy.spec.updateStrategy.type = options_.modeOverride;
  const std::string strategyName =
      options_.strategyOverride
          ? *options_.strategyOverride
          : std::string(api::toString(policy.spec.strategy.value_or(api::kDefaultStrategy)));

  auto& state = known.state;
  if (!state || state->generation != stored.metadata.generation ||
      state->strategyName != strategyName || !(known.effectiveSpec == policy.spec)) {
    auto fresh = PolicyState::create(policy, strategyName, stored.metadata.generation);
    if (!fresh) {
      return invalid(fresh.error());
    }
    state = std::move(*fresh);
    known.effectiveSpec = policy.spec;
  }
  prepared->pass = std::make_unique<PolicyPass>(
      PolicyPass::Context{.api = api_,
                          .metrics = metricsOf(stored),
                          .clock = clock_,
                          .options = options_,
                          .operatorMetrics = operatorMetrics_,
                          .events = events_,
                          .observer = observer_,
                          .policies = listed,
                          .sharedReads = reads,
                          .heartbeats = &heartbeats_,
                          .held = options_.heartbeatsPerCall > 0 ? &held_ : nullptr,
                          .writes = options_.statusWriteBatch > 0 ? &statusWrites_ : nullptr,
                          .resizesLeft = options_.resizesPerCall > 0 ? &resizesLeft_ : nullptr},
      snapshot, stored, policy, *state);
  return prepared;
}

bool Controller::decidePass(PreparedPass& prepared, const rollout::NodeOptimisation& nodes) {
  PolicyPass& pass = *prepared.pass;
  return pass.decide(pass.nodeOptimised() ? &nodes : nullptr);
}

Time Controller::concludePass(PreparedPass& prepared, Time now, bool carriedOut) {
  const Time resync = now + options_.resyncPeriod;
  PolicyPass& pass = *prepared.pass;
  if (!carriedOut) pass.carryOut(api_);
  const PassResult result = pass.conclude();
  policies_[prepared.key].podSelectors = pass.podSelectors();
  const double seconds =
      options_.durationClock
          ? std::chrono::duration<double>(options_.durationClock->now() - prepared.started).count()
          : 0.0;
  const api::ObjectMeta& meta = prepared.policy.metadata;
  operatorMetrics_.reconcileDuration.observe(
      {std::string(kPolicyControllerName), meta.namespace_, meta.name}, seconds);
  if (!result.requeueAfter) return resync;
  return std::min(resync, now + std::max(*result.requeueAfter, kMinimumRequeue));
}

}  // namespace attune::controller
