// A consistent read of everything one reconcile pass looks at, with the indexes the policies
// need (pods by namespace, top-level owners). Taken once per pass, so a pass over many policies
// lists each kind once, as an informer cache would serve it.
//
// Pods are read in place when the ClusterApi keeps a pod cache (ClusterApi::podView, the
// operator's CachedClusterApi): podsOf and pod take the pods they are asked for from the cache,
// by owner and by name, and no other pod is copied. Without a cache the pods are listed. Either
// way podsOf, pod and pods answer alike. Deployments and ReplicaSets are likewise shared with the
// api's cache when it keeps one (ClusterApi::sharedDeployments, sharedReplicaSets): the list and
// its objects are the cache's, not copied.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "api/cluster_api.h"
#include "core/error.h"
#include "metrics/metrics_source.h"

namespace attune::controller {

// An item of one of the snapshot's lists: the object itself, or the shared object it points to.
template <typename T>
const T& objectOf(const T& object) {
  return object;
}
template <typename T>
const T& objectOf(const std::shared_ptr<const T>& object) {
  return *object;
}

class ClusterSnapshot {
 public:
  // Moved, never copied: its indexes point into its own lists.
  ClusterSnapshot(ClusterSnapshot&&) = default;
  ClusterSnapshot& operator=(ClusterSnapshot&&) = default;
  ClusterSnapshot(const ClusterSnapshot&) = delete;
  ClusterSnapshot& operator=(const ClusterSnapshot&) = delete;
  ~ClusterSnapshot() = default;

  // The nodes, indexed by name.
  struct NodeTable {
    api::SharedList<api::Node> from;  // the cache's list they were copied from; nullptr: listed
    std::vector<api::Node> nodes;
    std::map<std::string, std::size_t, std::less<>> byName;  // index into nodes
  };
  using NameView = std::pair<std::string_view, std::string_view>;
  using RefView = std::tuple<std::string_view, std::string_view, std::string_view>;
  // The ReplicaSets' owners, viewing the names of the objects of `from`, which it keeps.
  struct ReplicaSetIndex {
    api::SharedList<api::ReplicaSet> from;
    // ReplicaSet (namespace, name) → its controller's reference (kind, name).
    std::map<NameView, NameView> owner;
    // The other way round: the ReplicaSets each workload (namespace, kind, name) controls, so
    // that podsOf does not scan every one of them.
    std::map<RefView, std::vector<std::string_view>> controlled;
  };
  // What one snapshot built from the api cache's shared lists, for the next: take() reuses each
  // table whose list the cache still hands out (the same pointer: nothing in it changed)
  // instead of copying every node and indexing every ReplicaSet again. Held by a caller that
  // takes a snapshot per pass (the controller); the tables are immutable and shared.
  struct Reuse {
    std::shared_ptr<const NodeTable> nodes;
    std::shared_ptr<const ReplicaSetIndex> replicaSets;
  };

  // Lists, in `namespaces` (empty = all namespaces): pods (unless api.podView covers every one
  // of them: then they are read in place), LimitRanges, ResourceQuotas, HPAs,
  // and the workload kinds policies targeting `kinds` resolve through (a Deployment's
  // ReplicaSets, a CronJob's Jobs), plus all nodes. Kinds no policy targets are not listed and
  // stay empty. The first failing list is returned as the error. With `reuse`, the node table
  // and ReplicaSet index are taken from it when still current, and left in it for the next call.
  static Result<ClusterSnapshot> take(api::ClusterApi& api,
                                      const std::vector<std::string>& namespaces,
                                      const std::set<api::TargetKind>& kinds,
                                      Reuse* reuse = nullptr);
  // Builds a snapshot from lists already read (tests, and callers with their own caches).
  static ClusterSnapshot fromLists(
      api::List<api::Pod> pods, api::List<api::Node> nodes, api::List<api::Deployment> deployments,
      api::List<api::StatefulSet> statefulSets, api::List<api::DaemonSet> daemonSets,
      api::List<api::ReplicaSet> replicaSets, api::List<api::Job> jobs,
      api::List<api::CronJob> cronJobs, api::List<api::LimitRange> limitRanges,
      api::List<api::ResourceQuota> quotas, api::List<api::HorizontalPodAutoscaler> hpas);

  // Every pod. Read in place, they are copied out of the cache on the first call (only node
  // optimisation, which looks at every node's pods, asks for them all).
  const std::vector<api::Pod>& pods() const;
  // How many pods namespace `ns` has (none copied or unpacked).
  std::size_t podCount(std::string_view ns) const;
  // The resourceVersion of each pod LIST `take` made (or of the cache it read in place), by
  // namespace ("" when it listed all): where a pod watch can start without a gap. Empty for a
  // snapshot built fromLists.
  const std::map<std::string, std::string, std::less<>>& podListVersions() const {
    return podListVersions_;
  }
  const std::vector<api::Node>& nodes() const { return nodes_->nodes; }
  const std::vector<std::shared_ptr<const api::Deployment>>& deployments() const {
    return *deployments_;
  }
  const std::vector<api::StatefulSet>& statefulSets() const { return statefulSets_; }
  const std::vector<api::DaemonSet>& daemonSets() const { return daemonSets_; }
  const std::vector<std::shared_ptr<const api::ReplicaSet>>& replicaSets() const {
    return *replicaSets_;
  }
  const std::vector<api::Job>& jobs() const { return jobs_; }
  const std::vector<api::CronJob>& cronJobs() const { return cronJobs_; }
  const std::vector<api::LimitRange>& limitRanges() const { return limitRanges_; }
  const std::vector<api::ResourceQuota>& quotas() const { return quotas_; }
  const std::vector<api::HorizontalPodAutoscaler>& hpas() const { return hpas_; }
  // The API server's version (ClusterApi::getServerVersion, read by `take`); nullopt when it
  // could not be read. Decides how memory limit decreases are planned
  // (rollout/memory_limit_decrease.h).
  const std::optional<api::ServerVersion>& serverVersion() const { return serverVersion_; }
  void setServerVersion(std::optional<api::ServerVersion> version) {
    serverVersion_ = std::move(version);
  }

  // The objects of `all` (one of the lists above) in namespace `ns`: the namespace's run when
  // the list is in namespace order, as LISTs return it, else the whole list (callers still check
  // the namespace). Whether a list is in order is found once per snapshot.
  // Its items are objects, or pointers to shared ones (objectOf reads either).
  template <typename T>
  std::span<const T> inNamespace(const std::vector<T>& all, std::string_view ns) const {
    const auto namespaceOf = [](const T& o) -> std::string_view {
      return objectOf(o).metadata.namespace_;
    };
    auto [known, fresh] = inNamespaceOrder_.try_emplace(&all);
    if (fresh) known->second = std::ranges::is_sorted(all, {}, namespaceOf);
    if (!known->second) return all;
    const auto run = std::ranges::equal_range(all, ns, {}, namespaceOf);
    return {run.begin(), run.end()};
  }

  // The node named `name`, or nullptr.
  const api::Node* node(std::string_view name) const;
  // The pod, or nullptr.
  const api::Pod* pod(std::string_view ns, std::string_view name) const;
  // The top-level workload of `pod`: Pod → ReplicaSet → Deployment, Pod → Job → CronJob,
  // StatefulSet, DaemonSet; the pod itself (kind "Pod") when it has no controller. An owner that
  // is not in the snapshot stops the walk at the last known object's reference.
  api::WorkloadRef ownerOf(const api::Pod& pod) const;
  // The pods whose top-level owner is `workload`, in name order. The pointers stay valid as long
  // as the snapshot (and, read in place, until the cache is next refreshed).
  const std::vector<const api::Pod*>& podsOf(const api::WorkloadRef& workload) const;
  // Whether pods are read in place (see the file comment).
  bool readsInPlace() const { return !views_.empty(); }
  // Read in place: forgets the pods podsOf() found, so that the pod cache may free them
  // (ControllerOptions::releasePods); later calls read the views again. Every pointer podsOf()
  // and pod() handed out becomes invalid once the cache frees them.
  void forgetViewedPods() const;

 private:
  ClusterSnapshot() = default;
  // Indexes the lists; the node table and ReplicaSet index are built unless `reuse` holds them
  // for the same lists.
  void index(Reuse* reuse);
  // The view covering namespace `ns`, or nullptr.
  const api::PodView* viewOf(std::string_view ns) const;
  // podsOf through the views.
  std::vector<const api::Pod*> viewedPodsOf(const api::WorkloadRef& workload) const;

  mutable std::vector<api::Pod> pods_;
  mutable bool allPods_ = true;  // pods_ holds every pod (false while read in place only)
  // The pod caches read in place, by the namespace they were asked for ("" = all).
  std::map<std::string, const api::PodView*, std::less<>> views_;
  std::map<std::string, std::string, std::less<>> podListVersions_;
  std::shared_ptr<const NodeTable> nodes_;
  // Shared with the api's cache when it keeps one (ClusterApi::sharedDeployments), else listed.
  api::SharedList<api::Deployment> deployments_ =
      std::make_shared<const std::vector<std::shared_ptr<const api::Deployment>>>();
  std::vector<api::StatefulSet> statefulSets_;
  std::vector<api::DaemonSet> daemonSets_;
  api::SharedList<api::ReplicaSet> replicaSets_ =
      std::make_shared<const std::vector<std::shared_ptr<const api::ReplicaSet>>>();
  std::vector<api::Job> jobs_;
  std::vector<api::CronJob> cronJobs_;
  std::vector<api::LimitRange> limitRanges_;
  std::vector<api::ResourceQuota> quotas_;
  std::vector<api::HorizontalPodAutoscaler> hpas_;
  std::optional<api::ServerVersion> serverVersion_;

  mutable std::map<const void*, bool> inNamespaceOrder_;  // by list, for inNamespace
  std::map<std::pair<std::string, std::string>, std::size_t> podIndex_;
  std::shared_ptr<const ReplicaSetIndex> rsIndex_;
  // Job (namespace, name) → its controller's reference (kind, name), viewing jobs_' strings,
  // which moving the snapshot does not move (it cannot be copied).
  std::map<NameView, NameView> jobOwner_;
  // Read in place: the Jobs each workload controls (jobOwner_ the other way round).
  std::map<RefView, std::vector<std::string_view>> controlledJobs_;
  mutable std::map<api::WorkloadRef, std::vector<const api::Pod*>> podsByOwner_;
};

}  // namespace attune::controller
