#include "sim/cluster/pod_snapshot.h"

namespace attune::sim {

void PodSnapshot::refresh(const ObjectStore<api::Pod>& pods) {
  resourceVersion_ = pods.resourceVersion();
  if (copied_ && writes_ == pods.writes()) return;
  // One walk over both, in (namespace, name) order: pods kept when their resourceVersion is the
  // same, copied again when it changed, added when new; those left behind were deleted.
  auto it = pods_.begin();
  const KeyLess less;
  pods.forEach([&](const api::Pod& pod) {
    const std::pair<std::string_view, std::string_view> key(pod.metadata.namespace_,
                                                            pod.metadata.name);
    while (it != pods_.end() && less(it->first, key)) it = pods_.erase(it);
    if (it != pods_.end() && !less(key, it->first)) {
      if (it->second.metadata.resourceVersion != pod.metadata.resourceVersion) it->second = pod;
      ++it;
    } else {
      pods_.emplace_hint(it, Key(pod.metadata.namespace_, pod.metadata.name), pod);
    }
  });
  pods_.erase(it, pods_.end());
  owned_.clear();
  for (const auto& [key, pod] : pods_) {
    if (const api::OwnerReference* ref = pod.metadata.controllerRef()) {
      owned_[{pod.metadata.namespace_, ref->kind, ref->name}].push_back(&pod);
    }
  }
  writes_ = pods.writes();
  copied_ = true;
}

const api::Pod* PodSnapshot::pod(std::string_view ns, std::string_view name) const {
  auto it = pods_.find(std::pair<std::string_view, std::string_view>(ns, name));
  return it == pods_.end() ? nullptr : &it->second;
}

std::size_t PodSnapshot::podCount(std::string_view ns) const {
  std::size_t count = 0;
  for (auto it = pods_.lower_bound(std::pair<std::string_view, std::string_view>(ns, {}));
       it != pods_.end() && it->first.first == ns; ++it) {
    ++count;
  }
  return count;
}

std::vector<const api::Pod*> PodSnapshot::podsOwnedBy(std::string_view ns, std::string_view kind,
                                                      std::string_view name) const {
  auto it = owned_.find({ns, kind, name});
  return it == owned_.end() ? std::vector<const api::Pod*>{} : it->second;
}

void PodSnapshot::forEachPod(const api::ListOptions& options,
                             const std::function<void(const api::Pod&)>& fn) const {
  for (const auto& [key, pod] : pods_) {
    if (listMatches(options, pod.metadata)) fn(pod);
  }
}

const api::PodView* InPlacePodsApi::podView(std::string_view /*ns*/) {
  pods_.refresh(state_.pods);
  return &pods_;
}

}  // namespace attune::sim
