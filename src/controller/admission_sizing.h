// What the pod admission webhook knows: the cruisekube sizing of each targeted workload's
// containers, as computed by the policy passes (CruiseKube Phase 1, docs/webhooks.md).
//
//  - cruisekubeSizing is the pure rule: CPU request = the hour-of-week peak (base + headroom of
//    recommend::cruisekubeDemand), memory request = the peak memory, and — when the policy
//    controls that resource's limits (controlledValues RequestsAndLimits) — memory limit =
//    2 × max(7-day max, memory at the last OOM kill) and the CPU limit removed; every amount
//    bounded by the policy's minAllowed/maxAllowed. Only policies in Auto mode and not paused
//    publish; a container without enough data (minimumDataPoints) or without samples gets
//    nothing.
//  - AdmissionSizing is the board the controller writes after each pass and the webhook's
//    server threads read: an immutable snapshot swapped under a mutex.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/k8s/workload_ref.h"
#include "api/policy/attune_policy.h"
#include "controller/workload_recommendations.h"
#include "core/time.h"
#include "usage/usage_history.h"
#include "webhook/pod_sizing.h"

namespace attune::controller {

using WorkloadSizing = std::map<api::WorkloadRef, std::vector<webhook::ContainerSizing>>;

// The sizing of `workloads` (recommended by one pass of `policy`, defaults applied) from the
// statistics `history` keeps. Workloads without a sized container are left out; an empty result
// for a policy that does not size at admission (mode other than Auto, or paused). Pure.
WorkloadSizing cruisekubeSizing(const std::vector<RecommendedWorkload>& workloads,
                                const usage::UsageHistory& history, const api::AttunePolicy& policy,
                                Time now);

// The sizing of `workloads` at their own recommendation (the policy's strategy, change rules
// and limit rule applied): each container with enough data gets its recommended CPU and memory
// requests, and — when the policy controls that resource's limits (controlledValues
// RequestsAndLimits) — its recommended memory limit, or the CPU limit removed when the
// recommendation has none. Same publishing rules as cruisekubeSizing (Auto and not paused only).
// Pure.
WorkloadSizing recommendationSizing(const std::vector<RecommendedWorkload>& workloads,
                                    const api::AttunePolicy& policy);

// `next` (what a pass computed for `policy`) with, for each of `targets` that has no
// recommendation this pass (`recommended`: no running pod, e.g. its pod was evicted and its
// replacement is not created yet) and no entry in `next`, its entry in `previous` (what the
// policy published before): the replacement of an evicted pod is sized as its predecessor
// was. Nothing is kept when the policy does not size at admission (not Auto, or paused).
// Pure.
WorkloadSizing keepingRecreatedWorkloads(WorkloadSizing next, const WorkloadSizing& previous,
                                         const std::vector<TargetWorkload>& targets,
                                         const std::vector<RecommendedWorkload>& recommended,
                                         const api::AttunePolicy& policy);

// Thread-safe: publish/withdraw from the controller's thread, lookup from any thread.
class AdmissionSizing {
 public:
  // Replaces what `policy` ("namespace/name") published.
  void publish(const std::string& policy, WorkloadSizing sizing);
  // Forgets what `policy` published (deleted, invalid).
  void withdraw(std::string_view policy);
  // The sizing of `workload`'s containers; nullopt when no policy published one. When several
  // policies published the same workload, the first by "namespace/name" wins.
  std::optional<std::vector<webhook::ContainerSizing>> lookup(
      const api::WorkloadRef& workload) const;
  // What `policy` published last (empty when nothing).
  WorkloadSizing publishedBy(std::string_view policy) const;
  // The number of workloads with a sizing.
  std::size_t size() const;

 private:
  using ByPolicy = std::map<std::string, WorkloadSizing, std::less<>>;
  // Rebuilds the merged snapshot; mutex_ held.
  void rebuild();

  mutable std::mutex mutex_;
  ByPolicy byPolicy_;                                // guarded by mutex_
  std::shared_ptr<const WorkloadSizing> snapshot_ =  // guarded by mutex_ (the pointer)
      std::make_shared<const WorkloadSizing>();
};

}  // namespace attune::controller
