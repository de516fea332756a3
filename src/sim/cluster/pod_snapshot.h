// The simulated cluster's pods read in place, as an informer cache would serve them: a copy of
// the pod store taken when the view is asked for and kept, unchanged, until it is asked for
// again. A pass over it (controller::ClusterSnapshot) reads the pods it needs without listing
// every pod; between two passes only the pods written since are copied again.
#pragma once

#include <cstdint>
#include <map>
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

// A ClusterApi that forwards everything to `inner` (the simulated cluster over `state`) and
// serves podView() from a PodSnapshot of `state`, refreshed at each call: the controller's
// snapshot then reads pods in place, as the operator's informer cache lets it, instead of
// copying every pod at every pass. Both must outlive it.
class InPlacePodsApi final : public api::ForwardingClusterApi {
 public:
  InPlacePodsApi(api::ClusterApi& inner, const ClusterState& state)
      : ForwardingClusterApi(inner), state_(state) {}

  // Every namespace's pods, as the store holds them now; valid until the next call.
  const api::PodView* podView(std::string_view ns) override;

 private:
  const ClusterState& state_;
  PodSnapshot pods_;
};

}  // namespace attune::sim
