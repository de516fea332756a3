// Objects of kinds the simulator does not model (ServiceAccounts, RBAC, Services, CRDs, and
// workloads created through the REST API rather than by the scenario), stored as the JSON
// they were written with, so `kubectl apply` of a whole deployment succeeds. Nothing acts on
// them. Their resourceVersions come from the cluster's Versioner, so lists and watches order
// them with the typed objects. Not thread-safe: SimHost's lock guards it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/time.h"
#include "sim/cluster/object_store.h"

namespace attune::sim::serve {

class OpaqueStore {
 public:
  // Called after every write with the resource, what happened and the stored JSON (for a
  // deletion, the object as last stored with the deletion's resourceVersion).
  using ChangeListener =
      std::function<void(std::string_view resource, api::WatchEventType, const std::string& json)>;

  // `versioner` (the cluster's) must outlive the store.
  explicit OpaqueStore(Versioner& versioner, ChangeListener listener = {})
      : versioner_(versioner), listener_(std::move(listener)) {}

  // Stores `objectJson` (a JSON object) as resource `resource` ("deployments.apps") in `ns`
  // ("" for cluster-scoped kinds): metadata.namespace is set to `ns`, a missing name is taken
  // from generateName, and uid, resourceVersion, generation 1 and creationTimestamp (`now`) are
  // stamped. kInvalidArgument (field "metadata.name") without a name; kConflict ("already
  // exists") when taken. Returns the stored JSON.
  Result<std::string> create(std::string_view resource, std::string_view ns,
                             std::string_view objectJson, Time now);
  // Replaces the stored object, keeping uid and creationTimestamp. metadata.resourceVersion in
  // `objectJson`, when set, is a precondition (kConflict when stale). A change outside metadata
  // and status advances metadata.generation. kNotFound when absent.
  Result<std::string> update(std::string_view resource, std::string_view ns, std::string_view name,
                             std::string_view objectJson);
  Result<std::string> get(std::string_view resource, std::string_view ns,
                          std::string_view name) const;
  // The objects of `resource` in `ns` ("" = every namespace), in (namespace, name) order.
  std::vector<std::string> list(std::string_view resource, std::string_view ns) const;
  // Removes the object and returns it, with the deletion's resourceVersion. kNotFound when
  // absent.
  Result<std::string> erase(std::string_view resource, std::string_view ns, std::string_view name);
  bool contains(std::string_view resource, std::string_view ns, std::string_view name) const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // resource, namespace, name
  void notify(std::string_view resource, api::WatchEventType type, const std::string& json) {
    if (listener_) listener_(resource, type, json);
  }

  Versioner& versioner_;
  ChangeListener listener_;
  std::map<Key, std::string> objects_;
  std::uint64_t uids_ = 0;
};

}  // namespace attune::sim::serve
