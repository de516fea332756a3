// The simulated API server's storage: resourceVersion/uid/timestamp assignment and one
// (namespace, name)-keyed collection per kind. Every write goes through a store, so every write
// is stamped with a new resourceVersion. Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/cluster_api.h"
#include "core/clock.h"
#include "core/error.h"

namespace attune::sim {

// api::selectorMatches (api/k8s/meta.h), kept under this name for existing callers; call it
// qualified (sim::selectorMatches): unqualified calls with api arguments are ambiguous. Pure.
bool selectorMatches(const api::LabelSelector& selector, const api::StringMap& labels);
// True when `meta` is in `options`' namespace (any when empty) and matches its selector.
bool listMatches(const api::ListOptions& options, const api::ObjectMeta& meta);

// Assigns resourceVersions, uids and creation timestamps for one cluster. The resourceVersion
// is one cluster-wide counter that every write advances, as etcd's revision does; it is
// rendered as a decimal string, which clients must treat as opaque.
class Versioner {
 public:
  explicit Versioner(Clock& clock) : clock_(clock) {}

  // Sets an empty name to generateName plus a cluster-unique suffix, as the API server does.
  void nameFromGenerateName(api::ObjectMeta& meta);
  // Stamps a new object: uid, creationTimestamp = now, generation 1, the next resourceVersion.
  void stampCreate(api::ObjectMeta& meta);
  // Stamps a modification or deletion: the next resourceVersion; generation + 1 when
  // `specChanged`.
  void stampUpdate(api::ObjectMeta& meta, bool specChanged);
  // The latest resourceVersion handed out (0 before the first write).
  std::uint64_t current() const { return rv_; }
  // Takes the next resourceVersion for a write kept outside the typed stores (the REST front
  // end's stored objects), so that every write of the cluster is ordered by one counter.
  std::uint64_t next() { return ++rv_; }

 private:
  Clock& clock_;
  std::uint64_t rv_ = 0;
  std::uint64_t uids_ = 0;
};

// What a mutation did to an object: nothing (no write happens, the resourceVersion stays),
// metadata or status only, or the spec (generation advances too).
enum class Change { kNone, kMetadata, kSpec };

// The API server's 404: `<resource> "<name>" not found`.
Error notFoundError(std::string_view resource, std::string_view name);
// kConflict unless `precondition` is empty or equals `meta.resourceVersion`.
Result<void> checkResourceVersion(const api::ObjectMeta& meta, std::string_view precondition,
                                  std::string_view resource);

// One kind's objects (`T` has an api::ObjectMeta `metadata`), copies in key order. Each write
// is stamped by the shared Versioner and reported to the observer, if any, after it happened.
template <typename T>
class ObjectStore {
 public:
  using Observer = std::function<void(api::WatchEventType, const T&)>;
  using Mutation = std::function<Result<Change>(T&)>;

  // `resource` is the plural API name used in messages ("pods").
  ObjectStore(std::string resource, Versioner& versioner)
      : resource_(std::move(resource)), versioner_(versioner) {}

  void setObserver(Observer observer) { observer_ = std::move(observer); }
  // A second observer, called after the first with the same arguments: for a front end that
  // records changes (the REST server's watch log) without taking the owner's observer.
  void setWatchObserver(Observer observer) { watchObserver_ = std::move(observer); }

  // The number of stored objects.
  std::size_t size() const { return objects_.size(); }
  // How many writes (creations, modifications, deletions) this store has taken: while it stays
  // the same, so do the objects, and what was computed from them can be kept.
  std::uint64_t writes() const { return writes_; }
  // The stored object, or nullptr. The pointer is valid until the next write to this store.
  const T* find(std::string_view ns, std::string_view name) const {
    auto it = objects_.find(key(ns, name));
    return it == objects_.end() ? nullptr : &it->second;
  }
  // A copy of the object, or kNotFound.
  Result<T> get(std::string_view ns, std::string_view name) const {
    if (const T* object = find(ns, name)) return *object;
    return std::unexpected(notFoundError(resource_, name));
  }
  // Copies of the objects `options` selects, in (namespace, name) order.
  std::vector<T> list(const api::ListOptions& options) const {
    std::vector<T> out;
    for (const auto& [key, object] : objects_) {
      if (listMatches(options, object.metadata)) out.push_back(object);
    }
    return out;
  }
  // Calls fn(const T&) for every object, in (namespace, name) order, without copying. `fn` must
  // not write to this store.
  template <typename Fn>
  void forEach(Fn&& fn) const {
    for (const auto& entry : objects_) fn(entry.second);
  }
  // Calls fn(const T&) for every object in namespace `ns` ("" = the cluster-scoped objects), in
  // name order, without copying. `fn` must not write to this store.
  template <typename Fn>
  void forEachInNamespace(std::string_view ns, Fn&& fn) const {
    for (auto it = objects_.lower_bound(key(ns, "")); it != objects_.end() && it->first.first == ns;
         ++it) {
      fn(it->second);
    }
  }
  // Stamps and stores a new object; kConflict ("AlreadyExists") when its key is taken.
  Result<T> create(T object) {
    versioner_.nameFromGenerateName(object.metadata);
    Key k = key(object.metadata.namespace_, object.metadata.name);
    if (objects_.contains(k)) {
      return fail(ErrorCode::kConflict,
                  resource_ + " \"" + object.metadata.name + "\" already exists");
    }
    versioner_.stampCreate(object.metadata);
    ++writes_;
    auto it = objects_.emplace(std::move(k), std::move(object)).first;
    notify(api::WatchEventType::kAdded, it->second);
    return it->second;
  }
  // Runs `mutate` on a copy of the object after checking the resourceVersion precondition
  // (empty: none). A failed mutation or Change::kNone leaves the store as it was; otherwise the
  // copy is stamped, stored and returned.
  Result<T> modify(std::string_view ns, std::string_view name, std::string_view precondition,
                   const Mutation& mutate) {
    auto it = objects_.find(key(ns, name));
    if (it == objects_.end()) return std::unexpected(notFoundError(resource_, name));
    if (auto ok = checkResourceVersion(it->second.metadata, precondition, resource_); !ok) {
      return std::unexpected(ok.error());
    }
    T copy = it->second;
    auto change = mutate(copy);
    if (!change) return std::unexpected(change.error());
    if (*change == Change::kNone) return it->second;
    versioner_.stampUpdate(copy.metadata, *change == Change::kSpec);
    ++writes_;
    it->second = std::move(copy);
    notify(api::WatchEventType::kModified, it->second);
    return it->second;
  }
  // Deletes the object and returns it as last seen (with the deletion's resourceVersion).
  Result<T> erase(std::string_view ns, std::string_view name) {
    auto node = objects_.extract(key(ns, name));
    if (node.empty()) return std::unexpected(notFoundError(resource_, name));
    versioner_.stampUpdate(node.mapped().metadata, false);
    ++writes_;
    notify(api::WatchEventType::kDeleted, node.mapped());
    return std::move(node.mapped());
  }
  // The collection's resourceVersion: the cluster's latest.
  std::string resourceVersion() const { return std::to_string(versioner_.current()); }
  // An api::List of what `options` selects, stamped with the current resourceVersion.
  api::List<T> listResult(const api::ListOptions& options) const {
    return api::List<T>{list(options), resourceVersion(), {}, {}};
  }

 private:
  using Key = std::pair<std::string, std::string>;  // (namespace, name); namespace "" if none
  static Key key(std::string_view ns, std::string_view name) {
    return {std::string(ns), std::string(name)};
  }
  void notify(api::WatchEventType type, const T& object) {
    if (observer_) observer_(type, object);
    if (watchObserver_) watchObserver_(type, object);
  }

  std::string resource_;
  Versioner& versioner_;
  Observer observer_;
  Observer watchObserver_;
  std::map<Key, T> objects_;
  std::uint64_t writes_ = 0;
};

}  // namespace attune::sim
