#include "kube/informer.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "kube/compact_pod.h"

namespace attune::kube {
namespace {

using View = ObjectKeyLess::View;

View viewOf(const api::ObjectMeta& meta) { return View{meta.namespace_, meta.name}; }

// Orders the pod keys of one owner by name (they share the namespace).
template <typename Pair>
bool byName(const Pair* a, const Pair* b) {
  return a->first.name < b->first.name;
}

}  // namespace

bool keepsNamespace(const InformerOptions& options, std::string_view ns) {
  return !options.namespaceFilter || options.namespaceFilter(ns);
}

bool ResyncSchedule::due(Duration period) const {
  return !last_ || clock_.now() - *last_ >= period;
}

void ResyncSchedule::listed() { last_ = clock_.now(); }

// ---------------------------------------------------------------------------------------------
// PodInformer

PodInformer::PodInformer(api::ClusterApi& api, Clock& clock, InformerOptions options)
    : api_(api), options_(std::move(options)), schedule_(clock, options_.resyncPeriod) {}

InformerOptions PodInformer::defaultOptions() {
  InformerOptions options;
  options.resyncPeriod = std::chrono::minutes(30);
  return options;
}

void PodInformer::releaseUnpacked() const {
  for (const Entry* entry : unpackedEntries_) {
    if (entry->unpacked) recycle(std::move(entry->unpacked));
    entry->listed = false;
  }
  unpackedEntries_.clear();
  for (auto& pod : retired_) recycle(std::move(pod));
  retired_.clear();
}

void PodInformer::recycle(std::unique_ptr<api::Pod> pod) const {
  if (spare_.size() < kSparePods) spare_.push_back(std::move(pod));
}

std::size_t PodInformer::unpackedCount() const {
  const auto held = std::ranges::count_if(unpackedEntries_,
                                          [](const Entry* e) { return e->unpacked != nullptr; });
  return static_cast<std::size_t>(held) + retired_.size();
}

const api::Pod* PodInformer::unpacked(const Entry& entry) const {
  if (!entry.unpacked) {
    if (spare_.empty()) {
      entry.unpacked = std::make_unique<api::Pod>();
    } else {
      entry.unpacked = std::move(spare_.back());
      spare_.pop_back();
      // The next pod unpacked reuses the next spare object: its buffers are asked for meanwhile.
      if (!spare_.empty()) prefetchPodBuffers(*spare_.back());
    }
    unpackPod(entry.packed, *entry.unpacked);
    if (!entry.listed) unpackedEntries_.push_back(&entry);
    entry.listed = true;
  }
  return entry.unpacked.get();
}

void PodInformer::retire(Entry& entry) {
  if (entry.unpacked) retired_.push_back(std::move(entry.unpacked));
}

Result<void> PodInformer::sync() {
  releaseUnpacked();
  if (schedule_.due()) return relist();
  auto batch = api_.watchPods(options_.list, resourceVersion_);
  if (!batch) {
    stats_.lastError = batch.error();
    if (batch.error().code == ErrorCode::kUnavailable) {
      ++stats_.reconnects;
      return {};
    }
    // 410 Gone (kConflict, field "resourceVersion") and anything else the watch cannot resume
    // from: start over.
    ++stats_.expired;
    return relist();
  }
  for (const api::WatchEvent<api::Pod>& event : batch->events) {
    if (event.type == api::WatchEventType::kBookmark || event.type == api::WatchEventType::kError) {
      continue;
    }
    if (!keepsNamespace(options_, event.object.metadata.namespace_)) {
      ++stats_.filtered;
      continue;
    }
    apply(event);
    recent_.push_back({event.object.metadata.resourceVersion, event});
  }
  resourceVersion_ = std::move(batch->resourceVersion);
  logMark();
  return {};
}

void PodInformer::logMark() {
  if (recent_.empty() || recent_.back().resourceVersion != resourceVersion_) {
    recent_.push_back({resourceVersion_, std::nullopt});
  }
  while (recent_.size() > kRecentEvents) recent_.pop_front();
}

Result<api::WatchBatch<api::Pod>> PodInformer::recentEvents(
    const api::ListOptions& options, std::string_view resourceVersion) const {
  auto from = recent_.begin();
  if (!resourceVersion.empty()) {
    auto it = std::find_if(recent_.rbegin(), recent_.rend(), [&](const LoggedEvent& e) {
      return e.resourceVersion == resourceVersion;
    });
    if (it == recent_.rend()) {
      return std::unexpected(Error{ErrorCode::kConflict,
                                   "too old resource version: " + std::string(resourceVersion),
                                   "resourceVersion"});
    }
    from = it.base();
  }
  api::WatchBatch<api::Pod> batch;
  for (auto it = from; it != recent_.end(); ++it) {
    if (!it->event) continue;
    const api::ObjectMeta& meta = it->event->object.metadata;
    if (!options.namespace_.empty() && meta.namespace_ != options.namespace_) continue;
    if (!api::selectorMatches(options.labelSelector, meta.labels)) continue;
    batch.events.push_back(*it->event);
  }
  batch.resourceVersion = resourceVersion_;
  return batch;
}

Result<void> PodInformer::relist() {
  releaseUnpacked();  // no entry may outlive the cache it points into
  std::string resourceVersion;
  if (options_.pageSize == 0) {
    auto list = api_.listPods(options_.list);
    if (!list) {
      stats_.lastError = list.error();
      return std::unexpected(list.error());
    }
    pods_.clear();
    owners_.clear();
    namespaceCounts_.clear();
    // The decoded list is freed only after every pod is packed: the packed pods then sit
    // together above it in the heap, and the list's memory goes back whole instead of staying
    // pinned by small packed pods scattered through it.
    for (const api::Pod& pod : list->items) storeListed(pod);
    resourceVersion = std::move(list->resourceVersion);
  } else {
    // The cache as it was stays aside until the new list is complete, so that a failed LIST
    // leaves it unchanged.
    PodMap previousPods;
    OwnerMap previousOwners;
    std::map<std::string, std::size_t, std::less<>> previousCounts;
    previousPods.swap(pods_);
    previousOwners.swap(owners_);
    previousCounts.swap(namespaceCounts_);
    for (int attempt = 0;; ++attempt) {
      auto listed = listPages();
      if (listed) {
        resourceVersion = std::move(*listed);
        break;
      }
      stats_.lastError = listed.error();
      const bool gone =
          listed.error().code == ErrorCode::kConflict && listed.error().field == "resourceVersion";
      if (!gone || attempt + 1 >= kListRestarts) {
        pods_.swap(previousPods);
        owners_.swap(previousOwners);
        namespaceCounts_.swap(previousCounts);
        return std::unexpected(listed.error());
      }
      ++stats_.listRestarts;
    }
  }
  pendingWrites_.clear();
  resourceVersion_ = std::move(resourceVersion);
  recent_.clear();
  logMark();
  schedule_.listed();
  ++stats_.relists;
  return {};
}

Result<std::string> PodInformer::listPages() {
  pods_.clear();
  owners_.clear();
  namespaceCounts_.clear();
  std::string resourceVersion;
  std::string continueToken;
  bool first = true;
  do {
    auto page = api_.listPodsPage(options_.list, options_.pageSize, continueToken);
    if (!page) return std::unexpected(page.error());
    if (first) resourceVersion = std::move(page->resourceVersion);
    first = false;
    for (const api::Pod& pod : page->items) storeListed(pod);
    continueToken = std::move(page->continueToken);
  } while (!continueToken.empty());
  return resourceVersion;
}

void PodInformer::apply(const api::WatchEvent<api::Pod>& event) {
  const api::ObjectMeta& meta = event.object.metadata;
  switch (event.type) {
    case api::WatchEventType::kDeleted: {
      if (auto pending = pendingWrites_.find(viewOf(meta)); pending != pendingWrites_.end()) {
        pendingWrites_.erase(pending);
      }
      erase(meta.namespace_, meta.name);
      break;
    }
    case api::WatchEventType::kAdded:
    case api::WatchEventType::kModified: {
      if (auto pending = pendingWrites_.find(viewOf(meta)); pending != pendingWrites_.end()) {
        // Events before the one of our own write are older than what the cache holds.
        if (pending->second != meta.resourceVersion) return;
        pendingWrites_.erase(pending);
      }
      store(event.object);
      break;
    }
    case api::WatchEventType::kBookmark:
    case api::WatchEventType::kError:
      return;
  }
  ++stats_.events;
}

void PodInformer::storeListed(const api::Pod& pod) {
  if (keepsNamespace(options_, pod.metadata.namespace_)) {
    store(pod);
  } else {
    ++stats_.filtered;
  }
}

void PodInformer::store(const api::Pod& pod) {
  if (auto it = pod.metadata.annotations.find(kLastAppliedAnnotation);
      it != pod.metadata.annotations.end()) {
    api::Pod stripped = pod;
    stripped.metadata.annotations.erase(std::string(kLastAppliedAnnotation));
    store(stripped);
    return;
  }
  auto [it, inserted] = pods_.try_emplace(ObjectKey{pod.metadata.namespace_, pod.metadata.name});
  if (inserted) {
    ++namespaceCounts_[pod.metadata.namespace_];
  } else {
    unlinkOwner(it);
    retire(it->second);
  }
  std::string packed = packPod(pod);
  // A replaced pod's bytes stay where they were while they fit, so that the cache's pods stay
  // in memory in the order they were listed, which is the order passes read them in (an owner's
  // pods, by name): reading them then walks the heap forward instead of all over it.
  if (packed.size() <= it->second.packed.capacity()) {
    it->second.packed.assign(packed);
  } else {
    it->second.packed = std::move(packed);
  }
  linkOwner(it, pod);
}

void PodInformer::erase(std::string_view ns, std::string_view name) {
  auto it = pods_.find(View{ns, name});
  if (it == pods_.end()) return;
  unlinkOwner(it);
  retire(it->second);
  std::erase(unpackedEntries_, &it->second);  // empty during a sync(), which releases first
  if (auto count = namespaceCounts_.find(ns);
      count != namespaceCounts_.end() && --count->second == 0) {
    namespaceCounts_.erase(count);
  }
  pods_.erase(it);
}

void PodInformer::linkOwner(PodMap::iterator it, const api::Pod& pod) {
  const api::OwnerReference* ref = pod.metadata.controllerRef();
  if (ref == nullptr) return;
  auto owner = owners_.try_emplace(OwnerKey{it->first.namespace_, ref->kind, ref->name}).first;
  auto& pods = owner->second;
  const PodMap::value_type* entry = &*it;
  pods.insert(std::lower_bound(pods.begin(), pods.end(), entry, byName<PodMap::value_type>), entry);
  it->second.owner = &owner->first;
}

void PodInformer::unlinkOwner(PodMap::iterator it) {
  if (it->second.owner == nullptr) return;
  auto owner = owners_.find(*it->second.owner);
  it->second.owner = nullptr;
  if (owner == owners_.end()) return;
  auto& pods = owner->second;
  std::erase(pods, &*it);
  if (pods.empty()) owners_.erase(owner);
}

bool PodInformer::inScope(const api::ObjectMeta& meta) const {
  return (options_.list.namespace_.empty() || meta.namespace_ == options_.list.namespace_) &&
         keepsNamespace(options_, meta.namespace_) &&
         api::selectorMatches(options_.list.labelSelector, meta.labels);
}

const api::Pod* PodInformer::get(std::string_view ns, std::string_view name) const {
  auto it = pods_.find(View{ns, name});
  return it == pods_.end() ? nullptr : unpacked(it->second);
}

void PodInformer::forEach(std::string_view ns,
                          const std::function<void(const api::Pod&)>& fn) const {
  api::Pod scratch;
  auto it = ns.empty() ? pods_.begin() : pods_.lower_bound(View{ns, ""});
  for (; it != pods_.end() && (ns.empty() || it->first.namespace_ == ns); ++it) {
    unpackPod(it->second.packed, scratch);
    fn(scratch);
  }
}

std::vector<api::Pod> PodInformer::list(const api::ListOptions& options) const {
  std::vector<api::Pod> out;
  forEachPod(options, [&](const api::Pod& pod) { out.push_back(pod); });
  return out;
}

void PodInformer::forEachPod(const api::ListOptions& options,
                             const std::function<void(const api::Pod&)>& fn) const {
  forEach(options.namespace_, [&](const api::Pod& pod) {
    if (api::selectorMatches(options.labelSelector, pod.metadata.labels)) fn(pod);
  });
}

std::size_t PodInformer::podCount(std::string_view ns) const {
  auto it = namespaceCounts_.find(ns);
  return it == namespaceCounts_.end() ? 0 : it->second;
}

std::vector<const api::Pod*> PodInformer::podsOwnedBy(std::string_view ns, std::string_view kind,
                                                      std::string_view name) const {
  auto it = owners_.find(OwnerKeyLess::View{ns, kind, name});
  if (it == owners_.end()) return {};
  const std::vector<const PodMap::value_type*>& owned = it->second;
  // The owner's packed pods, and the freed objects they will be unpacked into, lie scattered
  // over the heap: all of them are asked for before the first is unpacked.
  for (std::size_t i = 0; i < owned.size(); ++i) {
    prefetchPacked(owned[i]->second.packed);
    if (i < spare_.size()) prefetchPodObject(*spare_[spare_.size() - 1 - i]);
  }
  std::vector<const api::Pod*> out;
  out.reserve(owned.size());
  for (const PodMap::value_type* pod : owned) out.push_back(unpacked(pod->second));
  return out;
}

std::vector<const ObjectKey*> PodInformer::keysInNamespace(std::string_view ns) const {
  std::vector<const ObjectKey*> out;
  for (auto it = pods_.lower_bound(View{ns, ""}); it != pods_.end() && it->first.namespace_ == ns;
       ++it) {
    out.push_back(&it->first);
  }
  return out;
}

std::vector<const ObjectKey*> PodInformer::keysOwnedBy(std::string_view ns, std::string_view kind,
                                                       std::string_view name) const {
  auto it = owners_.find(OwnerKeyLess::View{ns, kind, name});
  std::vector<const ObjectKey*> out;
  if (it == owners_.end()) return out;
  out.reserve(it->second.size());
  for (const PodMap::value_type* pod : it->second) out.push_back(&pod->first);
  return out;
}

std::vector<OwnerKey> PodInformer::owners() const {
  std::vector<OwnerKey> out;
  out.reserve(owners_.size());
  for (const auto& entry : owners_) out.push_back(entry.first);
  return out;
}

void PodInformer::recordWrite(const api::Pod& pod) {
  if (!inScope(pod.metadata)) return;
  auto it = pods_.find(viewOf(pod.metadata));
  if (it != pods_.end() &&
      unpackPod(it->second.packed).metadata.resourceVersion == pod.metadata.resourceVersion) {
    return;  // a write that changed nothing: no event will carry its resourceVersion
  }
  if (!pod.metadata.resourceVersion.empty()) {
    pendingWrites_.insert_or_assign(ObjectKey{pod.metadata.namespace_, pod.metadata.name},
                                    pod.metadata.resourceVersion);
  }
  store(pod);
}

void PodInformer::recordWrite(const api::ObjectMeta& meta) {
  auto it = pods_.find(viewOf(meta));
  if (it == pods_.end()) return;
  api::Pod pod = unpackPod(it->second.packed);
  if (pod.metadata.resourceVersion == meta.resourceVersion) return;
  pod.metadata = meta;
  if (!meta.resourceVersion.empty()) {
    pendingWrites_.insert_or_assign(ObjectKey{meta.namespace_, meta.name}, meta.resourceVersion);
  }
  store(pod);
}

// ---------------------------------------------------------------------------------------------
// ListedInformer

template <typename T>
ListedInformer<T>::ListedInformer(api::ClusterApi& api, ListFn list, Clock& clock,
                                  InformerOptions options)
    : api_(api),
      listFn_(list),
      options_(std::move(options)),
      schedule_(clock, options_.resyncPeriod) {}

template <typename T>
Result<void> ListedInformer<T>::sync() {
  if (schedule_.due(watched_ ? options_.resyncPeriod : options_.unwatchedResync)) {
    return relist();
  }
  if (!watched_) return {};
  api::ListOptions scope;
  scope.namespace_ = options_.list.namespace_;
  auto batch = api_.watch(api::Watched<T>{}, scope, resourceVersion_);
  if (!batch) {
    if (batch.error().code == ErrorCode::kUnsupported) {
      watched_ = false;
      return schedule_.due(options_.unwatchedResync) ? relist() : Result<void>{};
    }
    stats_.lastError = batch.error();
    switch (batch.error().code) {
      case ErrorCode::kUnavailable:
        ++stats_.reconnects;
        return {};
      default:
        ++stats_.expired;
        return relist();
    }
  }
  for (const api::WatchEvent<T>& event : batch->events) {
    if (!keepsNamespace(options_, event.object.metadata.namespace_)) {
      ++stats_.filtered;
      continue;
    }
    apply(event);
  }
  resourceVersion_ = std::move(batch->resourceVersion);
  return {};
}

template <typename T>
Result<void> ListedInformer<T>::relist() {
  auto list = (api_.*listFn_)(options_.list);
  if (!list) {
    stats_.lastError = list.error();
    return std::unexpected(list.error());
  }
  std::map<ObjectKey, std::shared_ptr<const T>, ObjectKeyLess> objects;
  for (T& object : list->items) {
    if (!keepsNamespace(options_, object.metadata.namespace_)) {
      ++stats_.filtered;
      continue;
    }
    ObjectKey key{object.metadata.namespace_, object.metadata.name};
    objects.insert_or_assign(std::move(key), std::make_shared<const T>(std::move(object)));
  }
  objects_ = std::move(objects);
  changed();
  pendingWrites_.clear();
  resourceVersion_ = std::move(list->resourceVersion);
  schedule_.listed();
  ++stats_.relists;
  return {};
}

template <typename T>
void ListedInformer<T>::apply(const api::WatchEvent<T>& event) {
  const api::ObjectMeta& meta = event.object.metadata;
  switch (event.type) {
    case api::WatchEventType::kDeleted:
      pendingWrites_.erase(ObjectKey{meta.namespace_, meta.name});
      if (auto it = objects_.find(viewOf(meta)); it != objects_.end()) {
        objects_.erase(it);
        changed();
      }
      break;
    case api::WatchEventType::kAdded:
    case api::WatchEventType::kModified: {
      if (auto p = pendingWrites_.find(viewOf(meta)); p != pendingWrites_.end()) {
        // Events before the one of our own write are older than what the cache holds.
        if (p->second != meta.resourceVersion) return;
        pendingWrites_.erase(p);
      }
      objects_.insert_or_assign(ObjectKey{meta.namespace_, meta.name},
                                std::make_shared<const T>(event.object));
      changed();
      break;
    }
    case api::WatchEventType::kBookmark:
    case api::WatchEventType::kError:
      return;
  }
  ++stats_.events;
}

template <typename T>
void ListedInformer<T>::pending(const api::ObjectMeta& meta) {
  if (watched_ && !meta.resourceVersion.empty()) {
    pendingWrites_.insert_or_assign(ObjectKey{meta.namespace_, meta.name}, meta.resourceVersion);
  }
}

template <typename T>
const T* ListedInformer<T>::get(std::string_view ns, std::string_view name) const {
  auto it = objects_.find(View{ns, name});
  return it == objects_.end() ? nullptr : it->second.get();
}

template <typename T>
std::vector<T> ListedInformer<T>::list(const api::ListOptions& options) const {
  std::vector<T> out;
  const std::string_view ns = options.namespace_;
  auto it = ns.empty() ? objects_.begin() : objects_.lower_bound(View{ns, ""});
  for (; it != objects_.end() && (ns.empty() || it->first.namespace_ == ns); ++it) {
    if (api::selectorMatches(options.labelSelector, it->second->metadata.labels)) {
      out.push_back(*it->second);
    }
  }
  return out;
}

template <typename T>
void ListedInformer<T>::forEach(const std::function<void(const T&)>& fn) const {
  for (const auto& entry : objects_) fn(*entry.second);
}

template <typename T>
api::SharedList<T> ListedInformer<T>::shared(std::string_view ns) const {
  auto it = shared_.find(ns);
  if (it != shared_.end()) return it->second;
  auto list = std::make_shared<std::vector<std::shared_ptr<const T>>>();
  auto o = ns.empty() ? objects_.begin() : objects_.lower_bound(View{ns, ""});
  for (; o != objects_.end() && (ns.empty() || o->first.namespace_ == ns); ++o) {
    list->push_back(o->second);
  }
  return shared_.emplace(std::string(ns), std::move(list)).first->second;
}

template <typename T>
void ListedInformer<T>::recordWrite(T object) {
  const api::ObjectMeta& meta = object.metadata;
  if (!options_.list.namespace_.empty() && meta.namespace_ != options_.list.namespace_) return;
  if (!keepsNamespace(options_, meta.namespace_)) return;
  auto it = objects_.find(viewOf(meta));
  if (it != objects_.end() && it->second->metadata.resourceVersion == meta.resourceVersion) return;
  pending(meta);
  ObjectKey key{meta.namespace_, meta.name};
  objects_.insert_or_assign(std::move(key), std::make_shared<const T>(std::move(object)));
  changed();
}

template <typename T>
void ListedInformer<T>::recordWrite(const api::ObjectMeta& meta) {
  auto it = objects_.find(viewOf(meta));
  if (it == objects_.end() || it->second->metadata.resourceVersion == meta.resourceVersion) return;
  pending(meta);
  auto object = std::make_shared<T>(*it->second);  // a new object: lists handed out keep the old
  object->metadata = meta;
  it->second = std::move(object);
  changed();
}

template class ListedInformer<api::Node>;
template class ListedInformer<api::Deployment>;
template class ListedInformer<api::StatefulSet>;
template class ListedInformer<api::DaemonSet>;
template class ListedInformer<api::ReplicaSet>;
template class ListedInformer<api::Job>;
template class ListedInformer<api::CronJob>;
template class ListedInformer<api::LimitRange>;
template class ListedInformer<api::ResourceQuota>;
template class ListedInformer<api::HorizontalPodAutoscaler>;
template class ListedInformer<api::PodDisruptionBudget>;
template class ListedInformer<api::AttunePolicy>;
template class ListedInformer<api::AttuneDefaults>;
template class ListedInformer<api::AttuneNamespaceDefaults>;

}  // namespace attune::kube
