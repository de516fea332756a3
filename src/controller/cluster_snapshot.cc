#include "controller/cluster_snapshot.h"

#include <algorithm>
#include <map>
#include <utility>

namespace attune::controller {
namespace {

// Lists `namespaces` (empty: all) into `into`; `versions`, when given, receives each LIST's
// resourceVersion by namespace ("" for all).
template <typename T>
Result<void> listInto(std::vector<T>& into, const std::vector<std::string>& namespaces,
                      const auto& list,
                      std::map<std::string, std::string, std::less<>>* versions = nullptr) {
  if (namespaces.empty()) {
    auto all = list(api::ListOptions{});
    if (!all) return std::unexpected(all.error());
    into = std::move(all->items);
    if (versions != nullptr) (*versions)[""] = std::move(all->resourceVersion);
    return {};
  }
  for (const std::string& ns : namespaces) {
    auto some = list(api::ListOptions{.namespace_ = ns, .labelSelector = {}});
    if (!some) return std::unexpected(some.error());
    for (auto& item : some->items) into.push_back(std::move(item));
    if (versions != nullptr) (*versions)[ns] = std::move(some->resourceVersion);
  }
  return {};
}

// `namespaces`' objects (empty: all) as the api's cache shares them (`shared`, nullptr when it
// keeps none), or else listed (`list`).
template <typename T>
Result<api::SharedList<T>> sharedOrListed(const std::vector<std::string>& namespaces,
                                          const auto& shared, const auto& list) {
  if (namespaces.size() <= 1) {
    if (auto items = shared(namespaces.empty() ? std::string() : namespaces.front())) return items;
  }
  std::vector<T> items;
  if (auto ok = listInto(items, namespaces, list); !ok) return std::unexpected(ok.error());
  return api::sharedListOf(std::move(items));
}

using Key = std::pair<std::string, std::string>;

std::shared_ptr<const ClusterSnapshot::NodeTable> nodeTableOf(std::vector<api::Node> nodes,
                                                              api::SharedList<api::Node> from) {
  auto table = std::make_shared<ClusterSnapshot::NodeTable>();
  table->from = std::move(from);
  table->nodes = std::move(nodes);
  for (std::size_t i = 0; i < table->nodes.size(); ++i) {
    table->byName[table->nodes[i].metadata.name] = i;
  }
  return table;
}

}  // namespace

Result<ClusterSnapshot> ClusterSnapshot::take(api::ClusterApi& api,
                                              const std::vector<std::string>& namespaces,
                                              const std::set<api::TargetKind>& kinds,
                                              Reuse* reuse) {
  ClusterSnapshot s;
  const auto all = std::vector<std::string>{};
  const auto wants = [&](std::initializer_list<api::TargetKind> any) {
    return std::any_of(any.begin(), any.end(),
                       [&](api::TargetKind k) { return kinds.contains(k); });
  };
  using K = api::TargetKind;
  Result<void> ok;
  if (auto shared = api.sharedNodes()) {
    if (reuse != nullptr && reuse->nodes && reuse->nodes->from == shared) {
      s.nodes_ = reuse->nodes;
    } else {
      std::vector<api::Node> nodes;
      nodes.reserve(shared->size());
      for (const auto& node : *shared) nodes.push_back(*node);
      s.nodes_ = nodeTableOf(std::move(nodes), std::move(shared));
    }
    if (reuse != nullptr) reuse->nodes = s.nodes_;
  } else {
    // Listed: a table no later snapshot can match, so none is kept.
    std::vector<api::Node> nodes;
    ok = listInto(nodes, all, [&](const auto& o) { return api.listNodes(o); });
    s.nodes_ = nodeTableOf(std::move(nodes), nullptr);
  }
  // Pods in place when a cache covers every namespace of the pass; listed otherwise.
  for (const std::string& ns : namespaces.empty() ? std::vector<std::string>{""} : namespaces) {
    const api::PodView* view = api.podView(ns);
    if (view == nullptr) {
      s.views_.clear();
      break;
    }
    s.views_[ns] = view;
  }
  if (ok && !s.views_.empty()) {
    s.allPods_ = false;
    for (const auto& [ns, view] : s.views_) s.podListVersions_[ns] = view->resourceVersion();
  } else if (ok) {
    ok = listInto(
        s.pods_, namespaces, [&](const auto& o) { return api.listPods(o); }, &s.podListVersions_);
  }
  if (ok && wants({K::kDeployment})) {
    auto deployments = sharedOrListed<api::Deployment>(
        namespaces, [&](const std::string& ns) { return api.sharedDeployments(ns); },
        [&](const auto& o) { return api.listDeployments(o); });
    if (deployments) {
      s.deployments_ = std::move(*deployments);
    } else {
      ok = std::unexpected(deployments.error());
    }
  }
  if (ok && wants({K::kStatefulSet})) {
    ok = listInto(s.statefulSets_, namespaces,
                  [&](const auto& o) { return api.listStatefulSets(o); });
  }
  if (ok && wants({K::kDaemonSet})) {
    ok = listInto(s.daemonSets_, namespaces, [&](const auto& o) { return api.listDaemonSets(o); });
  }
  if (ok && wants({K::kDeployment, K::kReplicaSet})) {
    auto replicaSets = sharedOrListed<api::ReplicaSet>(
        namespaces, [&](const std::string& ns) { return api.sharedReplicaSets(ns); },
        [&](const auto& o) { return api.listReplicaSets(o); });
    if (replicaSets) {
      s.replicaSets_ = std::move(*replicaSets);
    } else {
      ok = std::unexpected(replicaSets.error());
    }
  }
  if (ok && wants({K::kJob, K::kCronJob})) {
    ok = listInto(s.jobs_, namespaces, [&](const auto& o) { return api.listJobs(o); });
  }
  if (ok && wants({K::kCronJob})) {
    ok = listInto(s.cronJobs_, namespaces, [&](const auto& o) { return api.listCronJobs(o); });
  }
  if (ok) {
    ok =
        listInto(s.limitRanges_, namespaces, [&](const auto& o) { return api.listLimitRanges(o); });
  }
  if (ok) {
    ok = listInto(s.quotas_, namespaces, [&](const auto& o) { return api.listResourceQuotas(o); });
  }
  if (ok) ok = listInto(s.hpas_, namespaces, [&](const auto& o) { return api.listHpas(o); });
  if (!ok) return std::unexpected(ok.error());
  // Not fatal: without a version the passes treat memory limit decreases as the oldest rule does.
  if (auto version = api.getServerVersion()) s.serverVersion_ = std::move(*version);
  s.index(reuse);
  return s;
}

ClusterSnapshot ClusterSnapshot::fromLists(
    api::List<api::Pod> pods, api::List<api::Node> nodes, api::List<api::Deployment> deployments,
    api::List<api::StatefulSet> statefulSets, api::List<api::DaemonSet> daemonSets,
    api::List<api::ReplicaSet> replicaSets, api::List<api::Job> jobs,
    api::List<api::CronJob> cronJobs, api::List<api::LimitRange> limitRanges,
    api::List<api::ResourceQuota> quotas, api::List<api::HorizontalPodAutoscaler> hpas) {
  ClusterSnapshot s;
  s.pods_ = std::move(pods.items);
  s.nodes_ = nodeTableOf(std::move(nodes.items), nullptr);
  s.deployments_ = api::sharedListOf(std::move(deployments.items));
  s.statefulSets_ = std::move(statefulSets.items);
  s.daemonSets_ = std::move(daemonSets.items);
  s.replicaSets_ = api::sharedListOf(std::move(replicaSets.items));
  s.jobs_ = std::move(jobs.items);
  s.cronJobs_ = std::move(cronJobs.items);
  s.limitRanges_ = std::move(limitRanges.items);
  s.quotas_ = std::move(quotas.items);
  s.hpas_ = std::move(hpas.items);
  s.index(nullptr);
  return s;
}

void ClusterSnapshot::index(Reuse* reuse) {
  for (std::size_t i = 0; !readsInPlace() && i < pods_.size(); ++i) {
    podIndex_[{pods_[i].metadata.namespace_, pods_[i].metadata.name}] = i;
  }
  if (reuse != nullptr && reuse->replicaSets && reuse->replicaSets->from == replicaSets_) {
    rsIndex_ = reuse->replicaSets;
  } else {
    auto built = std::make_shared<ReplicaSetIndex>();
    built->from = replicaSets_;
    for (const auto& rs : *replicaSets_) {
      if (const api::OwnerReference* ref = rs->metadata.controllerRef()) {
        built->owner[{rs->metadata.namespace_, rs->metadata.name}] = {ref->kind, ref->name};
      }
    }
    for (const auto& [key, owner] : built->owner) {
      built->controlled[{key.first, owner.first, owner.second}].push_back(key.second);
    }
    rsIndex_ = std::move(built);
  }
  if (reuse != nullptr) reuse->replicaSets = rsIndex_;
  for (const auto& job : jobs_) {
    if (const api::OwnerReference* ref = job.metadata.controllerRef()) {
      jobOwner_[{job.metadata.namespace_, job.metadata.name}] = {ref->kind, ref->name};
    }
  }
  if (readsInPlace()) {  // podsOf reads the views as it is asked
    for (const auto& [key, owner] : jobOwner_) {
      controlledJobs_[{key.first, owner.first, owner.second}].push_back(key.second);
    }
    return;
  }
  for (const api::Pod& pod : pods_) podsByOwner_[ownerOf(pod)].push_back(&pod);
}

const std::vector<api::Pod>& ClusterSnapshot::pods() const {
  if (!allPods_) {
    for (const auto& [ns, view] : views_) {
      view->forEachPod(api::ListOptions{.namespace_ = ns, .labelSelector = {}},
                       [&](const api::Pod& pod) { pods_.push_back(pod); });
    }
    allPods_ = true;
  }
  return pods_;
}

std::size_t ClusterSnapshot::podCount(std::string_view ns) const {
  if (allPods_) return inNamespace(pods_, ns).size();
  const api::PodView* view = viewOf(ns);
  return view == nullptr ? 0 : view->podCount(ns);
}

const api::PodView* ClusterSnapshot::viewOf(std::string_view ns) const {
  if (auto it = views_.find(ns); it != views_.end()) return it->second;
  if (auto it = views_.find(""); it != views_.end()) return it->second;
  return nullptr;
}

std::vector<const api::Pod*> ClusterSnapshot::viewedPodsOf(const api::WorkloadRef& w) const {
  std::vector<const api::Pod*> out;
  const api::PodView* view = viewOf(w.ns);
  if (view == nullptr) return out;
  if (w.kind == "Pod") {
    const api::Pod* pod = view->pod(w.ns, w.name);
    if (pod != nullptr && pod->metadata.controllerRef() == nullptr) out.push_back(pod);
    return out;
  }
  const auto add = [&](std::string_view kind, std::string_view name) {
    for (const api::Pod* pod : view->podsOwnedBy(w.ns, kind, name)) out.push_back(pod);
  };
  // Pods controlled by the workload itself, unless it is a ReplicaSet or Job whose own
  // controller is known (ownerOf then names that controller).
  const bool mapsUp = (w.kind == "ReplicaSet" && rsIndex_->owner.contains({w.ns, w.name})) ||
                      (w.kind == "Job" && jobOwner_.contains({w.ns, w.name}));
  if (!mapsUp) add(w.kind, w.name);
  // Pods of the ReplicaSets and Jobs it controls.
  const RefView ref{w.ns, w.kind, w.name};
  if (auto sets = rsIndex_->controlled.find(ref); sets != rsIndex_->controlled.end()) {
    for (std::string_view name : sets->second) add("ReplicaSet", name);
  }
  if (auto jobs = controlledJobs_.find(ref); jobs != controlledJobs_.end()) {
    for (std::string_view name : jobs->second) add("Job", name);
  }
  std::ranges::sort(out, [](const api::Pod* a, const api::Pod* b) {
    return a->metadata.name < b->metadata.name;
  });
  return out;
}

const api::Node* ClusterSnapshot::node(std::string_view name) const {
  auto it = nodes_->byName.find(name);
  return it == nodes_->byName.end() ? nullptr : &nodes_->nodes[it->second];
}

const api::Pod* ClusterSnapshot::pod(std::string_view ns, std::string_view name) const {
  if (readsInPlace()) {
    const api::PodView* view = viewOf(ns);
    return view == nullptr ? nullptr : view->pod(ns, name);
  }
  auto it = podIndex_.find(Key{std::string(ns), std::string(name)});
  return it == podIndex_.end() ? nullptr : &pods_[it->second];
}

api::WorkloadRef ClusterSnapshot::ownerOf(const api::Pod& pod) const {
  const std::string& ns = pod.metadata.namespace_;
  const api::OwnerReference* ref = pod.metadata.controllerRef();
  if (ref == nullptr) return {ns, "Pod", pod.metadata.name};
  const auto& owners = ref->kind == "ReplicaSet" ? rsIndex_->owner : jobOwner_;
  if (ref->kind == "ReplicaSet" || ref->kind == "Job") {
    if (auto it = owners.find({ns, ref->name}); it != owners.end()) {
      return {ns, std::string(it->second.first), std::string(it->second.second)};
    }
  }
  return {ns, ref->kind, ref->name};
}

void ClusterSnapshot::forgetViewedPods() const {
  if (readsInPlace()) podsByOwner_.clear();
}

const std::vector<const api::Pod*>& ClusterSnapshot::podsOf(
    const api::WorkloadRef& workload) const {
  static const std::vector<const api::Pod*> kNone;
  auto it = podsByOwner_.find(workload);
  if (it != podsByOwner_.end()) return it->second;
  if (!readsInPlace()) return kNone;
  return podsByOwner_.emplace(workload, viewedPodsOf(workload)).first->second;
}

}  // namespace attune::controller
