// The simulated cluster's pods read in place, as an informer cache would serve them: a copy of
// the pod store taken when the view is asked for and kept, unchanged, until it is asked for
// again. A pass over it (controller::ClusterSnapshot) reads the pods it needs without listing
// every pod; between two passes only the pods written since are copied again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "api/cluster_api.h"
#include "api/forwarding_cluster_api.h"
#include "sim/cluster/cluster_state.h"

namespace attune::sim {

// api::PodView over copies of a ClusterState's pods. refresh() brings them up to the store; in
// between, pointers stay valid and the pods unchanged whatever is written to the store. Answers
// as listPods does at the moment of the last refresh: the same pods in the same order, and the
// same resourceVersion. Not thread-safe.
class PodSnapshot final : public api::PodView {
 public:
  // Copies the pods written since the last refresh (all of them the first time), forgets the
  // deleted ones and takes the store's current resourceVersion.
  void refresh(const ObjectStore<api::Pod>& pods);

  const api::Pod* pod(std::string_view ns, std::string_view name) const override;
  std::vector<const api::Pod*> podsOwnedBy(std::string_view ns, std::string_view kind,
                                           std::string_view name) const override;
  void forEachPod(const api::ListOptions& options,
                  const std::function<void(const api::Pod&)>& fn) const override;
  const std::string& resourceVersion() const override { return resourceVersion_; }
  std::size_t podCount(std::string_view ns) const override;

 private:
  // (namespace, name), compared with string views too.
  using Key = std::pair<std::string, std::string>;
  struct KeyLess {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      const std::string_view an(a.first);
      const std::string_view bn(b.first);
      if (an != bn) return an < bn;
      return std::string_view(a.second) < std::string_view(b.second);
    }
  };
  // (namespace, controller kind, controller name) → the pods it controls, in name order. Views
  // into the pods' own strings: rebuilt at every refresh that changed a pod.
  using OwnerKey = std::tuple<std::string_view, std::string_view, std::string_view>;

  std::map<Key, api::Pod, KeyLess> pods_;
  std::map<OwnerKey, std::vector<const api::Pod*>> owned_;
  std::uint64_t writes_ = 0;
  bool copied_ = false;  // pods_ holds the store as of writes_
  std::string resourceVersion_;
};

// One store's objects of a namespace ("" = all) as a list shared by its readers
// (api::SharedList), brought up to the store only when it was written since
// (ObjectStore::writes): only the objects whose resourceVersion changed are copied again, each
// into a new object, and the list itself is updated in place while no reader holds it, copied
// (its pointers) while one does, so that what a reader holds never changes. Not thread-safe.
template <typename T>
class SharedCopies {
 public:
  api::SharedList<T> of(const ObjectStore<T>& store, std::string_view ns) {
    auto it = lists_.find(ns);
    if (it == lists_.end()) it = lists_.emplace(std::string(ns), Copy{}).first;
    Copy& copy = it->second;
    if (copy.items != nullptr && copy.writes == store.writes()) return copy.items;
    if (copy.items != nullptr && copy.items.use_count() > 1) {
      copy.items = std::make_shared<Items>(*copy.items);
    }
    if (copy.items == nullptr || !update(*copy.items, store, ns)) {
      auto items = std::make_shared<Items>();
      const auto add = [&](const T& object) {
        items->push_back(std::make_shared<const T>(object));
      };
      if (ns.empty()) {
        store.forEach(add);
      } else {
        store.forEachInNamespace(ns, add);
      }
      copy.items = std::move(items);
    }
    copy.writes = store.writes();
    return copy.items;
  }

 private:
  using Items = std::vector<std::shared_ptr<const T>>;
  struct Copy {
    std::shared_ptr<Items> items;
    std::uint64_t writes = 0;  // the store's writes when items were brought up to it
  };
  // Copies the objects of `items` whose resourceVersion changed in `store`; false (items left
  // partly updated, to be copied whole) when the store holds other objects than `items`.
  static bool update(Items& items, const ObjectStore<T>& store, std::string_view ns) {
    std::size_t i = 0;
    bool same = true;
    const auto visit = [&](const T& object) {
      if (!same) return;
      if (i >= items.size() || items[i]->metadata.name != object.metadata.name ||
          items[i]->metadata.namespace_ != object.metadata.namespace_) {
        same = false;
        return;
      }
      if (items[i]->metadata.resourceVersion != object.metadata.resourceVersion) {
        items[i] = std::make_shared<const T>(object);
      }
      ++i;
    };
    if (ns.empty()) {
      store.forEach(visit);
    } else {
      store.forEachInNamespace(ns, visit);
    }
    return same && i == items.size();
  }

  std::map<std::string, Copy, std::less<>> lists_;
};

// A ClusterApi that forwards everything to `inner` (the simulated cluster over `state`) and
// serves podView() from a PodSnapshot of `state`, refreshed at each call, and the shared
// Deployment, ReplicaSet and AttunePolicy lists from copies of `state`'s stores kept until they are
// written: the controller's snapshot then reads them in place, as the operator's informer cache
// lets it, instead of copying every pod, Deployment and ReplicaSet at every pass. Both must outlive
// it.
class InPlacePodsApi final : public api::ForwardingClusterApi {
 public:
  InPlacePodsApi(api::ClusterApi& inner, const ClusterState& state)
      : ForwardingClusterApi(inner), state_(state) {}

  // Every namespace's pods, as the store holds them now; valid until the next call.
  const api::PodView* podView(std::string_view ns) override;
  // The store's objects in `ns` as they are now (the same list while it is not written).
  api::SharedList<api::Deployment> sharedDeployments(std::string_view ns) override {
    return deployments_.of(state_.deployments, ns);
  }
  api::SharedList<api::ReplicaSet> sharedReplicaSets(std::string_view ns) override {
    return replicaSets_.of(state_.replicaSets, ns);
  }
  api::SharedList<api::AttunePolicy> sharedAttunePolicies(std::string_view ns) override {
    return policies_.of(state_.attunePolicies, ns);
  }

 private:
  const ClusterState& state_;
  PodSnapshot pods_;
  SharedCopies<api::Deployment> deployments_;
  SharedCopies<api::ReplicaSet> replicaSets_;
  SharedCopies<api::AttunePolicy> policies_;
};

}  // namespace attune::sim
