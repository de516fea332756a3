// Informer caches: local copies of the objects the controller reads, kept current from an
// api::ClusterApi so that a reconcile pass reads memory instead of the API server.
//
// - PodInformer LISTs once (page by page, each page packed before the next is read; a 410 Gone
//   on a later page, an expired continue token, starts the LIST again from its first page, up
//   to kListRestarts times), then follows the pod watch (ClusterApi::watchPods): each sync()
//   applies the ADDED / MODIFIED / DELETED events that arrived since the last one, in order.
//   A watch whose resourceVersion has expired (410 Gone: kConflict, field "resourceVersion")
//   or that fails in any other way except kUnavailable is replaced by a full relist. kUnavailable
//   (a dropped stream, a transport failure) keeps the cache, counts a reconnect, and the next
//   sync() reopens the watch from the same resourceVersion. Every `resyncPeriod` a full relist
//   replaces the cache anyway, healing any drift between the watch and the server.
// - ListedInformer<T> covers the other kinds (nodes, workloads, LimitRanges, ResourceQuotas,
//   HPAs, AttunePolicies, ...): listed once, then followed through the generic watch
//   (ClusterApi::watch) as pods are; a kind the ClusterApi cannot watch (kUnsupported) is
//   relisted every unwatchedResync instead (see the class comment).
//
// A failed LIST leaves the cache as it was and sync() returns the error. An object is replaced
// whole, never half-applied.
//
// Memory: pods are kept packed (kube/compact_pod.h, about 2 KB for a realistic pod instead of
// 11–13 KB as an api::Pod) and unpacked when read. The annotation
// kubectl.kubernetes.io/last-applied-configuration (a copy of the whole object as last applied,
// often several KB) is dropped from cached pods; managedFields are never decoded
// (api::ObjectMeta has no such field). Other kinds are few and kept as decoded objects.
//
// Namespace filter (InformerOptions::namespaceFilter): a sharded controller keeps only the
// objects of the namespaces it owns. The filter is applied to every object as it comes out of a
// LIST page or a watch event, before it is packed or stored, so the other namespaces' objects
// cost no memory: the cache, its indexes, its views and its log of recent events hold the
// accepted namespaces only, exactly what one LIST per accepted namespace would return.
//
// Not thread-safe: one thread calls sync() and reads, as with ClusterApi.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "core/error.h"
#include "core/time.h"

namespace attune::kube {

// The annotation dropped from cached pods (see above).
inline constexpr std::string_view kLastAppliedAnnotation =
    "kubectl.kubernetes.io/last-applied-configuration";

// (namespace, name) of a cached object; namespace "" for cluster-scoped kinds. Ordered by
// namespace, then name: the order of ClusterApi lists.
struct ObjectKey {
  std::string namespace_;
  std::string name;

  auto operator<=>(const ObjectKey&) const = default;
  bool operator==(const ObjectKey&) const = default;
};

// A pod's controller (its ownerReference with controller=true): kind and name, in the pod's
// namespace.
struct OwnerKey {
  std::string namespace_;
  std::string kind;
  std::string name;

  auto operator<=>(const OwnerKey&) const = default;
  bool operator==(const OwnerKey&) const = default;
};

// Orders ObjectKeys and lets maps be searched with (namespace, name) string_views.
struct ObjectKeyLess {
  using is_transparent = void;
  struct View {
    std::string_view namespace_;
    std::string_view name;
  };
  static View view(const ObjectKey& k) { return {k.namespace_, k.name}; }
  static View view(const View& v) { return v; }
  template <typename L, typename R>
  bool operator()(const L& l, const R& r) const {
    const View a = view(l);
    const View b = view(r);
    return a.namespace_ != b.namespace_ ? a.namespace_ < b.namespace_ : a.name < b.name;
  }
};

// Orders OwnerKeys as their operator<=> does and lets maps be searched with (namespace, kind,
// name) string_views.
struct OwnerKeyLess {
  using is_transparent = void;
  using View = std::tuple<std::string_view, std::string_view, std::string_view>;
  static View view(const OwnerKey& k) { return {k.namespace_, k.kind, k.name}; }
  static View view(const View& v) { return v; }
  template <typename L, typename R>
  bool operator()(const L& l, const R& r) const {
    return view(l) < view(r);
  }
};

struct InformerOptions {
  // What the cache holds: a namespace ("" = all) and a label selector (pods only; the other
  // kinds are listed with the namespace alone).
  api::ListOptions list;
  // A full relist once this much time (on the informer's Clock) has passed since the last one;
  // zero relists on every sync().
  Duration resyncPeriod = Duration::zero();
  // ListedInformer: the relist period while ClusterApi cannot watch the kind (kUnsupported);
  // zero relists on every sync(). While the kind is watched, resyncPeriod applies.
  Duration unwatchedResync = Duration::zero();
  // PodInformer: the pods of each LIST page (ClusterApi::listPodsPage), packed into the cache
  // before the next page is read, so that a LIST never lies decoded whole in memory. Zero: one
  // unpaged LIST (ClusterApi::listPods).
  std::size_t pageSize = 500;
  // Keeps only the objects whose namespace this returns true for (see the file comment);
  // empty: every namespace. Meant for namespaced kinds; a cluster-scoped object has the
  // namespace "" and is kept only when the filter accepts "". Must be a pure function of the
  // name: an object it once rejected is never looked at again until it changes.
  std::function<bool(std::string_view)> namespaceFilter;
};

// Whether `options`' namespaceFilter keeps objects of namespace `ns` (true without a filter).
bool keepsNamespace(const InformerOptions& options, std::string_view ns);

// What an informer has done; for metrics and tests.
struct InformerStats {
  std::uint64_t relists = 0;       // successful LISTs that replaced the cache (the first too)
  std::uint64_t expired = 0;       // watch errors that forced a relist (410 Gone and others)
  std::uint64_t reconnects = 0;    // watch calls that failed with kUnavailable
  std::uint64_t events = 0;        // watch events applied
  std::uint64_t listRestarts = 0;  // paged LISTs started again after a 410 Gone mid-way
  std::uint64_t filtered = 0;      // listed objects and watch events the namespaceFilter dropped
  std::optional<Error> lastError;  // the last failed LIST or watch call, if any
};

// Time bookkeeping shared by the informers: whether the next sync() must relist.
class ResyncSchedule {
 public:
  ResyncSchedule(Clock& clock, Duration period) : clock_(clock), period_(period) {}
  // True before the first successful list and once `period` has passed since the last one.
  bool due() const { return due(period_); }
  // The same with another period.
  bool due(Duration period) const;
  // Records a successful list at clock.now().
  void listed();
  bool synced() const { return last_.has_value(); }

 private:
  Clock& clock_;
  Duration period_;
  std::optional<Time> last_;
};

// Pods, listed then watched. `api` and `clock` must outlive the informer. Its api::PodView
// (pod, podsOwnedBy, forEachPod) reads the cache in place: the controller's pass takes the
// pods of its targets from it instead of a copy of every pod.
class PodInformer final : public api::PodView {
 public:
  PodInformer(api::ClusterApi& api, Clock& clock, InformerOptions options = defaultOptions());

  // The default for pods: all namespaces, a relist every 30 minutes.
  static InformerOptions defaultOptions();

  // Brings the cache up to date: LIST the first time and when the resync period has passed,
  // otherwise drain the watch (see the file comment for its failures). Returns the LIST's
  // error when a needed relist fails (the cache then stays as it was). Every pointer and key
  // view handed out before the call becomes invalid.
  Result<void> sync();

  // True once a LIST has succeeded.
  bool synced() const { return schedule_.synced(); }
  // The resourceVersion the next watch resumes from.
  const std::string& resourceVersion() const override { return resourceVersion_; }
  std::size_t size() const { return pods_.size(); }
  std::size_t podCount(std::string_view ns) const override;

  // The most recent pod changes the cache applied, for a reader that follows the cache instead
  // of opening a watch of its own (ClusterApi::watchPods semantics): the ADDED, MODIFIED and
  // DELETED events after `resourceVersion` that `options` selects, and the cache's
  // resourceVersion. The log keeps the last kRecentEvents events and starts again at every
  // relist; a resourceVersion it no longer covers fails with kConflict (field
  // "resourceVersion"), as a 410 Gone would.
  static constexpr std::size_t kRecentEvents = 2048;
  // How many times one relist starts again after a 410 Gone before it gives up (the error is
  // then sync()'s, and the next sync() tries again).
  static constexpr int kListRestarts = 5;
  Result<api::WatchBatch<api::Pod>> recentEvents(const api::ListOptions& options,
                                                 std::string_view resourceVersion) const;
  const InformerStats& stats() const { return stats_; }
  const InformerOptions& options() const { return options_; }

  // The cached pod, or nullptr. The pod is unpacked on first access and then kept: the pointer
  // stays valid, and the object unchanged, until the next sync() (a write recorded meanwhile
  // is visible to later calls only).
  const api::Pod* get(std::string_view ns, std::string_view name) const;
  const api::Pod* get(const ObjectKey& key) const { return get(key.namespace_, key.name); }
  // Frees the pods get() unpacked, and those replaced since: the cache is unchanged, but every
  // pod pointer handed out since the last sync() becomes invalid, as after a sync(). For a
  // reader done with the pods it asked for that goes on to others (the controller between two
  // groups of passes), so that unpacked pods do not pile up until the next sync(). Up to
  // kSparePods of the freed objects are kept, and the next pods unpacked reuse them (their
  // strings and vectors keep their capacity), so a reader going through the cache a group at a
  // time allocates for its first group only.
  void releaseUnpacked() const;
  static constexpr std::size_t kSparePods = 4096;
  // The freed pod objects kept for reuse (at most kSparePods).
  std::size_t sparePods() const { return spare_.size(); }
  // The unpacked pods held: got since the last sync() or releaseUnpacked(), or replaced since.
  std::size_t unpackedCount() const;

  // api::PodView. pod() is get(); podsOwnedBy() the pods of keysOwnedBy() through get();
  // forEachPod() the pods list(options) would copy, in its order, unpacked one at a time.
  const api::Pod* pod(std::string_view ns, std::string_view name) const override {
    return get(ns, name);
  }
  std::vector<const api::Pod*> podsOwnedBy(std::string_view ns, std::string_view kind,
                                           std::string_view name) const override;
  void forEachPod(const api::ListOptions& options,
                  const std::function<void(const api::Pod&)>& fn) const override;

  // Calls fn(pod) for every cached pod in namespace `ns` ("" = all), in (namespace, name)
  // order. The reference is valid during the call only. Unpacks each pod into one reused
  // object: the cheap way to read them all.
  void forEach(std::string_view ns, const std::function<void(const api::Pod&)>& fn) const;
  // Copies of the pods `options` selects (namespace, label selector), in (namespace, name)
  // order.
  std::vector<api::Pod> list(const api::ListOptions& options) const;

  // Indexes. The keys point into the cache: valid until the next sync(), in name order.
  std::vector<const ObjectKey*> keysInNamespace(std::string_view ns) const;
  // Pods whose controller ownerReference is `kind`/`name` in namespace `ns`.
  std::vector<const ObjectKey*> keysOwnedBy(std::string_view ns, std::string_view kind,
                                            std::string_view name) const;
  // Every controller that owns at least one cached pod, in order.
  std::vector<OwnerKey> owners() const;

  // --- Write-through, for CachedClusterApi: the object a successful write returned. Until the
  // watch delivers the event carrying this resourceVersion, older events for the pod are
  // ignored, so a lagging watch cannot undo a write this process made.
  // Stores `pod` (inserted when it matches the options and is not cached yet).
  void recordWrite(const api::Pod& pod);
  // Replaces the metadata of the cached pod `meta` names; nothing when it is not cached.
  void recordWrite(const api::ObjectMeta& meta);

 private:
  struct Entry {
    std::string packed;
    const OwnerKey* owner = nullptr;  // key of owners_, or nullptr
    // The pod as get() unpacked it, until the next sync() or releaseUnpacked().
    mutable std::unique_ptr<api::Pod> unpacked;
    mutable bool listed = false;  // in unpackedEntries_
  };
  using PodMap = std::map<ObjectKey, Entry, ObjectKeyLess>;
  // A controller's pods, in name order: entries of pods_.
  using OwnerMap = std::map<OwnerKey, std::vector<const PodMap::value_type*>, OwnerKeyLess>;

  Result<void> relist();
  // One attempt at a paged LIST into pods_ / owners_ (emptied first); the resourceVersion of
  // the list, or the error of the failed page.
  Result<std::string> listPages();
  void apply(const api::WatchEvent<api::Pod>& event);
  void store(const api::Pod& pod);
  // store() when the namespaceFilter keeps the pod, else counted in stats_.filtered.
  void storeListed(const api::Pod& pod);
  void erase(std::string_view ns, std::string_view name);
  void unlinkOwner(PodMap::iterator it);
  // The entry's pod, unpacked on first access (get()).
  const api::Pod* unpacked(const Entry& entry) const;
  // Moves the entry's unpacked pod, if any, to retired_: it is being replaced or erased.
  void retire(Entry& entry);
  // Keeps a freed pod object in spare_ while there is room, else frees it.
  void recycle(std::unique_ptr<api::Pod> pod) const;
  void linkOwner(PodMap::iterator it, const api::Pod& pod);
  bool inScope(const api::ObjectMeta& meta) const;

  api::ClusterApi& api_;
  InformerOptions options_;
  ResyncSchedule schedule_;
  std::string resourceVersion_;
  PodMap pods_;
  OwnerMap owners_;
  // How many entries pods_ holds in each namespace (podCount() without walking them).
  std::map<std::string, std::size_t, std::less<>> namespaceCounts_;
  // Pods written through this process whose own watch event has not arrived yet: the
  // resourceVersion of the write.
  std::map<ObjectKey, std::string, ObjectKeyLess> pendingWrites_;
  // The entries whose pod get() unpacked since the last sync() or releaseUnpacked(), each once
  // (some may have had it retired since), and the unpacked pods replaced or erased meanwhile.
  mutable std::vector<const Entry*> unpackedEntries_;
  mutable std::vector<std::unique_ptr<api::Pod>> retired_;
  // Freed pod objects that unpacked() fills again instead of allocating.
  mutable std::vector<std::unique_ptr<api::Pod>> spare_;
  InformerStats stats_;
  // recentEvents' log: each applied event with its resourceVersion, and a mark (no event) with
  // the resourceVersion where each sync left the cache.
  struct LoggedEvent {
    std::string resourceVersion;
    std::optional<api::WatchEvent<api::Pod>> event;
  };
  std::deque<LoggedEvent> recent_;
  void logMark();
};

// One kind other than pods, listed then followed through the generic watch
// (ClusterApi::watch(api::Watched<T>, ...)) as PodInformer follows the pod watch: 410 Gone and
// other failures relist, kUnavailable keeps the cache and reopens the watch at the next sync(),
// a full relist every resyncPeriod. A ClusterApi that cannot watch the kind (kUnsupported) is
// relisted every unwatchedResync instead. `T` has an api::ObjectMeta `metadata`. Instantiated
// (in informer.cc) for every kind the controller reads.
template <typename T>
class ListedInformer {
 public:
  using ListFn = Result<api::List<T>> (api::ClusterApi::*)(const api::ListOptions&);

  // Lists with (api.*list)(options.list): only the namespace of options.list is used.
  ListedInformer(api::ClusterApi& api, ListFn list, Clock& clock, InformerOptions options = {});

  // Relists when due, otherwise drains the watch; a failed LIST leaves the cache as it was and
  // is returned.
  Result<void> sync();

  bool synced() const { return schedule_.synced(); }
  // False once the ClusterApi answered the watch with kUnsupported.
  bool watched() const { return watched_; }
  const std::string& resourceVersion() const { return resourceVersion_; }
  std::size_t size() const { return objects_.size(); }
  const InformerStats& stats() const { return stats_; }
  const InformerOptions& options() const { return options_; }

  // The cached object, or nullptr; valid until the next sync() or recorded write (either may
  // replace it).
  const T* get(std::string_view ns, std::string_view name) const;
  // Copies of the objects in `options`' namespace matching its selector, in (namespace, name)
  // order.
  std::vector<T> list(const api::ListOptions& options) const;
  // Calls fn(object) for each object, in (namespace, name) order.
  void forEach(const std::function<void(const T&)>& fn) const;
  // The objects of namespace `ns` ("" = all), in (namespace, name) order: what list() returns
  // for `ns` without a selector, as the cache holds them (api::SharedList: no object is
  // copied). While the cache has not changed (no relist, applied watch event or recorded
  // write), every call returns the same list. A change replaces the objects it touches in the
  // cache (it never alters one in place), so a list a reader holds keeps showing what it showed.
  api::SharedList<T> shared(std::string_view ns) const;

  // Write-through: stores `object` (when in the informer's namespace) / replaces the metadata
  // of the cached object `meta` names (nothing when not cached). As with pods, watch events
  // older than the write are ignored until the write's own event arrives.
  void recordWrite(T object);
  void recordWrite(const api::ObjectMeta& meta);

 private:
  Result<void> relist();
  void apply(const api::WatchEvent<T>& event);
  void pending(const api::ObjectMeta& meta);
  // The cache changed: the shared lists handed out no longer show it.
  void changed() { shared_.clear(); }

  bool watched_ = true;
  std::map<ObjectKey, std::string, ObjectKeyLess> pendingWrites_;
  api::ClusterApi& api_;
  ListFn listFn_;
  InformerOptions options_;
  ResyncSchedule schedule_;
  std::string resourceVersion_;
  // Each object immutable once stored (shared() hands them out): a change stores a new one.
  std::map<ObjectKey, std::shared_ptr<const T>, ObjectKeyLess> objects_;
  InformerStats stats_;
  // shared()'s lists by namespace, until the cache changes.
  mutable std::map<std::string, api::SharedList<T>, std::less<>> shared_;
};

extern template class ListedInformer<api::Node>;
extern template class ListedInformer<api::Deployment>;
extern template class ListedInformer<api::StatefulSet>;
extern template class ListedInformer<api::DaemonSet>;
extern template class ListedInformer<api::ReplicaSet>;
extern template class ListedInformer<api::Job>;
extern template class ListedInformer<api::CronJob>;
extern template class ListedInformer<api::LimitRange>;
extern template class ListedInformer<api::ResourceQuota>;
extern template class ListedInformer<api::HorizontalPodAutoscaler>;
extern template class ListedInformer<api::AttunePolicy>;
extern template class ListedInformer<api::AttuneDefaults>;
extern template class ListedInformer<api::AttuneNamespaceDefaults>;

}  // namespace attune::kube
